package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// The clicks of the conversion tests, by their number (testClickID).
const (
	clickBanner        = 1 // credited banner click of affiliate 1 on merchant 1, two days ago, from New Zealand
	clickText          = 2 // credited text-link click of affiliate 1 on merchant 1, an hour ago, no country
	clickOtherMerchant = 3 // credited click on merchant 2
	clickBot           = 4 // a crawler's click on merchant 1, not credited
	clickNotEligible   = 5 // affiliate 2 (not joined) on merchant 1, not credited
	clickExpired       = 6 // 31 days ago, merchant 1's cookie window is 30
	clickWindowEdge    = 7 // exactly 30 days ago
	clickNoProgram     = 8 // credited click on merchant 3, which has no program
	clickNoTerms       = 9 // credited click on merchant 7, whose program has no Commission
	clickUnknown       = 404
)

const (
	bannerClickIPHash = "c0ffee00c0ffee00c0ffee00c0ffee00"
	textClickIPHash   = "0badf00d0badf00d0badf00d0badf00d"
)

// conversionClicks returns the clicks of the conversion tests.
func conversionClicks(t testing.TB) []afftrack.Click {
	now := dt(t, trackingNow)
	click := func(n int, merchant, aff int64, ago time.Duration) afftrack.Click {
		return afftrack.Click{ID: testClickID(n), Time: now.Add(-ago), MerchantID: merchant, AffiliateID: aff,
			CreativeType: afftrack.CreativeTypeTextLink, IPHash: textClickIPHash, Credited: true}
	}
	banner := click(clickBanner, 1, 1, 48*time.Hour)
	banner.CreativeType, banner.CreativeID = afftrack.CreativeTypeBanner, afftrack.Some[int64](11)
	banner.Referer, banner.IPHash = "https://blog.example/review", bannerClickIPHash
	banner.CountryCode, banner.CountryName = "NZL", "New Zealand"
	banner.UniqueIDs = [4]string{"u-1", "u-2", "u-3", "u-4"}
	text := click(clickText, 1, 1, time.Hour)
	text.UniqueIDs = [4]string{"t-1"}
	other := click(clickOtherMerchant, 2, 1, time.Hour)
	other.CreativeType, other.CreativeID = afftrack.CreativeTypeBanner, afftrack.Some[int64](21)
	bot := click(clickBot, 1, 1, time.Hour)
	bot.Bot, bot.Credited = true, false
	notEligible := click(clickNotEligible, 1, 2, time.Hour)
	notEligible.Credited = false
	return []afftrack.Click{banner, text, other, bot, notEligible,
		click(clickExpired, 1, 1, 31*24*time.Hour),
		click(clickWindowEdge, 1, 1, 30*24*time.Hour),
		click(clickNoProgram, 3, 1, time.Hour),
		click(clickNoTerms, 7, 1, time.Hour),
	}
}

// conversionLoaded imports the tracking network and writes its clicks.
func conversionLoaded(t *testing.T, db *sqlstore.DB) {
	t.Helper()
	trackingLoaded(t, db)
	if err := sqlstore.NewClickService(db).WriteClicks(context.Background(), conversionClicks(t)); err != nil {
		t.Fatal(err)
	}
	// An exclusive coupon of affiliate 4, who is Suspended, and affiliate
	// 1's of merchants 4 (Suspended) and 5 (Closed), which the pixel,
	// taking no key, may still name.
	mustImport(t, db, &afftrack.Dataset{Coupons: []afftrack.Coupon{
		{ID: 4, MerchantID: 1, Code: "DAN", AffiliateID: afftrack.Some[int64](4)},
		{ID: 5, MerchantID: 4, Code: "FOUR", AffiliateID: afftrack.Some[int64](1)},
		{ID: 6, MerchantID: 5, Code: "FIVE", AffiliateID: afftrack.Some[int64](1)},
	}})
}

