package afftrack

import "time"

// Coupon is a merchant's coupon code. An exclusive one (AffiliateID set)
// credits that affiliate with a sale that uses it, without a click.
type Coupon struct {
	ID          int64
	MerchantID  int64
	Code        string
	Description string
	AffiliateID Null[int64] // null: a public coupon, which credits no one by itself
	StartDate   Null[time.Time]
	EndDate     Null[time.Time]

	// DateCreated and DateModified are never null once stored; in an
	// import record null takes the import's time (DateCreated: a stored
	// coupon's own).
	DateCreated, DateModified Null[time.Time]
	// TargetURL is where the coupon's link lands; "" in an import record
	// takes the program's TargetUrl.
	TargetURL          string
	TermsAndConditions string
}

// ValidAt reports whether the coupon can be used at t (wall clock): on or
// after its StartDate and before the day after its EndDate.
func (c *Coupon) ValidAt(t time.Time) bool {
	return (!c.StartDate.Valid || !t.Before(c.StartDate.Value)) &&
		(!c.EndDate.Valid || t.Before(c.EndDate.Value.AddDate(0, 0, 1)))
}
