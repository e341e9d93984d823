-- 0014_notifications_receiver: each notification names its receiver, the
-- host and port of its URL (afftrack.NotificationReceiver), so that a
-- claim can leave out the receivers a deliverer has paused (they hang)
-- rather than claim their backlog, and the other receivers' notifications
-- go on. Notifications written before keep an empty receiver: a claim
-- takes them, and the deliverer puts off those of a paused receiver.
ALTER TABLE notifications ADD COLUMN receiver TEXT NOT NULL DEFAULT '';

-- The sweep that gives up pending notifications past the retry window,
-- every minute, finds them by their age rather than walking every
-- pending one.
CREATE INDEX notifications_pending_created ON notifications (state, created);
