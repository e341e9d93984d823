-- 0011_notifications_finished: the outbox is pruned of notifications
-- delivered or given up long ago (PruneNotifications); without an index
-- on when they finished, each batch of the pruning scanned every finished
-- notification, holding SQLite's write lock while it did. A pending
-- notification's finished is NULL, so it is in no range of this index.
CREATE INDEX notifications_finished ON notifications (finished);