// storedCounts returns the rows of transactions and of conversions.
func storedCounts(t testing.TB, db *sqlstore.DB) [2]int64 {
	t.Helper()
	return [2]int64{countRows(t, db, "transactions"), countRows(t, db, "conversions")}
}

// transactionClick is what a transaction row keeps of its click.
type transactionClick struct {
	ClickID   sql.NullString
	UniqueIDs [4]string
}

func storedTransactionClick(t testing.TB, db *sqlstore.DB, id int64) transactionClick {
	t.Helper()
	var c transactionClick
	if err := db.SQL().QueryRow(`SELECT click_id, COALESCE(unique_id, ''), COALESCE(unique_id2, ''),
		COALESCE(unique_id3, ''), COALESCE(unique_id4, '') FROM transactions WHERE id = $1`, id).Scan(
		&c.ClickID, &c.UniqueIDs[0], &c.UniqueIDs[1], &c.UniqueIDs[2], &c.UniqueIDs[3]); err != nil {
		t.Fatalf("read transaction %d's click: %v", id, err)
	}
	return c
}

// wantConversion is the transaction merchant 1 makes of a conversion by
// affiliate 1 now, before its amounts and creative: tracking.md section 4.
func wantConversion(t testing.TB, orderID string) afftrack.Transaction {
	now := dt(t, trackingNow)
	return afftrack.Transaction{
		MerchantID: 1, DateCreated: now, DateModified: now, ConsumptionDate: now,
		ValidationDate: dt(t, "2024-07-30T12:00:00"), // ValidationDays 45
		AffiliateID:    1, AffiliateContactName: "Ann Lee", AffiliateBusinessName: "Lee Media",
		TrafficType: afftrack.TrafficTypeEmailList, TrafficSource: "newsletter", TrafficSourceApproved: false,
		CustomerType: afftrack.CustomerTypeNew, OrderID: orderID, TrackingMethod: afftrack.TrackingMethodServer,
		ReportedCurrencyCode: "AUD", ReportedCurrencyName: "Australian Dollar",
		Status2: afftrack.Status2Pending, Items: []afftrack.TransactionItem{},
	}
}

// recordConversion records c and checks that the transaction it returns is the one
// FindTransactionByID reads.
func recordConversion(t *testing.T, s *sqlstore.ConversionService, db *sqlstore.DB, c afftrack.Conversion) (*afftrack.Transaction, bool) {
	t.Helper()
	got, created, err := s.RecordConversion(context.Background(), &c)
	if err != nil {
		t.Fatalf("RecordConversion: %v", err)
	}
	stored, err := sqlstore.NewTransactionService(db).FindTransactionByID(context.Background(), c.MerchantID, got.ID)
	if err != nil {
		t.Fatalf("FindTransactionByID(%d, %d): %v", c.MerchantID, got.ID, err)
	}
	if diff := cmp.Diff(stored, got); diff != "" {
		t.Errorf("returned transaction differs from the stored one (-stored +returned):\n%s", diff)
	}
	return got, created
}

