-- 0002_transaction_details: a transaction becomes one row of search
-- columns and its details (items included) in one binary value; see
-- transaction_details.go for the form and why. The affiliates' names it
-- shows come from a cache, which table_versions keeps exact. The rows of
-- 0001's transactions and transaction_items are converted by the Go step
-- of this migration (migrate_0002.go), which runs after this file in the
-- same transaction and then drops the old tables.
--
-- This migration has a file per engine: 0002_transaction_details.sqlite.sql
-- makes the same tables with SQLite's own forms of two keys. Keep the two
-- alike in everything else.
--
-- BYTEA is the one type this adds to 0001's list: PostgreSQL, CockroachDB
-- and YugabyteDB know it.

DROP INDEX transactions_merchant_created;
DROP INDEX transactions_merchant_modified;
ALTER TABLE transactions RENAME TO transactions_0001;

CREATE TABLE transactions (
    id            BIGINT NOT NULL PRIMARY KEY,
    merchant_id   BIGINT NOT NULL REFERENCES merchants (id),
    affiliate_id  BIGINT NOT NULL REFERENCES affiliates (id),
    date_created  BIGINT NOT NULL,
    date_modified BIGINT NOT NULL,
    details       BYTEA  NOT NULL
);

-- The list query is a range scan of one merchant's dates, already in the
-- order it returns.
CREATE INDEX transactions_merchant_created ON transactions (merchant_id, date_created, id);
CREATE INDEX transactions_merchant_modified ON transactions (merchant_id, date_modified, id);

-- table_versions counts the writes to tables whose rows the service keeps
-- in memory: every transaction shows its affiliate's names, read from a
-- cache of them rather than joined row by row. A write to affiliates adds
-- one to its version in the writing transaction, and a read of
-- transactions reads the version with them, so it never uses names older
-- than its own snapshot (affiliate_names.go).
CREATE TABLE table_versions (
    name    TEXT   NOT NULL PRIMARY KEY,
    version BIGINT NOT NULL
);

INSERT INTO table_versions (name, version) VALUES ('affiliates', 1);
