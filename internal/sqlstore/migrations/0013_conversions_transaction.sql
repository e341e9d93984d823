-- 0013_conversions_transaction: an import refuses to replace a transaction
-- the service created from a conversion (its merchant was told it was
-- stored, and a retry must find it), so it asks, for each batch of ids,
-- whether a conversion points to one of them.
CREATE INDEX conversions_transaction ON conversions (transaction_id);