func TestRecordConversion(t *testing.T) {
	aud := func(n int, order string, sale afftrack.Money) afftrack.Conversion {
		c := afftrack.Conversion{MerchantID: 1, OrderID: order, SaleValue: sale, CurrencyCode: "AUD",
			CustomerType: afftrack.CustomerTypeNew}
		if n != 0 {
			c.ClickID = testClickID(n)
		}
		return c
	}
	type credited struct {
		name  string
		conv  afftrack.Conversion
		want  func(t testing.TB) afftrack.Transaction
		click transactionClick
	}
	tests := []credited{
		{
			name: "a banner click credits its affiliate with the banner, the click's address and country",
			conv: func() afftrack.Conversion {
				c := aud(clickBanner, "ORD-1", 1234567)
				c.AdditionalNotes, c.CustomerCountryCode = afftrack.Some("gift wrap"), "AUS"
				return c
			}(),
			want: func(t testing.TB) afftrack.Transaction {
				w := wantConversion(t, "ORD-1")
				w.CreativeType, w.CreativeID = afftrack.CreativeTypeBanner, afftrack.Some[int64](11)
				w.CreativeName = afftrack.Some("Spring Banner")
				w.CustomerIPAddress = bannerClickIPHash
				w.CustomerCountryCode, w.CustomerCountryName = "NZL", "New Zealand" // the click's, not the body's
				w.AdditionalNotes = afftrack.Some("gift wrap")
				w.ReportedSaleValue, w.SaleValue = 1234567, 1234567
				w.Commission, w.OverrideFee = 123457, 24691 // 10% of 123.4567, rounded half up; 20% of that
				return w
			},
			click: transactionClick{ClickID: sql.NullString{String: testClickID(clickBanner), Valid: true},
				UniqueIDs: [4]string{"u-1", "u-2", "u-3", "u-4"}},
		},
		{
			name: "a text-link click credits with no creative id or name, and the body's country when the click has none",
			conv: func() afftrack.Conversion {
				c := aud(clickText, "ORD-2", 800000)
				c.CustomerType, c.CustomerCountryCode = afftrack.CustomerTypeReturn, "AUS"
				return c
			}(),
			want: func(t testing.TB) afftrack.Transaction {
				w := wantConversion(t, "ORD-2")
				w.CreativeType = afftrack.CreativeTypeTextLink
				w.CustomerIPAddress = textClickIPHash
				w.CustomerCountryCode, w.CustomerCountryName = "AUS", "Australia"
				w.CustomerType = afftrack.CustomerTypeReturn
				w.ReportedSaleValue, w.SaleValue = 800000, 800000
				w.Commission, w.OverrideFee = 60000, 12000 // the Return rule: 7.5%
				return w
			},
			click: transactionClick{ClickID: sql.NullString{String: testClickID(clickText), Valid: true},
				UniqueIDs: [4]string{"t-1"}},
		},
		{
			name: "a click exactly CookieDays old still credits",
			conv: aud(clickWindowEdge, "ORD-3", 100000),
			want: func(t testing.TB) afftrack.Transaction {
				w := wantConversion(t, "ORD-3")
				w.CreativeType, w.CustomerIPAddress = afftrack.CreativeTypeTextLink, textClickIPHash
				w.ReportedSaleValue, w.SaleValue, w.Commission, w.OverrideFee = 100000, 100000, 10000, 2000
				return w
			},
			click: transactionClick{ClickID: sql.NullString{String: testClickID(clickWindowEdge), Valid: true}},
		},
		{
			name: "items are priced by their category's rule and stored",
			conv: func() afftrack.Conversion {
				c := aud(clickText, "ORD-4", 550000)
				c.Items = []afftrack.ConversionItem{
					{Sku: "G-1", Quantity: 2, SaleValue: 4000, Name: "Game", Brand: "Acme", Category: "games"},
					{Sku: "B-1", Quantity: 1, SaleValue: 1500, Name: "Book", Brand: "Pub", Category: "Books"},
				}
				return c
			}(),
			want: func(t testing.TB) afftrack.Transaction {
				w := wantConversion(t, "ORD-4")
				w.CreativeType, w.CustomerIPAddress = afftrack.CreativeTypeTextLink, textClickIPHash
				w.ReportedSaleValue, w.SaleValue = 550000, 550000
				w.Items = []afftrack.TransactionItem{
					// affiliate 1's new gamers: 12.3456% of 40.00 = 4.93824
					{Sku: "G-1", Quantity: 2, ReportedSaleValue: 4000, SaleValue: 4000, Commission: 494,
						Name: "Game", Brand: "Acme", Category: "games"},
					// books: 5% of 15.00
					{Sku: "B-1", Quantity: 1, ReportedSaleValue: 1500, SaleValue: 1500, Commission: 75,
						Name: "Book", Brand: "Pub", Category: "Books"},
				}
				w.Commission, w.OverrideFee = 56900, 11380
				return w
			},
			click: transactionClick{ClickID: sql.NullString{String: testClickID(clickText), Valid: true},
				UniqueIDs: [4]string{"t-1"}},
		},
		{
			name: "an exclusive coupon credits its affiliate without a click",
			conv: func() afftrack.Conversion {
				c := aud(0, "ORD-5", 500000)
				c.CouponCode, c.CustomerType, c.CustomerCountryCode = "ANN10", afftrack.CustomerTypeReturn, "AUS"
				return c
			}(),
			want: func(t testing.TB) afftrack.Transaction {
				w := wantConversion(t, "ORD-5")
				w.TrackingMethod = afftrack.TrackingMethodClickless
				w.CreativeType, w.CreativeName = afftrack.CreativeTypeCoupon, afftrack.Some("ANN10")
				w.CouponCode = afftrack.Some("ANN10")
				w.CustomerIPAddress = ""
				w.CustomerCountryCode, w.CustomerCountryName = "AUS", "Australia"
				w.CustomerType = afftrack.CustomerTypeReturn
				w.ReportedSaleValue, w.SaleValue, w.Commission, w.OverrideFee = 500000, 500000, 37500, 7500
				return w
			},
		},
	}

	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		conversionLoaded(t, db)
		s := sqlstore.NewConversionService(db, "AUD", trackingClock(t))
		ctx := context.Background()
		first := map[string]*afftrack.Transaction{}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, created := recordConversion(t, s, db, tt.conv)
				if !created {
					t.Error("created = false, want true")
				}
				want := tt.want(t)
				want.ID = got.ID
				if diff := cmp.Diff(&want, got); diff != "" {
					t.Errorf("transaction (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.click, storedTransactionClick(t, db, got.ID)); diff != "" {
					t.Errorf("the transaction's click (-want +got):\n%s", diff)
				}
				first[tt.conv.OrderID] = got
			})
		}
		if len(first) != len(tests) {
			t.Fatal("a conversion was not recorded; the rest depends on them")
		}
		ids := map[int64]bool{}
		for _, tr := range first {
			ids[tr.ID] = true
		}
		if len(ids) != len(tests) {
			t.Errorf("%d conversions got %d distinct ids", len(tests), len(ids))
		}

		t.Run("the same conversion again returns the stored transaction, not created", func(t *testing.T) {
			before := storedCounts(t, db)
			for _, tt := range tests {
				got, created := recordConversion(t, s, db, tt.conv)
				if created {
					t.Errorf("%s: created = true, want false", tt.conv.OrderID)
				}
				if diff := cmp.Diff(first[tt.conv.OrderID], got); diff != "" {
					t.Errorf("%s (-first +again):\n%s", tt.conv.OrderID, diff)
				}
			}
			if after := storedCounts(t, db); after != before {
				t.Errorf("rows of transactions, conversions = %v, want %v as before", after, before)
			}
		})
		t.Run("the same OrderId with different content is a conflict and changes nothing", func(t *testing.T) {
			before := storedCounts(t, db)
			for name, edit := range map[string]func(c *afftrack.Conversion){
				"SaleValue":       func(c *afftrack.Conversion) { c.SaleValue++ },
				"ClickId":         func(c *afftrack.Conversion) { c.ClickID = testClickID(clickText) },
				"CustomerType":    func(c *afftrack.Conversion) { c.CustomerType = afftrack.CustomerTypeReturn },
				"AdditionalNotes": func(c *afftrack.Conversion) { c.AdditionalNotes = afftrack.Null[string]{} },
			} {
				c := tests[0].conv
				edit(&c)
				_, _, err := s.RecordConversion(ctx, &c)
				if afftrack.ErrorCode(err) != afftrack.ECONFLICT {
					t.Errorf("changed %s: error %v, want %s", name, err, afftrack.ECONFLICT)
				}
			}
			if after := storedCounts(t, db); after != before {
				t.Errorf("rows of transactions, conversions = %v, want %v as before", after, before)
			}
			got, err := sqlstore.NewTransactionService(db).FindTransactionByID(ctx, 1, first["ORD-1"].ID)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(first["ORD-1"], got); diff != "" {
				t.Errorf("transaction after the conflict (-want +got):\n%s", diff)
			}
		})
		t.Run("the same OrderId at another merchant is another conversion", func(t *testing.T) {
			c := afftrack.Conversion{MerchantID: 2, ClickID: testClickID(clickOtherMerchant), OrderID: "ORD-1",
				SaleValue: 100000, CurrencyCode: "AUD", CustomerType: afftrack.CustomerTypeNew}
			got, created := recordConversion(t, s, db, c)
			if !created || got.MerchantID != 2 || got.ID == first["ORD-1"].ID {
				t.Errorf("got transaction %d of merchant %d, created %v; want a new one of merchant 2",
					got.ID, got.MerchantID, created)
			}
			if got.CreativeName != afftrack.Some("Two Banner") || got.Commission != 5000 {
				t.Errorf("CreativeName %v, Commission %v; want Two Banner and 5%% of 10.0000", got.CreativeName, got.Commission)
			}
		})
		t.Run("an exclusive coupon beats a click", func(t *testing.T) {
			c := aud(clickBanner, "ORD-6", 100000)
			c.CouponCode = "GUS"
			got, created := recordConversion(t, s, db, c)
			if !created {
				t.Error("created = false, want true")
			}
			type credit struct {
				AffiliateID           int64
				Method                afftrack.TrackingMethod
				CreativeType          afftrack.CreativeType
				CreativeID            afftrack.Null[int64]
				CreativeName          afftrack.Null[string]
				TrafficType           afftrack.TrafficType
				TrafficSource         string
				TrafficSourceApproved bool
			}
			want := credit{7, afftrack.TrackingMethodClickless, afftrack.CreativeTypeCoupon, afftrack.Null[int64]{},
				afftrack.Some("GUS"), afftrack.TrafficTypeSearch, "coupons.example", true}
			gotCredit := credit{got.AffiliateID, got.TrackingMethod, got.CreativeType, got.CreativeID, got.CreativeName,
				got.TrafficType, got.TrafficSource, got.TrafficSourceApproved}
			if diff := cmp.Diff(want, gotCredit); diff != "" {
				t.Errorf("credit (-want +got):\n%s", diff)
			}
		})
		t.Run("an exclusive coupon of a suspended affiliate gives way to the click", func(t *testing.T) {
			c := aud(clickText, "ORD-7", 100000)
			c.CouponCode = "dan"
			got, created := recordConversion(t, s, db, c)
			if !created || got.AffiliateID != 1 || got.TrackingMethod != afftrack.TrackingMethodServer ||
				got.CreativeType != afftrack.CreativeTypeTextLink || got.CouponCode != afftrack.Some("dan") {
				t.Errorf("created %v, affiliate %d by %v through %v with CouponCode %v; want a new transaction of affiliate 1 by Server through Text Link, keeping the code",
					created, got.AffiliateID, got.TrackingMethod, got.CreativeType, got.CouponCode)
			}
		})
	})
}

