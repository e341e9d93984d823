-- 0005_items_cache: each transaction carries its items encoded
-- (items_cache.go), written with its columns, so reading a whole
-- transaction is one row. transaction_items stays the truth; the Go step
-- fills the cache from it. Empty means no items.

ALTER TABLE transactions ADD COLUMN items_cache BYTEA NOT NULL DEFAULT ''::bytea;
