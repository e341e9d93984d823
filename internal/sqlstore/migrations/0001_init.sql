-- 0001_init: the whole first schema.
--
-- This file runs unchanged on SQLite and PostgreSQL, and is meant to stay
-- portable to PostgreSQL-compatible distributed engines (CockroachDB,
-- YugabyteDB). What it needs from an engine, and all it may ever need:
--   * types BIGINT, SMALLINT, TEXT and BOOLEAN only: no BLOB/BYTEA, no
--     SERIAL/AUTOINCREMENT or sequences (ids come from the data, or from
--     max(id)+1 in a transaction), no JSON, no engine-specific types;
--   * PRIMARY KEY, UNIQUE, NOT NULL and REFERENCES constraints, and plain
--     B-tree indexes (CREATE INDEX name ON table (columns));
--   * no extensions, triggers, stored procedures, views or partial indexes;
--   * the statements the code sends: INSERT ... ON CONFLICT (cols) DO UPDATE
--     SET col = excluded.col, SELECT ... FOR UPDATE (PostgreSQL migration
--     lock), LEFT JOIN, ORDER BY, $n placeholders.
-- Datetimes are BIGINT milliseconds since the epoch of the wall clock's UTC
-- reading; money is BIGINT in the domain's units (Money 1/10000, ItemMoney
-- 1/100); enumerations are SMALLINT, NULL where a nullable one is null.

CREATE TABLE merchants (
    id              BIGINT   NOT NULL PRIMARY KEY,
    name            TEXT     NOT NULL,
    avatar_url      TEXT     NOT NULL,
    status          SMALLINT NOT NULL,
    rate_per_minute BIGINT,
    rate_per_day    BIGINT,
    rate_concurrent BIGINT
);

CREATE TABLE affiliates (
    id              BIGINT   NOT NULL PRIMARY KEY,
    contact_name    TEXT     NOT NULL,
    business_name   TEXT     NOT NULL,
    status          SMALLINT NOT NULL,
    gst_registered  BOOLEAN  NOT NULL,
    rate_per_minute BIGINT,
    rate_per_day    BIGINT,
    rate_concurrent BIGINT
);

-- The primary key, affiliate first, is also the lookup by affiliate that
-- banner listing needs.
CREATE TABLE memberships (
    affiliate_id BIGINT   NOT NULL REFERENCES affiliates (id),
    merchant_id  BIGINT   NOT NULL REFERENCES merchants (id),
    status       SMALLINT NOT NULL,
    PRIMARY KEY (affiliate_id, merchant_id)
);

-- A key belongs to a merchant or an affiliate by account_kind (1 merchant,
-- 2 affiliate), so account_id cannot carry a foreign key.
CREATE TABLE api_keys (
    id           TEXT     NOT NULL PRIMARY KEY,
    key_hash     TEXT     NOT NULL UNIQUE,
    account_kind SMALLINT NOT NULL,
    account_id   BIGINT   NOT NULL,
    label        TEXT     NOT NULL,
    created      BIGINT   NOT NULL,
    revoked      BIGINT
);

CREATE INDEX api_keys_account ON api_keys (account_kind, account_id, created, id);

-- invoice_id has no foreign key: an import writes transactions before
-- invoices, and a Paid transaction may name an invoice kept elsewhere.
CREATE TABLE transactions (
    id                      BIGINT   NOT NULL PRIMARY KEY,
    merchant_id             BIGINT   NOT NULL REFERENCES merchants (id),
    date_created            BIGINT   NOT NULL,
    date_modified           BIGINT   NOT NULL,
    consumption_date        BIGINT   NOT NULL,
    validation_date         BIGINT   NOT NULL,
    affiliate_id            BIGINT   NOT NULL REFERENCES affiliates (id),
    traffic_type            SMALLINT NOT NULL,
    traffic_source          TEXT     NOT NULL,
    creative_type           SMALLINT NOT NULL,
    creative_id             BIGINT,
    creative_name           TEXT,
    customer_country_code   TEXT     NOT NULL,
    customer_country_name   TEXT     NOT NULL,
    customer_ip_address     TEXT     NOT NULL,
    customer_type           SMALLINT NOT NULL,
    order_id                TEXT     NOT NULL,
    additional_notes        TEXT,
    tracking_method         SMALLINT NOT NULL,
    sale_value              BIGINT   NOT NULL,
    commission              BIGINT   NOT NULL,
    override_fee            BIGINT   NOT NULL,
    reported_currency_code  TEXT     NOT NULL,
    reported_currency_name  TEXT     NOT NULL,
    reported_sale_value     BIGINT   NOT NULL,
    traffic_source_approved BOOLEAN  NOT NULL,
    status2                 SMALLINT NOT NULL,
    invoice_id              BIGINT,
    void_reason             SMALLINT,
    amended_reason          SMALLINT,
    coupon_code             TEXT,
    placement_id            BIGINT,
    placement_name          TEXT
);

-- The list query is a range scan of one merchant's dates, already in the
-- order it returns.
CREATE INDEX transactions_merchant_created ON transactions (merchant_id, date_created, id);
CREATE INDEX transactions_merchant_modified ON transactions (merchant_id, date_modified, id);

CREATE TABLE transaction_items (
    transaction_id       BIGINT NOT NULL REFERENCES transactions (id),
    position             BIGINT NOT NULL,
    sku                  TEXT   NOT NULL,
    quantity             BIGINT NOT NULL,
    reported_sale_value  BIGINT NOT NULL,
    sale_value           BIGINT NOT NULL,
    commission           BIGINT NOT NULL,
    name                 TEXT   NOT NULL,
    brand                TEXT   NOT NULL,
    category             TEXT   NOT NULL,
    cart_item_reference  TEXT,
    cart_item_reference2 TEXT,
    cart_item_reference3 TEXT,
    cart_item_reference4 TEXT,
    PRIMARY KEY (transaction_id, position)
);

CREATE TABLE banners (
    id            BIGINT NOT NULL PRIMARY KEY,
    merchant_id   BIGINT NOT NULL REFERENCES merchants (id),
    date_created  BIGINT NOT NULL,
    date_modified BIGINT NOT NULL,
    group_name    TEXT   NOT NULL,
    name          TEXT   NOT NULL,
    target_url    TEXT   NOT NULL,
    width         BIGINT NOT NULL,
    height        BIGINT NOT NULL,
    image_url     TEXT   NOT NULL,
    alt_text      TEXT   NOT NULL
);

CREATE INDEX banners_merchant ON banners (merchant_id, id);

CREATE TABLE invoices (
    id            BIGINT NOT NULL PRIMARY KEY,
    affiliate_id  BIGINT NOT NULL REFERENCES affiliates (id),
    date_created  BIGINT NOT NULL,
    date_paid     BIGINT NOT NULL,
    number        TEXT   NOT NULL,
    description   TEXT   NOT NULL,
    sub_total     BIGINT NOT NULL,
    gst           BIGINT,
    total         BIGINT NOT NULL
);

CREATE INDEX invoices_affiliate ON invoices (affiliate_id, id);
