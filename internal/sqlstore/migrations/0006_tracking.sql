-- 0006_tracking: what the tracking engine needs. A merchant's program (its
-- tracking terms, deep-link hosts and commission rules), coupons, currency
-- rates, clicks, the conversions already recorded (for idempotency by
-- OrderId), a membership's traffic, and a transaction's click and the
-- affiliate's UniqueIds. Types and rules are 0001's (see its header);
-- percents are BIGINT ten-thousandths of a percent, rates BIGINT 10^-8.
-- The new transaction columns are nullable without a default, so adding
-- them rewrites no row on either engine.

ALTER TABLE memberships ADD COLUMN traffic_type SMALLINT NOT NULL DEFAULT 1;
ALTER TABLE memberships ADD COLUMN traffic_source TEXT NOT NULL DEFAULT '';
ALTER TABLE memberships ADD COLUMN traffic_source_approved BOOLEAN NOT NULL DEFAULT TRUE;

ALTER TABLE transactions ADD COLUMN click_id TEXT;
ALTER TABLE transactions ADD COLUMN unique_id TEXT;
ALTER TABLE transactions ADD COLUMN unique_id2 TEXT;
ALTER TABLE transactions ADD COLUMN unique_id3 TEXT;
ALTER TABLE transactions ADD COLUMN unique_id4 TEXT;

-- commission_percent and commission_flat: at most one is set; neither
-- leaves the program unable to credit a conversion.
CREATE TABLE programs (
    merchant_id          BIGINT  NOT NULL PRIMARY KEY REFERENCES merchants (id),
    target_url           TEXT    NOT NULL,
    cookie_days          BIGINT  NOT NULL,
    validation_days      BIGINT  NOT NULL,
    prepaid              BOOLEAN NOT NULL,
    click_append         TEXT    NOT NULL,
    commission_percent   BIGINT,
    commission_flat      BIGINT,
    override_fee_percent BIGINT  NOT NULL
);

CREATE TABLE program_domains (
    merchant_id BIGINT NOT NULL REFERENCES programs (merchant_id),
    host        TEXT   NOT NULL,
    PRIMARY KEY (merchant_id, host)
);

-- position counts from 1 in the order of the program's Rules, which
-- breaks ties between equally specific rules.
CREATE TABLE program_rules (
    merchant_id   BIGINT   NOT NULL REFERENCES programs (merchant_id),
    position      BIGINT   NOT NULL,
    percent       BIGINT,
    flat          BIGINT,
    affiliate_id  BIGINT,
    category      TEXT,
    customer_type SMALLINT,
    PRIMARY KEY (merchant_id, position)
);

-- code_folded is the code in lower case (Go's folding, the same on both
-- engines): a customer types a code in any case.
CREATE TABLE coupons (
    id           BIGINT NOT NULL PRIMARY KEY,
    merchant_id  BIGINT NOT NULL REFERENCES merchants (id),
    code         TEXT   NOT NULL,
    code_folded  TEXT   NOT NULL,
    description  TEXT   NOT NULL,
    affiliate_id BIGINT REFERENCES affiliates (id),
    start_date   BIGINT,
    end_date     BIGINT
);

CREATE INDEX coupons_merchant_code ON coupons (merchant_id, code_folded);

-- day is the midnight (wall clock) from which the rate applies.
CREATE TABLE currency_rates (
    code TEXT   NOT NULL,
    day  BIGINT NOT NULL,
    rate BIGINT NOT NULL,
    PRIMARY KEY (code, day)
);

-- A click is a log record written in batches behind the redirect; it has
-- no foreign keys, so a batch never fails on an account changed meanwhile.
CREATE TABLE clicks (
    id            TEXT     NOT NULL PRIMARY KEY,
    created       BIGINT   NOT NULL,
    merchant_id   BIGINT   NOT NULL,
    affiliate_id  BIGINT   NOT NULL,
    creative_type SMALLINT NOT NULL,
    creative_id   BIGINT,
    referer       TEXT     NOT NULL,
    ip_hash       TEXT     NOT NULL,
    country_code  TEXT     NOT NULL,
    country_name  TEXT     NOT NULL,
    bot           BOOLEAN  NOT NULL,
    credited      BOOLEAN  NOT NULL,
    unique_id     TEXT     NOT NULL,
    unique_id2    TEXT     NOT NULL,
    unique_id3    TEXT     NOT NULL,
    unique_id4    TEXT     NOT NULL
);

CREATE INDEX clicks_merchant_created ON clicks (merchant_id, created);
CREATE INDEX clicks_affiliate_created ON clicks (affiliate_id, created);

-- One row per conversion recorded, so the same OrderId reported again is
-- answered from here: fingerprint tells a retry from a conflict.
CREATE TABLE conversions (
    merchant_id    BIGINT NOT NULL,
    order_id       TEXT   NOT NULL,
    transaction_id BIGINT NOT NULL REFERENCES transactions (id),
    fingerprint    TEXT   NOT NULL,
    PRIMARY KEY (merchant_id, order_id)
);

-- An affiliate's NotificationUrl template ('' for none).
ALTER TABLE affiliates ADD COLUMN notification_url TEXT NOT NULL DEFAULT '';