func TestRecordConversionUnprocessable(t *testing.T) {
	conv := func(merchant int64, click int, order string) afftrack.Conversion {
		c := afftrack.Conversion{MerchantID: merchant, OrderID: order, SaleValue: 100000, CurrencyCode: "AUD",
			CustomerType: afftrack.CustomerTypeNew}
		if click != 0 {
			c.ClickID = testClickID(click)
		}
		return c
	}
	withCoupon := func(c afftrack.Conversion, code string) afftrack.Conversion {
		c.CouponCode = code
		return c
	}
	withCurrency := func(c afftrack.Conversion, code string) afftrack.Conversion {
		c.CurrencyCode = code
		return c
	}
	tests := []struct {
		name string
		conv afftrack.Conversion
	}{
		{"an unknown click", conv(1, clickUnknown, "U-1")},
		{"another merchant's click", conv(1, clickOtherMerchant, "U-2")},
		{"a crawler's click, never credited", conv(1, clickBot, "U-3")},
		{"the click of an affiliate that was not eligible", conv(1, clickNotEligible, "U-4")},
		{"a click older than the program's CookieDays", conv(1, clickExpired, "U-5")},
		{"a public coupon without a click", withCoupon(conv(1, 0, "U-6"), "SALE")},
		{"an unknown coupon without a click", withCoupon(conv(1, 0, "U-7"), "NOPE")},
		{"another merchant's exclusive coupon", withCoupon(conv(2, 0, "U-8"), "ANN10")},
		{"neither a click nor a coupon", conv(1, 0, "U-9")},
		{"a suspended affiliate's exclusive coupon without a click", withCoupon(conv(1, 0, "U-13"), "DAN")},
		{"a suspended affiliate's exclusive coupon with a click that does not credit", withCoupon(conv(1, clickExpired, "U-14"), "DAN")},
		{"a currency without any rate", withCurrency(conv(1, clickBanner, "U-10"), "EUR")},
		{"a merchant without a program", conv(3, clickNoProgram, "U-11")},
		{"a merchant that does not exist, as a pixel's URL may name", conv(99, 0, "U-17")},
		{"a Suspended merchant's sale, though its exclusive coupon names an active affiliate", withCoupon(conv(4, 0, "U-15"), "FOUR")},
		{"a Closed merchant's sale, though its exclusive coupon names an active affiliate", withCoupon(conv(5, 0, "U-16"), "FIVE")},
		{"a program whose Commission has neither Percent nor Flat", conv(7, clickNoTerms, "U-12")},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		conversionLoaded(t, db)
		s := sqlstore.NewConversionService(db, "AUD", trackingClock(t))
		for _, tt := range tests {
			t.Run(tt.name+" is unprocessable and stores nothing", func(t *testing.T) {
				before := storedCounts(t, db)
				c := tt.conv
				got, created, err := s.RecordConversion(context.Background(), &c)
				if got != nil || created {
					t.Errorf("got transaction %+v, created %v; want none", got, created)
				}
				wantCode(t, err, afftrack.EUNPROCESSABLE)
				if after := storedCounts(t, db); after != before {
					t.Errorf("rows of transactions, conversions = %v, want %v as before", after, before)
				}
			})
		}
		t.Run("a merchant that does not exist is named as such, not as one without terms", func(t *testing.T) {
			c := conv(99, 0, "U-18")
			_, _, err := s.RecordConversion(context.Background(), &c)
			if msg := afftrack.ErrorMessage(err); msg != "There is no merchant 99, so no conversion can be credited." {
				t.Errorf("message %q", msg)
			}
		})
		t.Run("an OrderId refused before is free for a creditable conversion", func(t *testing.T) {
			c := conv(1, clickBanner, "U-1")
			if _, created := recordConversion(t, s, db, c); !created {
				t.Error("created = false, want true")
			}
		})
	})
}

