-- 0008_lifecycle: what moves a transaction after its creation. The
-- history of every change of a transaction's status or amounts, the
-- outbox of the notifications those changes send, and the index the
-- scheduled locking scans. A file per engine only for the id columns,
-- which the database assigns (a rowid here); keep the two
-- alike otherwise. Types and rules are 0001's.

-- from_status is NULL for the creation. actor is an account and its key
-- ("merchant:3 key k_1a2b"), "operator" or "lifecycle".
CREATE TABLE transaction_events (
    id INTEGER NOT NULL PRIMARY KEY,
    transaction_id  BIGINT   NOT NULL REFERENCES transactions (id),
    at              BIGINT   NOT NULL,
    actor           TEXT     NOT NULL,
    from_status     SMALLINT,
    to_status       SMALLINT NOT NULL,
    from_sale_value BIGINT   NOT NULL,
    to_sale_value   BIGINT   NOT NULL,
    from_commission BIGINT   NOT NULL,
    to_commission   BIGINT   NOT NULL,
    reason          TEXT     NOT NULL
);

CREATE INDEX transaction_events_transaction ON transaction_events (transaction_id, id);

-- state: 0 pending, 1 delivered, 2 given up. A pending notification is
-- due at next_attempt; a deliverer that claims it moves next_attempt
-- past its lease.
CREATE TABLE notifications (
    id INTEGER NOT NULL PRIMARY KEY,
    affiliate_id   BIGINT   NOT NULL,
    transaction_id BIGINT   NOT NULL,
    url            TEXT     NOT NULL,
    created        BIGINT   NOT NULL,
    state          SMALLINT NOT NULL,
    next_attempt   BIGINT   NOT NULL,
    attempts       BIGINT   NOT NULL,
    last_error     TEXT     NOT NULL,
    finished       BIGINT
);

CREATE INDEX notifications_due ON notifications (state, next_attempt);

-- The scheduled work finds the Pending transactions whose validation date
-- has come, and a payout the Approved ones, without a scan.
CREATE INDEX transactions_status_validation ON transactions (status2, validation_date);
