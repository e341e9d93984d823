-- 0002_transaction_details: a transaction becomes one row of search
-- columns and its details (items included) in one binary value; see
-- transaction_details.go for the form and why. The affiliates' names it
-- shows come from a cache, which table_versions keeps exact. The rows of
-- 0001's transactions and transaction_items are converted by the Go step
-- of this migration (migrate_0002.go), which runs after this file in the
-- same transaction and then drops the old tables.
--
-- This migration has a file per engine: this one gives two keys SQLite's
-- own forms, which 0002_transaction_details.postgres.sql cannot have. Keep
-- the two alike in everything else.
--   * transactions.id is INTEGER PRIMARY KEY, which SQLite makes the
--     table's rowid (64 bits, as BIGINT): a lookup by id is one B-tree
--     search instead of two, and a load writes no separate index of ids.
--     PostgreSQL's INTEGER has 32 bits.
--   * table_versions is WITHOUT ROWID, so reading a version is one search.
--   * details is a BLOB, which PostgreSQL calls BYTEA.

DROP INDEX transactions_merchant_created;
DROP INDEX transactions_merchant_modified;
ALTER TABLE transactions RENAME TO transactions_0001;

CREATE TABLE transactions (
    id            INTEGER NOT NULL PRIMARY KEY,
    merchant_id   BIGINT NOT NULL REFERENCES merchants (id),
    affiliate_id  BIGINT NOT NULL REFERENCES affiliates (id),
    date_created  BIGINT NOT NULL,
    date_modified BIGINT NOT NULL,
    details       BLOB   NOT NULL
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
) WITHOUT ROWID;

INSERT INTO table_versions (name, version) VALUES ('affiliates', 1);
