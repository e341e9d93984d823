package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

// upsertMembership writes a membership. Its dates left out keep a stored
// membership's: $10 is true when the file decides date_applied (given, or
// NULL for an Invited membership), $11 when it decides date_approved
// (given, or NULL for any but a Joined one); otherwise the stored date
// stands if there is one, and a DateApproved defaults to the DateApplied.
const upsertMembership = `INSERT INTO memberships (affiliate_id, merchant_id, status, traffic_type, traffic_source,
		traffic_source_approved, date_applied, date_approved, date_modified)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
	ON CONFLICT (affiliate_id, merchant_id) DO UPDATE SET status = excluded.status,
		traffic_type = excluded.traffic_type, traffic_source = excluded.traffic_source,
		traffic_source_approved = excluded.traffic_source_approved, date_modified = excluded.date_modified,
		date_applied = CASE WHEN $10 THEN excluded.date_applied
			ELSE COALESCE(memberships.date_applied, excluded.date_applied) END,
		date_approved = CASE WHEN $11 THEN excluded.date_approved
			ELSE COALESCE(memberships.date_approved, CASE WHEN $10 THEN excluded.date_applied
				ELSE COALESCE(memberships.date_applied, excluded.date_applied) END) END`

// trafficSourceColumnList is the column list of a traffic source row, in
// the order of trafficSourceArgs.
const trafficSourceColumnList = `affiliate_id, merchant_id, position, type, status,
	website_date_created, website_date_modified, website_url, website_name, website_description, website_category,
	website_type, website_weekly_visitors, website_years_online, website_channel, website_verified,
	email_list_date_created, email_list_date_modified, email_list_name, email_list_description, email_list_category,
	email_list_size, email_list_frequency, email_list_opt_in,
	social_media_page_date_created, social_media_page_date_modified, social_media_page_category,
	social_media_page_type, social_media_page_name, social_media_page_url, social_media_page_followers`

// trafficSourceColumns is the number of columns of trafficSourceColumnList.
const trafficSourceColumns = 31

// trafficSourceArgs returns the values of s, the source at position (from
// 1) of a membership.
func trafficSourceArgs(ms *afftrack.Membership, position int, s *afftrack.TrafficSource) []any {
	return []any{ms.AffiliateID, ms.MerchantID, int64(position), int64(s.Type), int64(s.Status),
		nullMillis(s.WebsiteDateCreated), nullMillis(s.WebsiteDateModified), nullText(s.WebsiteURL),
		nullText(s.WebsiteName), nullText(s.WebsiteDescription), nullText(s.WebsiteCategory),
		nullText(s.WebsiteType), nullInt(s.WebsiteWeeklyVisitors), nullInt(s.WebsiteYearsOnline),
		nullText(s.WebsiteChannel), nullBool(s.WebsiteVerified),
		nullMillis(s.EmailListDateCreated), nullMillis(s.EmailListDateModified), nullText(s.EmailListName),
		nullText(s.EmailListDescription), nullText(s.EmailListCategory), nullInt(s.EmailListSize),
		nullText(s.EmailListFrequency), nullText(s.EmailListOptIn),
		nullMillis(s.SocialMediaPageDateCreated), nullMillis(s.SocialMediaPageDateModified),
		nullText(s.SocialMediaPageCategory), nullText(s.SocialMediaPageType), nullText(s.SocialMediaPageName),
		nullText(s.SocialMediaPageURL), nullInt(s.SocialMediaPageFollowers)}
}

// nullBool is the argument for a nullable BOOLEAN column.
func nullBool(n afftrack.Null[bool]) any {
	if !n.Valid {
		return nil
	}
	return n.Value
}

// sourcesState is what an import knows of membership_traffic_sources, so
// a membership without sources costs no statement when none are stored:
// a load of a hundred thousand memberships is not slowed by a delete each.
type sourcesState struct {
	checked bool              // whether stored is known
	stored  bool              // the table held rows when the import began
	written map[[2]int64]bool // memberships this import gave sources
}