func TestRecordConversionCurrency(t *testing.T) {
	tests := []struct {
		name     string
		code     string
		reported afftrack.Money
		wantName string
		want     afftrack.Money // SaleValue in AUD
	}{
		{"USD uses the latest rate dated before now, not a later one", "USD", 1000000, "US Dollar", 1500000},
		{"NZD uses the rate dated today", "NZD", 1000000, "New Zealand Dollar", 950000},
		{"a converted amount rounds half away from zero at 4 digits", "USD", 3, "US Dollar", 5}, // 0.00045
		{"the network currency needs no rate", "AUD", 1000000, "Australian Dollar", 1000000},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		conversionLoaded(t, db)
		s := sqlstore.NewConversionService(db, "AUD", trackingClock(t))
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c := afftrack.Conversion{MerchantID: 1, ClickID: testClickID(clickBanner),
					OrderID: fmt.Sprintf("CUR-%d", i), SaleValue: tt.reported, CurrencyCode: tt.code,
					CustomerType: afftrack.CustomerTypeNew}
				got, created := recordConversion(t, s, db, c)
				if !created {
					t.Error("created = false, want true")
				}
				type amounts struct {
					Code, Name                      string
					Reported, Sale, Commission, Fee afftrack.Money
				}
				commission := afftrack.Money((int64(tt.want)*10 + 50) / 100) // 10%, half up (all positive)
				want := amounts{tt.code, tt.wantName, tt.reported, tt.want, commission,
					afftrack.Money((int64(commission)*20 + 50) / 100)}
				gotAmounts := amounts{got.ReportedCurrencyCode, got.ReportedCurrencyName, got.ReportedSaleValue,
					got.SaleValue, got.Commission, got.OverrideFee}
				if diff := cmp.Diff(want, gotAmounts); diff != "" {
					t.Errorf("amounts (-want +got):\n%s", diff)
				}
			})
		}
		t.Run("at midnight the rate dated that day applies", func(t *testing.T) {
			midnight := dt(t, "2024-06-16T00:00:00")
			s := sqlstore.NewConversionService(db, "AUD", func() time.Time { return midnight })
			c := afftrack.Conversion{MerchantID: 1, ClickID: testClickID(clickBanner), OrderID: "CUR-MIDNIGHT",
				SaleValue: 1000000, CurrencyCode: "USD", CustomerType: afftrack.CustomerTypeNew}
			got, _ := recordConversion(t, s, db, c)
			if got.SaleValue != 2000000 || !got.DateCreated.Equal(midnight) {
				t.Errorf("SaleValue %v on %v, want 200.0000 (the rate of 2024-06-16) on %v", got.SaleValue,
					got.DateCreated, midnight)
			}
		})
		t.Run("a rate dated after now is not used when none is before", func(t *testing.T) {
			mustImport(t, db, &afftrack.Dataset{CurrencyRates: []afftrack.CurrencyRate{
				{Code: "EUR", Date: dt(t, "2024-06-16"), Rate: 160000000}}})
			before := storedCounts(t, db)
			c := afftrack.Conversion{MerchantID: 1, ClickID: testClickID(clickBanner), OrderID: "CUR-EUR",
				SaleValue: 1000000, CurrencyCode: "EUR", CustomerType: afftrack.CustomerTypeNew}
			_, _, err := s.RecordConversion(context.Background(), &c)
			wantCode(t, err, afftrack.EUNPROCESSABLE)
			if after := storedCounts(t, db); after != before {
				t.Errorf("rows of transactions, conversions = %v, want %v as before", after, before)
			}
		})
	})
}

