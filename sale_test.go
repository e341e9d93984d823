package afftrack

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestMulDivRound(t *testing.T) {
	tests := []struct {
		name    string
		a, b, d int64
		want    int64
		ok      bool
	}{
		{"a half rounds up", 5, 1, 10, 1, true},
		{"a negative half rounds down", -5, 1, 10, -1, true},
		{"a half negative by the second operand rounds down", 5, -1, 10, -1, true},
		{"two negative operands make a positive half that rounds up", -5, -1, 10, 1, true},
		{"less than a half rounds down", 4, 1, 10, 0, true},
		{"less than a negative half rounds to zero", -4, 1, 10, 0, true},
		{"one and a half rounds to two", 15, 1, 10, 2, true},
		{"minus one and a half rounds to minus two", -15, 1, 10, -2, true},
		{"two and a half rounds to three, not to the even two", 25, 1, 10, 3, true},
		{"just under a half rounds down", 14, 1, 10, 1, true},
		{"two thirds round up", 2, 1, 3, 1, true},
		{"one third rounds down", 1, 1, 3, 0, true},
		{"zero stays zero", 0, math.MaxInt64, 7, 0, true},
		{"an exact quotient is not rounded", 123456, 100_000_000, 100_000_000, 123456, true},
		// The product, about 9.2e26, needs 90 bits; the quotient fits.
		{"a product beyond 64 bits that fits after dividing", math.MaxInt64, 100_000_000, 100_000_000, math.MaxInt64, true},
		{"a negative product beyond 64 bits that fits after dividing", -math.MaxInt64, 100_000_000, 100_000_000, -math.MaxInt64, true},
		// 10.0005 at a rate of 1.5: 15.00075 rounds to 15.0008.
		{"a conversion at a rate rounds the half away from zero", 100005, 150_000_000, 100_000_000, 150008, true},
		{"twice the largest int64 overflows", math.MaxInt64, 2, 1, 0, false},
		{"the square of the largest int64 overflows", math.MaxInt64, math.MaxInt64, 1, 0, false},
		// 1.5 x MaxInt64 fits 64 unsigned bits but not an int64.
		{"a quotient beyond int64 but within uint64 overflows", math.MaxInt64, 3, 2, 0, false},
		// 253921 x 145295143558111 = 2^65-1; halved it is MaxUint64 and a
		// half, which rounds to 2^64: that must overflow, not wrap to 0.
		{"a quotient that rounds up past 64 bits overflows", 253921, 145295143558111, 2, 0, false},
		// 200000005 x 9223371806270480651 = MaxUint64 x 10^8 + 52403255: the
		// same wrap at the rate divisor.
		{"a conversion that rounds up past 64 bits overflows", 200000005, 9223371806270480651, 100_000_000, 0, false},
		{"MinInt64 times one is MinInt64", math.MinInt64, 1, 1, math.MinInt64, true},
		{"one times MinInt64 is MinInt64", 1, math.MinInt64, 1, math.MinInt64, true},
		{"MinInt64 halved is -2^62", math.MinInt64, 1, 2, -1 << 62, true},
		{"MinInt64 times minus one overflows", math.MinInt64, -1, 1, 0, false},
		{"MinInt64 times minus one, halved, is 2^62", math.MinInt64, -1, 2, 1 << 62, true},
		// 2^63 x 3 / 4 = 3 x 2^61, exactly.
		{"MinInt64 times three quarters is exact", math.MinInt64, 3, 4, -3 << 61, true},
		{"MinInt64 times two overflows", math.MinInt64, 2, 1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := mulDivRound(tt.a, tt.b, tt.d)
			if ok != tt.ok || (ok && got != tt.want) {
				t.Errorf("mulDivRound(%d, %d, %d) = %d, %v; want %d, %v", tt.a, tt.b, tt.d, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// saleFixture is a 123.4567 AUD sale (the network's currency) credited to
// affiliate 42 by a banner click, under a 10% program.
func saleFixture() *Sale {
	click := convClick()
	return &Sale{
		Conversion: &Conversion{MerchantID: 7, ClickID: convClickID, OrderID: "ORD-1001", SaleValue: 1234567,
			CurrencyCode: "AUD", CustomerType: CustomerTypeNew, AdditionalNotes: Some("gift wrap"),
			CustomerCountryCode: "NZL"},
		Program: &Program{MerchantID: 7, CookieDays: 30, ValidationDays: 60,
			Commission: CommissionRule{Percent: Some(Percent(100000))}},
		Credit: Credit{Method: TrackingMethodServer, AffiliateID: 42, Click: click,
			CreativeType: CreativeTypeBanner, CreativeID: Some(int64(9)), CreativeName: Some("Spring banner")},
		Membership: Membership{AffiliateID: 42, MerchantID: 7, Status: MembershipJoined,
			TrafficType: TrafficTypeWebsite, TrafficSource: "https://blog.example.com", TrafficSourceApproved: true},
		NetworkCurrency: "AUD",
		Now:             convNow,
	}
}

// saleWant is the transaction saleFixture makes.
func saleWant() *Transaction {
	return &Transaction{
		MerchantID:            7,
		DateCreated:           convNow,
		DateModified:          convNow,
		ConsumptionDate:       convNow,
		ValidationDate:        time.Date(2024, 5, 9, 14, 30, 0, 0, time.UTC), // 10 March + 60 days
		AffiliateID:           42,
		TrafficType:           TrafficTypeWebsite,
		TrafficSource:         "https://blog.example.com",
		CreativeType:          CreativeTypeBanner,
		CreativeID:            Some(int64(9)),
		CreativeName:          Some("Spring banner"),
		CustomerCountryCode:   "AUS", // the click's, not the body's NZL
		CustomerCountryName:   "Australia",
		CustomerIPAddress:     convIPHash,
		CustomerType:          CustomerTypeNew,
		OrderID:               "ORD-1001",
		AdditionalNotes:       Some("gift wrap"),
		TrackingMethod:        TrackingMethodServer,
		SaleValue:             1234567,
		Commission:            123457, // 10% of 123.4567 is 12.34567: 12.3457
		OverrideFee:           0,
		ReportedCurrencyCode:  "AUD",
		ReportedCurrencyName:  "Australian Dollar",
		ReportedSaleValue:     1234567,
		TrafficSourceApproved: true,
		Status2:               Status2Pending,
	}
}

// saleCategoryRules are the rules of the item cases: shoes 12.5%, books
// 5%, gift cards 5.00 flat, vouchers 3.00 flat; anything else the
// program's 10%.
var saleCategoryRules = []CommissionRule{
	{Category: Some("Shoes"), Percent: Some(Percent(125000))},
	{Category: Some("Books"), Percent: Some(Percent(50000))},
	{Category: Some("Gift Cards"), Flat: Some(Money(50000))},
	{Category: Some("Vouchers"), Flat: Some(Money(30000))},
}

func TestSaleTransaction(t *testing.T) {
	tests := []struct {
		name     string
		sale     func(s *Sale)
		want     func(t *Transaction) // nil with wantCode
		wantCode string
	}{
		{
			name: "a percent sale in the network currency without items",
			sale: func(s *Sale) {},
			want: func(t *Transaction) {},
		},
		{
			name: "a sale in the network currency ignores the rate",
			sale: func(s *Sale) { s.Rate = 200_000_000 },
			want: func(t *Transaction) {},
		},
		{
			// 102.75 USD at 1.5234 is 156.52935: 156.5294. The commission
			// is 10% of the rounded SaleValue: 15.65294, so 15.6529.
			name: "a USD sale is converted at the rate, rounding the half away from zero",
			sale: func(s *Sale) {
				s.Conversion.CurrencyCode, s.Conversion.SaleValue = "USD", 1027500
				s.Rate = 152_340_000
			},
			want: func(t *Transaction) {
				t.ReportedCurrencyCode, t.ReportedCurrencyName, t.ReportedSaleValue = "USD", "US Dollar", 1027500
				t.SaleValue, t.Commission = 1565294, 156529
			},
		},
		{
			// At 1.5234 USD: shoes 75.00 is 114.255, so 114.26, and 12.5% of
			// it 14.2825, so 14.28; books 25.00 is 38.085, so 38.09, and 5%
			// of it 1.9045, so 1.90; the uncategorised 15.00 is 22.851, so
			// 22.85, and the program's 10% of it 2.285, so 2.29. (Priced on
			// the exact converted values the commissions round the same.)
			// Commission is 14.28 + 1.90 + 2.29 = 18.47; SaleValue 115.00 at
			// 1.5234 is 175.191.
			name: "items are converted at two digits and priced by their category's rule",
			sale: func(s *Sale) {
				s.Program.Rules = saleCategoryRules
				s.Conversion.CurrencyCode, s.Conversion.SaleValue = "USD", 1150000
				s.Rate = 152_340_000
				s.Conversion.Items = []ConversionItem{
					{Sku: "SH-1", Quantity: 1, SaleValue: 7500, Name: "Runner", Brand: "Fleet", Category: "shoes"},
					{Sku: "BK-2", Quantity: 2, SaleValue: 2500, Name: "Atlas", Brand: "Maps Co", Category: "Books"},
					{Sku: "MI-3", Quantity: 3, SaleValue: 1500, Name: "Socks"},
				}
			},
			want: func(t *Transaction) {
				t.ReportedCurrencyCode, t.ReportedCurrencyName, t.ReportedSaleValue = "USD", "US Dollar", 1150000
				t.SaleValue, t.Commission = 1751910, 184700
				t.Items = []TransactionItem{
					{Sku: "SH-1", Quantity: 1, ReportedSaleValue: 7500, SaleValue: 11426, Commission: 1428, Name: "Runner", Brand: "Fleet", Category: "shoes"},
					{Sku: "BK-2", Quantity: 2, ReportedSaleValue: 2500, SaleValue: 3809, Commission: 190, Name: "Atlas", Brand: "Maps Co", Category: "Books"},
					{Sku: "MI-3", Quantity: 3, ReportedSaleValue: 1500, SaleValue: 2285, Commission: 229, Name: "Socks"},
				}
			},
		},
		{
			name: "a Flat rule pays its amount per transaction and nothing per item",
			sale: func(s *Sale) {
				s.Program.Rules = saleCategoryRules
				s.Conversion.SaleValue = 1250000
				s.Conversion.Items = []ConversionItem{
					{Sku: "SH-1", Quantity: 1, SaleValue: 7500, Category: "Shoes"},
					{Sku: "GC-50", Quantity: 1, SaleValue: 5000, Category: "gift cards"},
				}
			},
			want: func(t *Transaction) {
				t.ReportedSaleValue, t.SaleValue, t.Commission = 1250000, 1250000, 50000
				t.Items = []TransactionItem{
					{Sku: "SH-1", Quantity: 1, ReportedSaleValue: 7500, SaleValue: 7500, Commission: 0, Category: "Shoes"},
					{Sku: "GC-50", Quantity: 1, ReportedSaleValue: 5000, SaleValue: 5000, Commission: 0, Category: "gift cards"},
				}
			},
		},
		{
			name: "two Flat items pay the first one's amount once",
			sale: func(s *Sale) {
				s.Program.Rules = saleCategoryRules
				s.Conversion.SaleValue = 1000000
				s.Conversion.Items = []ConversionItem{
					{Sku: "V-20", Quantity: 1, SaleValue: 2000, Category: "Vouchers"},
					{Sku: "GC-50", Quantity: 1, SaleValue: 5000, Category: "Gift Cards"},
					{Sku: "GC-30", Quantity: 1, SaleValue: 3000, Category: "Gift Cards"},
				}
			},
			want: func(t *Transaction) {
				t.ReportedSaleValue, t.SaleValue, t.Commission = 1000000, 1000000, 30000
				t.Items = []TransactionItem{
					{Sku: "V-20", Quantity: 1, ReportedSaleValue: 2000, SaleValue: 2000, Category: "Vouchers"},
					{Sku: "GC-50", Quantity: 1, ReportedSaleValue: 5000, SaleValue: 5000, Category: "Gift Cards"},
					{Sku: "GC-30", Quantity: 1, ReportedSaleValue: 3000, SaleValue: 3000, Category: "Gift Cards"},
				}
			},
		},
		{
			name: "a Flat default pays its amount for a sale without items",
			sale: func(s *Sale) { s.Program.Commission = CommissionRule{Flat: Some(Money(75000))} },
			want: func(t *Transaction) { t.Commission = 75000 },
		},
		{
			name: "an affiliate rule prices the credited affiliate's sale",
			sale: func(s *Sale) {
				s.Program.Rules = []CommissionRule{
					{AffiliateID: Some(int64(41)), Percent: Some(Percent(500000))},
					{AffiliateID: Some(int64(42)), Percent: Some(Percent(200000))},
				}
			},
			// 20% of 123.4567 is 24.69134: 24.6913.
			want: func(t *Transaction) { t.Commission = 246913 },
		},
		{
			// 10% of 123.4600 is 12.3460; 12.5% of that is 1.54325: 1.5433.
			name: "the OverrideFee is the commission times OverrideFeePercent, rounded",
			sale: func(s *Sale) {
				s.Conversion.SaleValue = 1234600
				s.Program.OverrideFeePercent = 125000
			},
			want: func(t *Transaction) {
				t.ReportedSaleValue, t.SaleValue, t.Commission, t.OverrideFee = 1234600, 1234600, 123460, 15433
			},
		},
		{
			name: "a later ConsumptionDate is kept and moves the ValidationDate",
			sale: func(s *Sale) { s.Conversion.ConsumptionDate = Some(time.Date(2024, 3, 15, 9, 0, 0, 0, time.UTC)) },
			want: func(t *Transaction) {
				t.ConsumptionDate = time.Date(2024, 3, 15, 9, 0, 0, 0, time.UTC)
				t.ValidationDate = time.Date(2024, 5, 14, 9, 0, 0, 0, time.UTC) // 15 March + 60 days
			},
		},
		{
			name: "an earlier ConsumptionDate is kept and the ValidationDate counts from DateCreated",
			sale: func(s *Sale) { s.Conversion.ConsumptionDate = Some(time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)) },
			want: func(t *Transaction) { t.ConsumptionDate = time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC) },
		},
		{
			name:     "a ConsumptionDate whose validation date would pass the year 9999 is invalid",
			sale:     func(s *Sale) { s.Conversion.ConsumptionDate = Some(time.Date(9999, 12, 1, 0, 0, 0, 0, time.UTC)) },
			wantCode: EINVALID,
		},
		{
			name: "a ConsumptionDate whose validation date is the last day of 9999 is kept",
			sale: func(s *Sale) { s.Conversion.ConsumptionDate = Some(time.Date(9999, 11, 1, 0, 0, 0, 0, time.UTC)) },
			want: func(t *Transaction) {
				t.ConsumptionDate = time.Date(9999, 11, 1, 0, 0, 0, 0, time.UTC)
				t.ValidationDate = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC) // 1 November + 60 days
			},
		},
		{
			name: "zero ValidationDays make the ValidationDate the DateCreated",
			sale: func(s *Sale) { s.Program.ValidationDays = 0 },
			want: func(t *Transaction) { t.ValidationDate = convNow },
		},
		{
			name: "the click's country beats the body's alpha-2 code",
			sale: func(s *Sale) { s.Conversion.CustomerCountryCode = "NZ" },
			want: func(t *Transaction) {},
		},
		{
			name: "without the click's country the body's alpha-2 code becomes alpha-3 and a name",
			sale: func(s *Sale) {
				s.Credit.Click.CountryCode, s.Credit.Click.CountryName = "", ""
				s.Conversion.CustomerCountryCode = "nz"
			},
			want: func(t *Transaction) { t.CustomerCountryCode, t.CustomerCountryName = "NZL", "New Zealand" },
		},
		{
			name: "without the click's country the body's alpha-3 code is upper-cased and named",
			sale: func(s *Sale) {
				s.Credit.Click.CountryCode, s.Credit.Click.CountryName = "", ""
				s.Conversion.CustomerCountryCode = "usa"
			},
			want: func(t *Transaction) { t.CustomerCountryCode, t.CustomerCountryName = "USA", "United States" },
		},
		{
			name: "an unknown body country leaves the country empty",
			sale: func(s *Sale) {
				s.Credit.Click.CountryCode, s.Credit.Click.CountryName = "", ""
				s.Conversion.CustomerCountryCode = "XK"
			},
			want: func(t *Transaction) { t.CustomerCountryCode, t.CustomerCountryName = "", "" },
		},
		{
			name: "a pixel's text link click gives Cookie, Text Link and no creative",
			sale: func(s *Sale) {
				s.Conversion.Pixel = true
				s.Credit.Click.CreativeType, s.Credit.Click.CreativeID = CreativeTypeTextLink, Null[int64]{}
				s.Credit = Credit{Method: TrackingMethodCookie, AffiliateID: 42, Click: s.Credit.Click, CreativeType: CreativeTypeTextLink}
			},
			want: func(t *Transaction) {
				t.TrackingMethod, t.CreativeType = TrackingMethodCookie, CreativeTypeTextLink
				t.CreativeID, t.CreativeName = Null[int64]{}, Null[string]{}
			},
		},
		{
			name: "a coupon credit is Clickless with the code as creative, no IP and the body's country",
			sale: func(s *Sale) {
				s.Conversion.ClickID, s.Conversion.CouponCode = "", "SPRING10"
				s.Credit = Credit{Method: TrackingMethodClickless, AffiliateID: 55,
					CreativeType: CreativeTypeCoupon, CreativeName: Some("SPRING10")}
				s.Membership = Membership{AffiliateID: 55, MerchantID: 7, Status: MembershipJoined,
					TrafficType: TrafficTypeEmailList, TrafficSource: "newsletter", TrafficSourceApproved: false}
			},
			want: func(t *Transaction) {
				t.AffiliateID, t.TrackingMethod = 55, TrackingMethodClickless
				t.TrafficType, t.TrafficSource, t.TrafficSourceApproved = TrafficTypeEmailList, "newsletter", false
				t.CreativeType, t.CreativeID, t.CreativeName = CreativeTypeCoupon, Null[int64]{}, Some("SPRING10")
				t.CustomerIPAddress = ""
				t.CustomerCountryCode, t.CustomerCountryName = "NZL", "New Zealand"
			},
		},
		{
			name: "a SaleValue too large to convert is unprocessable",
			sale: func(s *Sale) {
				s.Conversion.CurrencyCode, s.Conversion.SaleValue, s.Rate = "USD", math.MaxInt64, 200_000_000
			},
			wantCode: EUNPROCESSABLE,
		},
		{
			// 20000.0005 at 92233718062.70480651: the exact product is
			// (2^64-1) x 10^8 + 52403255, which rounds to 2^64.
			name: "a converted SaleValue that rounds past 64 bits is unprocessable",
			sale: func(s *Sale) {
				s.Conversion.CurrencyCode, s.Conversion.SaleValue, s.Rate = "USD", 200000005, 9223371806270480651
			},
			wantCode: EUNPROCESSABLE,
		},
		{
			name: "a commission too large is unprocessable",
			sale: func(s *Sale) {
				s.Conversion.SaleValue = math.MaxInt64
				s.Program.Commission = CommissionRule{Percent: Some(Percent(2_000_000))} // 200%
			},
			wantCode: EUNPROCESSABLE,
		},
		{
			name: "an item too large to convert is unprocessable",
			sale: func(s *Sale) {
				s.Conversion.CurrencyCode, s.Rate = "USD", 200_000_000
				s.Conversion.Items = []ConversionItem{{Sku: "X", Quantity: 1, SaleValue: math.MaxInt64}}
			},
			wantCode: EUNPROCESSABLE,
		},
		{
			// Each item pays 100% of MaxInt64/150 cents; together they
			// exceed what Money holds once multiplied by 100.
			name: "item commissions beyond what Money holds are unprocessable",
			sale: func(s *Sale) {
				s.Program.Commission = CommissionRule{Percent: Some(Percent(1_000_000))}
				s.Conversion.Items = []ConversionItem{
					{Sku: "X", Quantity: 1, SaleValue: math.MaxInt64 / 150},
					{Sku: "Y", Quantity: 1, SaleValue: math.MaxInt64 / 150},
				}
			},
			wantCode: EUNPROCESSABLE,
		},
		{
			// Two items paying 100% of MaxInt64 cents sum to 2^64-2,
			// which an int64 sum wraps to -2.
			name: "item commissions whose sum overflows 64 bits are unprocessable",
			sale: func(s *Sale) {
				s.Program.Commission = CommissionRule{Percent: Some(Percent(1_000_000))}
				s.Conversion.Items = []ConversionItem{
					{Sku: "X", Quantity: 1, SaleValue: math.MaxInt64},
					{Sku: "Y", Quantity: 1, SaleValue: math.MaxInt64},
				}
			},
			wantCode: EUNPROCESSABLE,
		},
		{
			name: "an OverrideFee too large is unprocessable",
			sale: func(s *Sale) {
				s.Program.Commission = CommissionRule{Flat: Some(Money(math.MaxInt64))}
				s.Program.OverrideFeePercent = 2_000_000 // 200%
			},
			wantCode: EUNPROCESSABLE,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := saleFixture()
			tt.sale(s)
			got, err := s.Transaction()
			if code := ErrorCode(err); code != tt.wantCode {
				if got != nil {
					t.Fatalf("Transaction() error = %v, want code %q; got SaleValue %v, Commission %v", err, tt.wantCode, got.SaleValue, got.Commission)
				}
				t.Fatalf("Transaction() error = %v, want code %q", err, tt.wantCode)
			}
			if tt.wantCode != "" {
				if got != nil {
					t.Errorf("Transaction() = %+v with an error, want nil", got)
				}
				return
			}
			want := saleWant()
			tt.want(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Transaction() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