// importMemberships checks each membership's accounts and writes it with
// its traffic sources, which replace the stored ones whole.
func (im *importer) importMemberships(d *afftrack.Dataset) error {
	for i := range d.Memberships {
		ms := &d.Memberships[i]
		at := record{"Memberships", d.Start.Memberships + i}
		if _, err := im.checkAffiliate(at, "AffiliateId", ms.AffiliateID); err != nil {
			return err
		}
		if err := im.checkMerchant(at, "MerchantId", ms.MerchantID); err != nil {
			return err
		}
		trafficType := ms.TrafficType
		if trafficType == 0 {
			trafficType = afftrack.TrafficTypeWebsite
		}
		applied, approved, fileApplied, fileApproved := im.membershipDates(ms)
		modified := im.now
		if ms.DateModified.Valid {
			modified = ms.DateModified.Value
		}
		if err := im.exec(upsertMembership, ms.AffiliateID, ms.MerchantID, int64(ms.Status), int64(trafficType),
			ms.TrafficSource, ms.TrafficSourceApproved, applied, approved, toMillis(modified),
			fileApplied, fileApproved); err != nil {
			return fmt.Errorf("import %s: %w", at, err)
		}
		if err := im.writeTrafficSources(ms); err != nil {
			return fmt.Errorf("import %s.TrafficSources: %w", at, err)
		}
		k := [2]int64{ms.AffiliateID, ms.MerchantID}
		if _, known := im.traffic[k]; known {
			im.traffic[k] = trafficType
		}
	}
	return nil
}

// membershipDates returns the DateApplied and DateApproved a membership
// is written with, and whether each is the file's to decide rather than
// a stored membership's to keep (see upsertMembership).
func (im *importer) membershipDates(ms *afftrack.Membership) (applied, approved any, fileApplied, fileApproved bool) {
	var appliedAt afftrack.Null[time.Time]
	switch {
	case ms.DateApplied.Valid:
		appliedAt, fileApplied = ms.DateApplied, true
	case ms.Status == afftrack.MembershipInvited:
		fileApplied = true
	default:
		appliedAt = afftrack.Some(im.now)
	}
	var approvedAt afftrack.Null[time.Time]
	switch {
	case ms.DateApproved.Valid:
		approvedAt, fileApproved = ms.DateApproved, true
	case ms.Status != afftrack.MembershipJoined:
		fileApproved = true
	default:
		approvedAt = appliedAt
	}
	return nullMillis(appliedAt), nullMillis(approvedAt), fileApplied, fileApproved
}

// writeTrafficSources replaces the membership's stored traffic sources
// with its own. The delete is skipped when nothing can be stored for it.
func (im *importer) writeTrafficSources(ms *afftrack.Membership) error {
	k := [2]int64{ms.AffiliateID, ms.MerchantID}
	s := &im.sources
	if !s.checked {
		if err := im.tx.QueryRowContext(im.ctx, `SELECT EXISTS (SELECT 1 FROM membership_traffic_sources)`).Scan(&s.stored); err != nil {
			return err
		}
		s.checked, s.written = true, map[[2]int64]bool{}
	}
	if s.stored || s.written[k] {
		if err := im.exec(`DELETE FROM membership_traffic_sources WHERE affiliate_id = $1 AND merchant_id = $2`,
			ms.AffiliateID, ms.MerchantID); err != nil {
			return err
		}
	}
	if len(ms.TrafficSources) == 0 {
		return nil
	}
	s.written[k] = true
	q := `INSERT INTO membership_traffic_sources (` + trafficSourceColumnList + `) VALUES ` +
		im.dialect.placeholders(1, trafficSourceColumns)
	for i := range ms.TrafficSources {
		if err := im.exec(q, trafficSourceArgs(ms, i+1, &ms.TrafficSources[i])...); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	return nil
}

// membershipTrafficType returns the TrafficType of the affiliate's
// membership with the merchant, 0 if it has none.
func (im *importer) membershipTrafficType(affiliateID, merchantID int64) (afftrack.TrafficType, error) {
	k := [2]int64{affiliateID, merchantID}
	if t, known := im.traffic[k]; known {
		return t, nil
	}
	st, err := im.stmt(`SELECT traffic_type FROM memberships WHERE affiliate_id = $1 AND merchant_id = $2`)
	if err != nil {
		return 0, err
	}
	var t int64
	if err := st.QueryRowContext(im.ctx, affiliateID, merchantID).Scan(&t); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, err
	}
	im.traffic[k] = afftrack.TrafficType(t)
	return afftrack.TrafficType(t), nil
}
