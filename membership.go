package afftrack

import "time"

// Membership is an affiliate's relation to a merchant's programme, and
// the traffic the affiliate sends it, which a tracked sale records.
type Membership struct {
	AffiliateID           int64
	MerchantID            int64
	Status                MembershipStatus
	TrafficType           TrafficType // Website unless the import says otherwise
	TrafficSource         string
	TrafficSourceApproved bool

	// DateApplied is null for an Invited membership, DateApproved for
	// any but a Joined one. In an import record a null date takes its
	// default: DateApplied and DateModified the import's time,
	// DateApproved the DateApplied (the dates of a stored membership are
	// kept, except DateModified).
	DateApplied, DateApproved Null[time.Time]
	DateModified              Null[time.Time]
	// TrafficSources are the affiliate's sources with the merchant's
	// verdict, in order; none: the membership's own traffic stands for
	// one (v1-surface.md section 4.1).
	TrafficSources []TrafficSource
}