func TestRecordConversionConcurrently(t *testing.T) {
	const n = 8
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		conversionLoaded(t, db)
		s := sqlstore.NewConversionService(db, "AUD", trackingClock(t))
		// race records n conversions at once, the i-th made by conv(i).
		race := func(conv func(i int) afftrack.Conversion) ([n]*afftrack.Transaction, [n]bool, [n]error) {
			var got [n]*afftrack.Transaction
			var created [n]bool
			var errs [n]error
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Go(func() {
					<-start
					c := conv(i)
					got[i], created[i], errs[i] = s.RecordConversion(context.Background(), &c)
				})
			}
			close(start)
			wg.Wait()
			return got, created, errs
		}
		conv := func(order string) afftrack.Conversion {
			return afftrack.Conversion{MerchantID: 1, ClickID: testClickID(clickBanner), OrderID: order,
				SaleValue: 100000, CurrencyCode: "AUD", CustomerType: afftrack.CustomerTypeNew}
		}

		t.Run("the same conversion at once is created exactly once", func(t *testing.T) {
			got, created, errs := race(func(int) afftrack.Conversion { return conv("RACE") })
			for i, err := range errs {
				if err != nil {
					t.Fatalf("conversion %d: %v", i, err)
				}
			}
			won := 0
			for i := range n {
				if created[i] {
					won++
				}
				if diff := cmp.Diff(got[0], got[i]); diff != "" {
					t.Errorf("conversion %d's transaction differs from conversion 0's (-0 +%d):\n%s", i, i, diff)
				}
			}
			if won != 1 {
				t.Errorf("%d conversions created, want 1", won)
			}
			if c := storedCounts(t, db); c != [2]int64{1, 1} {
				t.Errorf("rows of transactions, conversions = %v, want [1 1]", c)
			}
		})
		t.Run("different conversions at once are all created with distinct ids", func(t *testing.T) {
			got, created, errs := race(func(i int) afftrack.Conversion { return conv(fmt.Sprintf("PAR-%d", i)) })
			ids := map[int64]bool{}
			for i := range n {
				if errs[i] != nil {
					t.Errorf("conversion %d: %v", i, errs[i])
					continue
				}
				if !created[i] {
					t.Errorf("conversion %d: created = false, want true", i)
				}
				if got[i].OrderID != fmt.Sprintf("PAR-%d", i) {
					t.Errorf("conversion %d got the transaction of OrderId %q", i, got[i].OrderID)
				}
				ids[got[i].ID] = true
			}
			if len(ids) != n {
				t.Errorf("%d distinct transaction ids, want %d", len(ids), n)
			}
			if c := storedCounts(t, db); c != [2]int64{1 + n, 1 + n} {
				t.Errorf("rows of transactions, conversions = %v, want [%d %d]", c, 1+n, 1+n)
			}
			txs := sqlstore.NewTransactionService(db)
			for id := range ids {
				if _, err := txs.FindTransactionByID(context.Background(), 1, id); err != nil {
					t.Errorf("transaction %d: %v", id, err)
				}
			}
		})
	})
}

