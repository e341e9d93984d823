package afftrack

import "time"

// Promotion is a merchant's offer that affiliates promote with a link of
// their own (v1-surface.md section 2.3): a Coupon without a code. One
// assigned to an affiliate (AffiliateID set) is that affiliate's only.
type Promotion struct {
	ID          int64
	MerchantID  int64
	Description string
	// TargetURL is where the promotion's link lands; "" in an import
	// record takes the program's TargetUrl.
	TargetURL          string
	TermsAndConditions string
	StartDate          Null[time.Time]
	EndDate            Null[time.Time]
	AffiliateID        Null[int64] // null: every Joined affiliate's

	// DateCreated and DateModified are never null once stored; in an
	// import record null takes the import's time (DateCreated: a stored
	// promotion's own).
	DateCreated, DateModified Null[time.Time]
}
