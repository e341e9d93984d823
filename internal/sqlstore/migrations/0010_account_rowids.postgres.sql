-- 0010_account_rowids: on SQLite, merchants and affiliates become rowid
-- tables (0010_account_rowids.sqlite.sql), so a join finds an account in
-- one B-tree search instead of two. PostgreSQL has no table ordered by
-- its key to move to (a table is a heap read through its primary key's
-- index), so nothing changes here; this file keeps the engines' versions
-- alike.

SELECT 1;
