-- 0015_transactions_order_id: a validation row may name its transaction
-- by OrderId (tracking.md section 6), which is found among the merchant's
-- transactions. Without this index each such row read every transaction
-- of the merchant: 50 ms a row on one of 43,000, so a call of 1,000 rows
-- took most of a minute, on SQLite holding the one write lock throughout.
CREATE INDEX transactions_merchant_order ON transactions (merchant_id, order_id);
