-- 0007_transaction_ids: a sequence gives the transactions the network
-- creates (conversions) their ids, so concurrent conversions never pick
-- the same one and wait on each other. Imports bring their own ids and
-- move the sequence past them (postgresDialect.syncTransactionIDs).
-- SQLite needs none: its writes are serial, and MAX(id) is the last row.

CREATE SEQUENCE transaction_ids;
SELECT setval('transaction_ids', COALESCE((SELECT MAX(id) FROM transactions), 0) + 1, false);
