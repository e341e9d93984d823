package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.OfferService = (*OfferService)(nil)

// OfferService implements afftrack.OfferService: the coupons and
// promotions of the V1 functions (v1-surface.md section 2.3).
type OfferService struct {
	db *DB
}

// NewOfferService returns an OfferService on db.
func NewOfferService(db *DB) *OfferService { return &OfferService{db: db} }

// offerTables are the table and code column of each kind; both are
// constants, never input.
var offerTables = map[afftrack.OfferKind]struct{ table, code string }{
	afftrack.OfferCoupon:    {"coupons", "o.code"},
	afftrack.OfferPromotion: {"promotions", "''"},
}

// offerSelect is the head of every offer query: the record, its
// merchant's account and its assigned affiliate's.
func offerSelect(kind afftrack.OfferKind) (string, error) {
	t, ok := offerTables[kind]
	if !ok {
		return "", fmt.Errorf("find offers: no offer kind %d", kind)
	}
	return `SELECT o.id, o.date_created, o.date_modified, o.merchant_id, m.name, m.avatar_url, o.description, ` +
		t.code + `, o.target_url, o.terms_and_conditions, o.start_date, o.end_date, o.affiliate_id,
		a.contact_name, a.business_name
	FROM ` + t.table + ` o
	JOIN merchants m ON m.id = o.merchant_id
	LEFT JOIN affiliates a ON a.id = o.affiliate_id`, nil
}

// affiliateOfferWhere selects what an affiliate sees at now: the offers
// of the Active merchants with a launched program it has Joined, public
// or assigned to it, from their creation through their EndDate's day.
// The arguments are $1 to $5.
const affiliateOfferWhere = `
	JOIN memberships ms ON ms.merchant_id = o.merchant_id AND ms.affiliate_id = $1
	JOIN programs p ON p.merchant_id = o.merchant_id
	WHERE ms.status = $2 AND m.status = $3 AND ` + programLaunched + `
		AND (o.affiliate_id IS NULL OR o.affiliate_id = $1)
		AND o.date_created <= $4 AND (o.end_date IS NULL OR o.end_date >= $5)`

func affiliateOfferArgs(affiliateID int64, now time.Time) []any {
	y, mo, d := now.Date()
	today := time.Date(y, mo, d, 0, 0, 0, 0, now.Location())
	return []any{affiliateID, int64(afftrack.MembershipJoined), int64(afftrack.AccountActive),
		toMillis(now), toMillis(today)}
}

// FindAffiliateOffers returns the offers of the kind the affiliate sees
// at f.Now that match f, ordered by id. The merchant id also goes to the
// database; f.Match decides.
func (s *OfferService) FindAffiliateOffers(ctx context.Context, kind afftrack.OfferKind, f afftrack.AffiliateOfferFilter) ([]*afftrack.Offer, error) {
	head, err := offerSelect(kind)
	if err != nil {
		return nil, err
	}
	q := head + affiliateOfferWhere
	args := affiliateOfferArgs(f.AffiliateID, f.Now)
	if f.MerchantID.Valid {
		args = append(args, f.MerchantID.Value)
		q += " AND o.merchant_id = $" + strconv.Itoa(len(args))
	}
	return s.find(ctx, kind, q+" ORDER BY o.id", args, f.Match)
}

// FindAffiliateOffer returns the offer of the kind with the id if the
// affiliate sees it at now, with the hosts a targetUrl may lead to.
func (s *OfferService) FindAffiliateOffer(ctx context.Context, kind afftrack.OfferKind, affiliateID, id int64, now time.Time) (*afftrack.Offer, error) {
	head, err := offerSelect(kind)
	if err != nil {
		return nil, err
	}
	list, err := s.find(ctx, kind, head+affiliateOfferWhere+" AND o.id = $6",
		append(affiliateOfferArgs(affiliateID, now), id), nil)
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, afftrack.Errorf(afftrack.ENOTFOUND, "no such offer")
	}
	o := list[0]
	p, err := loadProgram(ctx, s.db.sql, o.MerchantID)
	if err != nil {
		return nil, err
	}
	o.AllowedHosts = []string{afftrack.URLHost(o.TargetURL)}
	if p != nil {
		o.AllowedHosts = append(o.AllowedHosts, p.DeepLinkHosts()...)
	}
	return o, nil
}

