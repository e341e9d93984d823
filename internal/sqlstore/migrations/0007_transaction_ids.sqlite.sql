-- 0007_transaction_ids: on PostgreSQL a sequence gives created
-- transactions their ids (0007_transaction_ids.postgres.sql). SQLite
-- needs none, since its writes are serial and MAX(id) of the rowid table
-- is its last row; this file keeps the engines' versions alike.

SELECT 1;
