-- 0010_account_rowids: on SQLite, merchants and affiliates keyed by
-- INTEGER PRIMARY KEY, the table's own rowid, as transactions are since
-- 0003. A BIGINT PRIMARY KEY is a separate index beside the table, so
-- every join from a transaction to its affiliate (the merchant's lists)
-- or its merchant (the affiliate's) took two B-tree searches instead of
-- one. SQLite cannot change a primary key in place: each table is built
-- anew, filled, and renamed over the old one. The migration runner runs
-- this one with foreign key checks off on its connection and checks every
-- reference before it commits (rebuildMigrations in migrate.go), as
-- SQLite's documented way of altering a table requires.
-- PostgreSQL's primary keys are its tables' own index already
-- (0010_account_rowids.postgres.sql).

CREATE TABLE merchants_0010 (
    id              INTEGER  NOT NULL PRIMARY KEY,
    name            TEXT     NOT NULL,
    avatar_url      TEXT     NOT NULL,
    status          SMALLINT NOT NULL,
    rate_per_minute BIGINT,
    rate_per_day    BIGINT,
    rate_concurrent BIGINT,
    date_created    BIGINT   NOT NULL DEFAULT 0,
    date_modified   BIGINT   NOT NULL DEFAULT 0,
    summary         TEXT     NOT NULL DEFAULT '',
    new_category    TEXT,
    new_category2   TEXT,
    new_category3   TEXT
);
INSERT INTO merchants_0010 (id, name, avatar_url, status, rate_per_minute, rate_per_day, rate_concurrent,
        date_created, date_modified, summary, new_category, new_category2, new_category3)
    SELECT id, name, avatar_url, status, rate_per_minute, rate_per_day, rate_concurrent,
        date_created, date_modified, summary, new_category, new_category2, new_category3
    FROM merchants;
DROP TABLE merchants;
ALTER TABLE merchants_0010 RENAME TO merchants;

CREATE TABLE affiliates_0010 (
    id               INTEGER  NOT NULL PRIMARY KEY,
    contact_name     TEXT     NOT NULL,
    business_name    TEXT     NOT NULL,
    status           SMALLINT NOT NULL,
    gst_registered   BOOLEAN  NOT NULL,
    rate_per_minute  BIGINT,
    rate_per_day     BIGINT,
    rate_concurrent  BIGINT,
    notification_url TEXT     NOT NULL DEFAULT '',
    date_created     BIGINT   NOT NULL DEFAULT 0,
    date_modified    BIGINT   NOT NULL DEFAULT 0
);
INSERT INTO affiliates_0010 (id, contact_name, business_name, status, gst_registered, rate_per_minute,
        rate_per_day, rate_concurrent, notification_url, date_created, date_modified)
    SELECT id, contact_name, business_name, status, gst_registered, rate_per_minute,
        rate_per_day, rate_concurrent, notification_url, date_created, date_modified
    FROM affiliates;
DROP TABLE affiliates;
ALTER TABLE affiliates_0010 RENAME TO affiliates;
