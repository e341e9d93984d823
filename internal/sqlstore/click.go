package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/afftrack/afftrack"
)

var (
	_ afftrack.ClickWriter     = (*ClickService)(nil)
	_ afftrack.TrackingService = (*ClickService)(nil)
)

// ClickService implements afftrack.ClickWriter and
// afftrack.TrackingService.
type ClickService struct {
	db *DB
}

// NewClickService returns a ClickService on db.
func NewClickService(db *DB) *ClickService { return &ClickService{db: db} }

const clickColumnList = `id, created, merchant_id, affiliate_id, creative_type, creative_id, referer, ip_hash,
	country_code, country_name, bot, credited, unique_id, unique_id2, unique_id3, unique_id4, traffic_type`

// clickColumns is the number of columns of clickColumnList.
const clickColumns = 17

// clickArgs appends c's values in the order of clickColumnList. A click
// without a TrafficType counts as Website.
func clickArgs(args []any, c *afftrack.Click) []any {
	tt := c.TrafficType
	if tt == 0 {
		tt = afftrack.TrafficTypeWebsite
	}
	return append(args, c.ID, toMillis(c.Time), c.MerchantID, c.AffiliateID, int64(c.CreativeType),
		nullInt(c.CreativeID), c.Referer, c.IPHash, c.CountryCode, c.CountryName, c.Bot, c.Credited,
		c.UniqueIDs[0], c.UniqueIDs[1], c.UniqueIDs[2], c.UniqueIDs[3], int64(tt))
}

// clicksPerStatement keeps a multi-row INSERT under SQLite's and
// PostgreSQL's bound on parameters (32,766 and 65,535).
const clicksPerStatement = 500

// WriteClicks inserts clicks in one transaction, many per statement; a
// click id already stored is skipped, so a batch retried after an
// uncertain failure writes nothing twice.
func (s *ClickService) WriteClicks(ctx context.Context, clicks []afftrack.Click) error {
	if len(clicks) == 0 {
		return nil
	}
	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("write clicks: %w", err)
	}
	defer release()
	defer rollback(tx)
	args := make([]any, 0, min(len(clicks), clicksPerStatement)*clickColumns)
	for start := 0; start < len(clicks); start += clicksPerStatement {
		batch := clicks[start:min(len(clicks), start+clicksPerStatement)]
		args = args[:0]
		for i := range batch {
			args = clickArgs(args, &batch[i])
		}
		head, tail := s.db.dialect.insertNew("clicks")
		q := head + " (" + clickColumnList + ") VALUES " + s.db.dialect.placeholders(len(batch), clickColumns) + tail
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("write clicks: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write clicks: commit: %w", err)
	}
	return nil
}

// findClick returns the click with the id and the name of its creative
// (which a conversion it credits records; see creativeNameColumn), or nil.
func findClick(ctx context.Context, q queryer, id string) (*afftrack.Click, afftrack.Null[string], error) {
	c := &afftrack.Click{}
	var created int64
	var creativeType int64
	var creativeID sql.Null[int64]
	var trafficType int64
	var banner sql.Null[string]
	err := q.QueryRowContext(ctx, `SELECT c.id, c.created, c.merchant_id, c.affiliate_id, c.creative_type,
		c.creative_id, c.referer, c.ip_hash, c.country_code, c.country_name, c.bot, c.credited,
		c.unique_id, c.unique_id2, c.unique_id3, c.unique_id4, c.traffic_type, `+creativeNameColumn+`
	FROM clicks c
	`+creativeNameJoins+`
	WHERE c.id = $1`, id).Scan(
		&c.ID, &created, &c.MerchantID, &c.AffiliateID, &creativeType, &creativeID, &c.Referer, &c.IPHash,
		&c.CountryCode, &c.CountryName, &c.Bot, &c.Credited,
		&c.UniqueIDs[0], &c.UniqueIDs[1], &c.UniqueIDs[2], &c.UniqueIDs[3], &trafficType, &banner)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, afftrack.Null[string]{}, nil
	} else if err != nil {
		return nil, afftrack.Null[string]{}, fmt.Errorf("find click: %w", err)
	}
	c.Time = fromMillis(created)
	c.CreativeType = afftrack.CreativeType(creativeType)
	c.CreativeID = fromNull(creativeID)
	c.TrafficType = afftrack.TrafficType(trafficType)
	return c, fromNull(banner), nil
}

