package afftrack

import (
	"net/url"
	"regexp"
)

// MaxNotificationURLLength bounds an affiliate's NotificationUrl template.
const MaxNotificationURLLength = 2048

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
	plain := notificationShortcode.ReplaceAllString(template, "x")
	u, err := url.Parse(plain)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return Errorf(EINVALID, "%q is not an absolute http or https URL (with [Shortcodes]) without user information", template)
	}
	return nil
}
