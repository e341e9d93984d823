-- 0003_relational_transactions: a transaction is a row of typed columns
-- again, and its items rows of transaction_items, so every filter, report
-- and status change runs in SQL. The rows of 0002's transactions (columns
-- searched plus a binary details value) are converted by the Go step of
-- this migration (migrate_0003.go), which runs after this file in the same
-- transaction and then drops transactions_0002 and table_versions, which
-- only the cache of affiliates' names read.
--
-- The types and rules are 0001's (see its header). The affiliates' names
-- are not stored with a transaction: they are joined from affiliates, so
-- a renamed affiliate shows on every transaction.
--
-- This migration has a file per engine: this one gives two keys SQLite's
-- own forms, which 0003_relational_transactions.postgres.sql cannot have.
-- Keep the two alike in everything else.
--   * transactions.id is INTEGER PRIMARY KEY, which SQLite makes the
--     table's rowid (64 bits, as BIGINT): a lookup by id is one B-tree
--     search instead of two.
--   * transaction_items is WITHOUT ROWID, so a transaction's items lie
--     together in its primary key's order and are read in one search.

DROP INDEX transactions_merchant_created;
DROP INDEX transactions_merchant_modified;
ALTER TABLE transactions RENAME TO transactions_0002;

CREATE TABLE transactions (
    id                      INTEGER  NOT NULL PRIMARY KEY,
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

-- A list is a range scan of one account's dates, already in the order it
-- returns: the merchant's list now, the affiliate's own next.
CREATE INDEX transactions_merchant_created ON transactions (merchant_id, date_created, id);
CREATE INDEX transactions_merchant_modified ON transactions (merchant_id, date_modified, id);
CREATE INDEX transactions_affiliate_created ON transactions (affiliate_id, date_created, id);
CREATE INDEX transactions_affiliate_modified ON transactions (affiliate_id, date_modified, id);

-- position counts from 1 in the cart's order.
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
) WITHOUT ROWID;
