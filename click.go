package afftrack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"
)

// Click is one visit through an affiliate's tracking link. A credited
// click can later be credited with a conversion of its merchant; an
// uncredited one (the affiliate not eligible, or a crawler) is kept only
// to be counted.
type Click struct {
	ID           string    // 32 lowercase hex digits (NewClickID)
	Time         time.Time // wall clock of the network's zone
	MerchantID   int64
	AffiliateID  int64
	CreativeType CreativeType // Banner or Text Link
	CreativeID   Null[int64]  // the banner's id; null for a text link
	Referer      string       // at most MaxRefererLength characters
	IPHash       string       // KeyedIPHash of the customer's address
	CountryCode  string       // ISO 3166 alpha-3, or "" when unknown
	CountryName  string
	Bot          bool // a known crawler's User-Agent
	Credited     bool
	UniqueIDs    [4]string // the affiliate's UniqueId .. UniqueId4
	// TrafficType is the membership's when the click was recorded, else
	// Website: what reports count the click under.
	TrafficType TrafficType
}

// Limits on what a click keeps of its request, in characters.
const (
	MaxRefererLength  = 2048
	MaxUniqueIDLength = 255
)

// NewClickID returns a new click id: 32 lowercase hex digits of 128
// random bits, as tracking.md asks. Nothing in an id tells when or where
// its click happened, and no id can be guessed to steal another
// affiliate's credit; the price is that the clicks' id index takes each
// new id at a random place (docs/performance.md, "An eleventh sitting").
func NewClickID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
	return hex.EncodeToString(b[:])
}

// IsClickID reports whether s has the form of a click id.
func IsClickID(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ClickWriter stores clicks. The redirect never waits for it: clicks are
// handed to it in batches, behind the response.
type ClickWriter interface {
	// WriteClicks stores clicks in one database transaction; a click whose
	// id is already stored is left as it is, so a batch retried after an
	// uncertain failure writes nothing twice.
	WriteClicks(ctx context.Context, clicks []Click) error
}

// LinkKind is what a tracking link points at.
type LinkKind uint8

// LinkKind values: the path letters of the tracking links.
const (
	LinkBanner   LinkKind = iota + 1 // {affiliateId}/b/{bannerId}
	LinkTextLink                     // {affiliateId}/t/{merchantId}
)

// LinkKey names one tracking link: an affiliate and the banner or
// merchant it leads to.
type LinkKey struct {
	AffiliateID int64
	Kind        LinkKind
	TargetID    int64 // the banner's id for LinkBanner, the merchant's for LinkTextLink
}

// Link is what a redirect needs to know about one tracking link: where it
// leads and whether a click on it is credited.
type Link struct {
	MerchantID int64
	Banner     Null[int64] // the banner's id when the link is a banner's
	TargetURL  string      // the banner's TargetUrl, else the program's
	Program    Program
	// Eligible is true when a click can be credited: the affiliate Active
	// and Joined to the merchant.
	Eligible bool
	// TrafficType is the membership's, whatever its status; 0 when the
	// affiliate has no membership with the merchant (a click then counts
	// as Website).
	TrafficType TrafficType
}

// TrackingService answers what the tracking routes need from the store.
type TrackingService interface {
	// FindLink returns the link k names, or ENOTFOUND when the affiliate,
	// the banner or the merchant does not exist, the merchant is not
	// Active, or it has no TargetUrl to lead to.
	FindLink(ctx context.Context, k LinkKey) (*Link, error)

	// IPHashKey returns the network's secret key for hashing customers'
	// addresses, generating it on first use, so every replica hashes
	// alike.
	IPHashKey(ctx context.Context) ([]byte, error)
}