// TestNoIDIsGivenAboveMaxID: once an import has taken the largest id an
// import file may name, the store refuses what would give itself a larger
// one, saying so, and stores nothing.
func TestNoIDIsGivenAboveMaxID(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		conversionLoaded(t, db)
		last := wantConversion(t, "THE-LAST")
		last.ID = afftrack.MaxID
		mustImport(t, db, &afftrack.Dataset{
			Merchants: []afftrack.MerchantRecord{{Merchant: afftrack.Merchant{ID: afftrack.MaxID, Name: "The last merchant",
				Status: afftrack.AccountActive}}},
			Transactions: []afftrack.TransactionRecord{{Transaction: last}},
		})
		t.Run("a conversion is unprocessable and stores nothing", func(t *testing.T) {
			s := sqlstore.NewConversionService(db, "AUD", trackingClock(t))
			before := storedCounts(t, db)
			c := afftrack.Conversion{MerchantID: 1, OrderID: "ONE-TOO-MANY", SaleValue: 100000, CurrencyCode: "AUD",
				CustomerType: afftrack.CustomerTypeNew, ClickID: testClickID(clickBanner)}
			_, _, err := s.RecordConversion(context.Background(), &c)
			wantCode(t, err, afftrack.EUNPROCESSABLE)
			if msg := afftrack.ErrorMessage(err); !strings.HasPrefix(msg, "no transaction id is left") {
				t.Errorf("message %q", msg)
			}
			if after := storedCounts(t, db); after != before {
				t.Errorf("rows of transactions, conversions = %v, want %v as before", after, before)
			}
		})
		t.Run("a merchant created without an id is unprocessable", func(t *testing.T) {
			err := sqlstore.NewAccountService(db).CreateMerchant(context.Background(), &afftrack.Merchant{Name: "One too many"})
			wantCode(t, err, afftrack.EUNPROCESSABLE)
		})
	})
}
