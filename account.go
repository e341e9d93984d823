package afftrack

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"
)

// AccountKind is the type of a user account: merchant or affiliate. Each
// kind has its own id space.
type AccountKind uint8

// AccountKind values.
const (
	KindMerchant AccountKind = iota + 1
	KindAffiliate
)

// String returns "Merchant" or "Affiliate", as the interface's paths spell them.
func (k AccountKind) String() string {
	switch k {
	case KindMerchant:
		return "Merchant"
	case KindAffiliate:
		return "Affiliate"
	}
	return ""
}

// ParseAccountKind returns the AccountKind named s, ignoring case.
func ParseAccountKind(s string) (AccountKind, bool) {
	return parseEnum[AccountKind]([]string{"", "Merchant", "Affiliate"}, s)
}

// AccountRef names one account: its kind and its id within that kind.
type AccountRef struct {
	Kind AccountKind
	ID   int64
}

// String returns a stable text form such as "merchant:42", used as a key for
// per-account state such as rate limits.
func (r AccountRef) String() string {
	if r.Kind == KindAffiliate {
		return "affiliate:" + strconv.FormatInt(r.ID, 10)
	}
	return "merchant:" + strconv.FormatInt(r.ID, 10)
}

// RateLimit holds an account's own limits. A null dimension takes the
// server's default; a value of 0 means no limit on that dimension.
type RateLimit struct {
	PerMinute  Null[int64]
	PerDay     Null[int64]
	Concurrent Null[int64]
}

// Limits are the resolved limits applied to an account's calls. 0 means no
// limit on that dimension.
type Limits struct {
	PerMinute  int64 // accepted calls in any rolling 60 seconds
	PerDay     int64 // accepted calls in any rolling 24 hours
	Concurrent int64 // requests in progress at once
}

// Resolve fills the dimensions l leaves null from def.
func (l RateLimit) Resolve(def Limits) Limits {
	if l.PerMinute.Valid {
		def.PerMinute = l.PerMinute.Value
	}
	if l.PerDay.Valid {
		def.PerDay = l.PerDay.Value
	}
	if l.Concurrent.Valid {
		def.Concurrent = l.Concurrent.Value
	}
	return def
}

// Merchant is a merchant account: a business that sells and pays
// affiliates commission.
type Merchant struct {
	ID        int64
	Name      string
	AvatarURL string
	Status    AccountStatus
	RateLimit RateLimit
}

// Affiliate is an affiliate account: a publisher that sends customers to
// merchants.
type Affiliate struct {
	ID            int64
	ContactName   string
	BusinessName  string
	Status        AccountStatus
	GSTRegistered bool
	RateLimit     RateLimit
	// NotificationURL is a URL template the network calls when one of
	// the affiliate's transactions is created or changes status; "" for
	// none. See ValidNotificationURL.
	NotificationURL string
}

// Account is what a key authenticates as: the account's identity, its
// state and its own rate limits.
type Account struct {
	Ref       AccountRef
	Status    AccountStatus
	RateLimit RateLimit
	KeyID     string // the public id of the key used, for the history of what it changes
}

// Key is an API key's record. The secret itself is never stored; only its
// hash (see HashKey).
type Key struct {
	ID      string // public handle, shown in listings and used to revoke
	Account AccountRef
	Label   string
	Created time.Time // wall clock of the network's zone
	Revoked Null[time.Time]
}

// HashKey returns the hex SHA-256 of a key's secret. Keys the service
// generates carry 192 random bits, so a fast unsalted hash is enough to
// make a leaked table useless, and it lets a lookup be an index probe.
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// GenerateKey returns a new key secret and a public id for it, both from
// crypto/rand. The secret is URL-safe so it can stand in a query string.
func GenerateKey() (secret, id string, err error) {
	var b [24 + 6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", fmt.Errorf("generate key: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:24]), "k_" + hex.EncodeToString(b[24:]), nil
}

// AccountService reads and administers accounts and their keys.
type AccountService interface {
	// Authenticate returns the account owning the unrevoked key whose hash
	// is given, or an EUNAUTHORIZED error. It does not check the account's
	// status or kind: the caller decides what the function needs.
	Authenticate(ctx context.Context, keyHash string) (*Account, error)

	// FindMerchant and FindAffiliate return one account, or ENOTFOUND.
	FindMerchant(ctx context.Context, id int64) (*Merchant, error)
	FindAffiliate(ctx context.Context, id int64) (*Affiliate, error)

	// CreateMerchant and CreateAffiliate add an account. An ID of 0 takes
	// the next free id, which is written back.
	CreateMerchant(ctx context.Context, m *Merchant) error
	CreateAffiliate(ctx context.Context, a *Affiliate) error

	// SetAccountStatus suspends, closes or reactivates an account.
	SetAccountStatus(ctx context.Context, ref AccountRef, status AccountStatus) error

	// CreateKey records a key whose secret hashes to keyHash.
	CreateKey(ctx context.Context, k *Key, keyHash string) error

	// ListKeys returns an account's keys, revoked ones included, oldest first.
	ListKeys(ctx context.Context, ref AccountRef) ([]*Key, error)

	// RevokeKey revokes a key by its id at the given time. Revoking a
	// revoked key is not an error.
	RevokeKey(ctx context.Context, id string, at time.Time) error
}
