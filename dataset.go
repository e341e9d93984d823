package afftrack

import (
	"context"
	"time"
)

// Dataset is one import file's content, parsed and checked for everything
// that needs no stored data. A store writes it atomically.
type Dataset struct {
	Merchants    []MerchantRecord
	Affiliates   []AffiliateRecord
	Memberships  []Membership
	Transactions []TransactionRecord
	Banners      []Banner
	Invoices     []Invoice

	// Programs are the Program objects of Merchants, each naming its
	// merchant; ProgramAt holds the index in Merchants of each.
	Programs      []Program
	ProgramAt     []int
	Coupons       []Coupon
	CurrencyRates []CurrencyRate

	// BannerGroups are written before Banners, which name them;
	// Promotions after Coupons; Clicks last, as recorded clicks.
	BannerGroups []BannerGroup
	Promotions   []Promotion
	Clicks       []Click

	// Start gives, for a chunk of a larger file, the index in the file of
	// each collection's first record here, so errors name records by
	// their place in the file. Zero for a whole file.
	Start DatasetStart
}

// DatasetStart holds the file index of a chunk's first record of each
// collection.
type DatasetStart struct {
	Merchants, Affiliates, Memberships, Transactions, Banners, Invoices int
	Coupons, CurrencyRates                                              int
	BannerGroups, Promotions, Clicks                                    int
}

// MerchantRecord is a merchant with the key secrets the file gives it,
// and what the affiliates' view of merchants shows of it.
type MerchantRecord struct {
	Merchant
	APIKeys []string

	// DateCreated (the launch) and DateModified: null takes the import's
	// time (DateCreated: a stored merchant's own).
	DateCreated, DateModified Null[time.Time]
	Summary                   string
	// Categories are MerchantNewCategory values (ValidMerchantCategory),
	// at most MaxMerchantCategories: NewCategory ... NewCategory3.
	Categories []string
}

// AffiliateRecord is an affiliate with the key secrets the file gives it.
type AffiliateRecord struct {
	Affiliate
	APIKeys []string

	// DateCreated (joining the network) and DateModified: null takes the
	// import's time (DateCreated: a stored affiliate's own).
	DateCreated, DateModified Null[time.Time]
}

// TransactionRecord is a transaction with the derived names the file
// claims for it, if any. The store checks a claim against the affiliate's
// account (in the same file or already stored) and refuses one that
// disagrees.
type TransactionRecord struct {
	Transaction
	ClaimedContactName  Null[string]
	ClaimedBusinessName Null[string]
	// ClaimedMerchantName and ClaimedMerchantAvatarURL are checked
	// against the merchant's account likewise.
	ClaimedMerchantName      Null[string]
	ClaimedMerchantAvatarURL Null[string]
}

// ImportSummary counts what an import wrote.
type ImportSummary struct {
	Merchants, Affiliates, Memberships, Transactions, Banners, Invoices, Keys int
	Programs, Coupons, CurrencyRates                                          int
	BannerGroups, Promotions, Clicks                                          int
	// NewBannerGroups counts the groups made for banners whose GroupName
	// named none.
	NewBannerGroups int
}

// ImportService writes datasets.
type ImportService interface {
	// Import writes every record of d in one database transaction: all or
	// nothing. A record whose id exists replaces the stored one (a
	// transaction's items are replaced whole); keys are added if new. A
	// reference to an account that is neither in d nor stored fails with
	// an EINVALID error naming the collection, the index and the field,
	// e.g. `Transactions[3].AffiliateId: affiliate 9 does not exist`.
	Import(ctx context.Context, d *Dataset) (ImportSummary, error)

	// ImportChunks imports the datasets next returns, until it returns
	// nil, in one database transaction, as Import imports their
	// concatenation: a load too large to hold in memory at once. An error
	// names a record by its index in its own chunk.
	ImportChunks(ctx context.Context, next func() (*Dataset, error)) (ImportSummary, error)
}