// FindMerchantOffers returns the merchant's offers of the kind, whatever
// their dates, that match f, ordered by id. The affiliate id also goes to
// the database; f.Match decides.
func (s *OfferService) FindMerchantOffers(ctx context.Context, kind afftrack.OfferKind, f afftrack.MerchantOfferFilter) ([]*afftrack.Offer, error) {
	head, err := offerSelect(kind)
	if err != nil {
		return nil, err
	}
	q := head + " WHERE o.merchant_id = $1"
	args := []any{f.MerchantID}
	if f.AffiliateID.Valid {
		args = append(args, f.AffiliateID.Value)
		q += " AND o.affiliate_id = $2"
	}
	return s.find(ctx, kind, q+" ORDER BY o.id", args, f.Match)
}

// find runs an offer query and keeps the rows match accepts (nil: all).
func (s *OfferService) find(ctx context.Context, kind afftrack.OfferKind, q string, args []any,
	match func(*afftrack.Offer) bool) ([]*afftrack.Offer, error) {
	rows, err := s.db.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("find offers: %w", err)
	}
	defer rows.Close()
	list := []*afftrack.Offer{}
	for rows.Next() {
		o := &afftrack.Offer{Kind: kind}
		var created, modified int64
		var start, end, aff sql.Null[int64]
		var contact, business sql.Null[string]
		if err := rows.Scan(&o.ID, &created, &modified, &o.MerchantID, &o.MerchantName, &o.MerchantAvatarURL,
			&o.Description, &o.Code, &o.TargetURL, &o.TermsAndConditions, &start, &end, &aff,
			&contact, &business); err != nil {
			return nil, fmt.Errorf("find offers: %w", err)
		}
		o.DateCreated, o.DateModified = fromMillis(created), fromMillis(modified)
		o.StartDate, o.EndDate = nullTime(start), nullTime(end)
		o.AffiliateID = fromNull(aff)
		if o.AffiliateID.Valid {
			o.AffiliateContactName = fromNull(contact)
			if business.Valid && business.V != "" {
				o.AffiliateBusinessName = afftrack.Some(business.V)
			}
		}
		if match == nil || match(o) {
			list = append(list, o)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find offers: %w", err)
	}
	return list, nil
}

// findOfferLink is FindLink for a coupon's or a promotion's link: the
// record's merchant, landing on its TargetUrl (else the program's); one
// assigned to an affiliate credits only that affiliate.
func (s *ClickService) findOfferLink(ctx context.Context, k afftrack.LinkKey) (*afftrack.Link, error) {
	table := "coupons"
	if k.Kind == afftrack.LinkPromotion {
		table = "promotions"
	}
	l := &afftrack.Link{}
	var target string
	var merchantStatus, affiliateStatus int64
	var assigned, membership, trafficType sql.Null[int64]
	err := s.db.queryRow(ctx, `SELECT o.merchant_id, o.target_url, o.affiliate_id, m.status, a.status, ms.status,
		ms.traffic_type
	FROM `+table+` o
	JOIN merchants m ON m.id = o.merchant_id
	JOIN affiliates a ON a.id = $1
	LEFT JOIN memberships ms ON ms.affiliate_id = a.id AND ms.merchant_id = o.merchant_id
	WHERE o.id = $2`, k.AffiliateID, k.TargetID).Scan(&l.MerchantID, &target, &assigned, &merchantStatus,
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
	if target != "" {
		l.TargetURL = target
	}
	l.Eligible = afftrack.AccountStatus(affiliateStatus) == afftrack.AccountActive &&
		membership.Valid && afftrack.MembershipStatus(membership.V) == afftrack.MembershipJoined &&
		(!assigned.Valid || assigned.V == k.AffiliateID)
	l.TrafficType = afftrack.TrafficType(trafficType.V)
	return l, nil
}

// creativeNameColumn is the name a conversion records for the creative
// of the click it credits: a banner's Name, a coupon's Code, a
// promotion's Description; null for a text link. It goes with
// creativeNameJoins in findClick.
const creativeNameColumn = `COALESCE(b.name, cp.code, pr.description)`

// creativeNameJoins join the creative of click c by its type.
var creativeNameJoins = strings.Join([]string{
	"LEFT JOIN banners b ON c.creative_type = " + strconv.Itoa(int(afftrack.CreativeTypeBanner)) + " AND b.id = c.creative_id",
	"LEFT JOIN coupons cp ON c.creative_type = " + strconv.Itoa(int(afftrack.CreativeTypeCoupon)) + " AND cp.id = c.creative_id",
	"LEFT JOIN promotions pr ON c.creative_type = " + strconv.Itoa(int(afftrack.CreativeTypePromotion)) + " AND pr.id = c.creative_id",
}, "\n\t")
