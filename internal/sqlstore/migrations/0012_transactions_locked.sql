-- 0012_transactions_locked: the scheduled work approves the Locked
-- transactions of prepaid programs, however they came to be Locked (an
-- import, a program made prepaid after its sales were locked), and
-- `transactions release` takes a merchant's Locked ones. This index holds
-- only Locked rows (status2 2), so it is as small as what waits for the
-- merchant's money, and a pass over it finds nothing to do at the cost of
-- a few pages. The queries name the literal 2, as a partial index needs.
CREATE INDEX transactions_locked ON transactions (merchant_id, id) WHERE status2 = 2;