// FindLink returns what a redirect needs to know about link k.
func (s *ClickService) FindLink(ctx context.Context, k afftrack.LinkKey) (*afftrack.Link, error) {
	var q string
	switch k.Kind {
	case afftrack.LinkBanner:
		q = `SELECT b.merchant_id, b.target_url, m.status, a.status, ms.status, ms.traffic_type
		FROM banners b
		JOIN merchants m ON m.id = b.merchant_id
		JOIN affiliates a ON a.id = $1
		LEFT JOIN memberships ms ON ms.affiliate_id = a.id AND ms.merchant_id = b.merchant_id
		WHERE b.id = $2`
	case afftrack.LinkTextLink:
		q = `SELECT m.id, '', m.status, a.status, ms.status, ms.traffic_type
		FROM merchants m
		JOIN affiliates a ON a.id = $1
		LEFT JOIN memberships ms ON ms.affiliate_id = a.id AND ms.merchant_id = m.id
		WHERE m.id = $2`
	case afftrack.LinkCoupon, afftrack.LinkPromotion:
		return s.findOfferLink(ctx, k)
	default:
		return nil, afftrack.Errorf(afftrack.ENOTFOUND, "no such link")
	}
	l := &afftrack.Link{}
	var bannerTarget string
	var merchantStatus, affiliateStatus int64
	var membership, trafficType sql.Null[int64]
	err := s.db.queryRow(ctx, q, k.AffiliateID, k.TargetID).Scan(&l.MerchantID, &bannerTarget, &merchantStatus,
		&affiliateStatus, &membership, &trafficType)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, afftrack.Errorf(afftrack.ENOTFOUND, "no such link")
	} else if err != nil {
		return nil, fmt.Errorf("find link: %w", err)
	}
	if afftrack.AccountStatus(merchantStatus) != afftrack.AccountActive {
		return nil, afftrack.Errorf(afftrack.ENOTFOUND, "merchant %d is not active", l.MerchantID)
	}
	p, err := loadProgram(ctx, s.db.sql, l.MerchantID)
	if err != nil {
		return nil, err
	}
	if p == nil || p.TargetURL == "" {
		return nil, afftrack.Errorf(afftrack.ENOTFOUND, "merchant %d has no landing page", l.MerchantID)
	}
	l.Program = *p
	l.TargetURL = p.TargetURL
	if k.Kind == afftrack.LinkBanner {
		l.Banner = afftrack.Some(k.TargetID)
		if bannerTarget != "" {
			l.TargetURL = bannerTarget
		}
	}
	l.Eligible = afftrack.AccountStatus(affiliateStatus) == afftrack.AccountActive &&
		membership.Valid && afftrack.MembershipStatus(membership.V) == afftrack.MembershipJoined
	l.TrafficType = afftrack.TrafficType(trafficType.V)
	return l, nil
}

// settingIPHashKey is the settings row of the key customers' addresses
// are hashed with.
const settingIPHashKey = "ip_hash_key"

// IPHashKey returns the network's key for hashing customers' addresses,
// generating and storing it on first use. Two replicas racing to create
// it both read back the one that was stored first.
func (s *ClickService) IPHashKey(ctx context.Context) ([]byte, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, fmt.Errorf("generate ip hash key: %w", err)
	}
	if _, err := s.db.sql.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO NOTHING`, settingIPHashKey, hex.EncodeToString(b[:])); err != nil {
		return nil, fmt.Errorf("record ip hash key: %w", err)
	}
	var stored string
	if err := s.db.sql.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = $1`,
		settingIPHashKey).Scan(&stored); err != nil {
		return nil, fmt.Errorf("read ip hash key: %w", err)
	}
	key, err := hex.DecodeString(stored)
	if err != nil || len(key) < 16 {
		return nil, errors.New("read ip hash key: the stored key is not 16 or more hex-encoded bytes")
	}
	return key, nil
}
