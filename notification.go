package afftrack

import (
	"context"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// MaxNotificationURLLength bounds an affiliate's NotificationUrl template.
const MaxNotificationURLLength = 2048

// NotificationUserAgent is the User-Agent of every notification, so that
// receivers can tell them from other traffic, and so that the service's
// own pixel can refuse one: a NotificationUrl pointed at the pixel with an
// affiliate's coupon would otherwise make each notification a sale whose
// notification makes the next.
const NotificationUserAgent = "afftrack-notify/1"

// notificationShortcode matches a shortcode of a NotificationUrl template,
// such as [TransactionId]: a bracketed name.
var notificationShortcode = regexp.MustCompile(`\[[A-Za-z0-9]+\]`)

// ValidNotificationURL checks an affiliate's NotificationUrl template: once
// its shortcodes are set aside it must be an absolute http or https URL
// without user information, at most MaxNotificationURLLength bytes. Where
// it may be sent (no private addresses) is decided when it is sent.
func ValidNotificationURL(template string) error {
	if len(template) > MaxNotificationURLLength {
		return Errorf(EINVALID, "is %d bytes long; at most %d", len(template), MaxNotificationURLLength)
	}
	// Only the shortcodes are set aside: other bracketed text stays as
	// written when the URL is made, so it must be valid where it stands
	// ("http://[Foo]/" is no host).
	var dummy Transaction
	var ids [4]string
	plain := notificationShortcode.ReplaceAllStringFunc(template, func(code string) string {
		if _, ok := notificationShortcodeValue(code[1:len(code)-1], &dummy, &ids); ok {
			return "x"
		}
		return code
	})
	u, err := url.Parse(plain)
	if err == nil && strings.HasPrefix(u.Host, "[") {
		_, err = netip.ParseAddr(u.Hostname())
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return Errorf(EINVALID, "%q is not an absolute http or https URL (with [Shortcodes]) without user information", template)
	}
	return nil
}

// NotificationReceiver returns the receiver of a notification's URL: its
// host and port as written, in lower case; "" for a URL that names none.
// A receiver that hangs is paused as a whole, whichever affiliates'
// notifications go to it.
func NotificationReceiver(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Host)
}

// Notification is one call to an affiliate's NotificationUrl, kept in an
// outbox written in the same database transaction as the change it tells
// of, and sent at least once.
type Notification struct {
	ID            int64
	AffiliateID   int64
	TransactionID int64
	URL           string    // the template with its shortcodes replaced
	Created       time.Time // wall clock of the network's zone
	Attempts      int       // calls made so far
}

// NotificationClaim says which due notifications a deliverer takes. Its
// bounds per affiliate keep one affiliate's receiver (slow, or hanging
// until each call's timeout) from taking every call a deliverer makes.
type NotificationClaim struct {
	Now   time.Time
	Lease time.Duration
	Max   int // at most this many

	// PerAffiliate bounds the notifications of one affiliate taken, 0
	// for no bound; Skip names affiliates none of whose are taken (those
	// the deliverer is still calling), and SkipReceivers receivers
	// (NotificationReceiver) none of whose are taken (those it paused).
	PerAffiliate  int
	Skip          []int64
	SkipReceivers []string
}

// NotificationOutbox is the store side of notifications: the deliverer
// claims what is due, calls it, and records the outcome.
type NotificationOutbox interface {
	// ClaimNotifications returns the notifications c takes of those due
	// at c.Now (never delivered, not given up, next attempt at or before
	// c.Now), the longest due first, and moves their next attempt to
	// c.Now+c.Lease, so another deliverer (another replica) does not take
	// them meanwhile. A deliverer that dies leaves them to be claimed
	// again when the lease ends: at least once.
	ClaimNotifications(ctx context.Context, c NotificationClaim) ([]Notification, error)

	// NotificationDelivered records a 2xx answer.
	NotificationDelivered(ctx context.Context, id int64, at time.Time) error

	// NotificationFailed records a failed attempt: the next one at next,
	// or none when giveUp (the notification is older than the retry
	// window). why is kept for operators.
	NotificationFailed(ctx context.Context, id int64, next time.Time, why string, giveUp bool) error

	// NotificationDeferred moves a notification's next attempt to next
	// without counting an attempt: it was claimed but not called (its
	// receiver is paused). why is kept for operators.
	NotificationDeferred(ctx context.Context, id int64, next time.Time, why string) error

	// GiveUpNotifications gives up to n pending notifications created
	// before before whose next attempt has come by at (none under a
	// claim), recording at and why, and returns how many: those of
	// a receiver that stays paused are not called, so a failed call cannot
	// give them up.
	GiveUpNotifications(ctx context.Context, before, at time.Time, why string, n int) (int64, error)

	// NotificationCounts returns how many notifications are pending,
	// delivered and given up, for metrics.
	NotificationCounts(ctx context.Context) (pending, delivered, givenUp int64, err error)

	// PruneNotifications removes up to n delivered or given-up
	// notifications that finished before before, and returns how many it
	// removed: the outbox keeps what is still to do and a recent past,
	// not every call ever made (the transactions' history keeps the
	// changes themselves).
	PruneNotifications(ctx context.Context, before time.Time, n int) (int64, error)
}
