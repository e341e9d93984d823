package afftrack

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	// convNow is when the conversion arrives: a wall clock of the
	// network's zone, carried in UTC.
	convNow     = time.Date(2024, 3, 10, 14, 30, 0, 0, time.UTC)
	convClickID = "0123456789abcdef0123456789abcdef"
	convIPHash  = "5f2b9c0d1e3a4b6c7d8e9f0a1b2c3d4e"
)

// convClick is a credited banner click of merchant 7 by affiliate 42, two
// hours before convNow.
func convClick() *Click {
	return &Click{ID: convClickID, Time: convNow.Add(-2 * time.Hour), MerchantID: 7, AffiliateID: 42,
		CreativeType: CreativeTypeBanner, CreativeID: Some(int64(9)), Referer: "https://blog.example.com/post",
		IPHash: convIPHash, CountryCode: "AUS", CountryName: "Australia", Credited: true,
		UniqueIDs: [4]string{"sub1"}}
}

// convCoupon is merchant 7's exclusive coupon for affiliate 55, valid in
// March 2024.
func convCoupon() *Coupon {
	return &Coupon{ID: 3, MerchantID: 7, Code: "SPRING10", AffiliateID: Some(int64(55)),
		StartDate: Some(time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)),
		EndDate:   Some(time.Date(2024, 3, 31, 0, 0, 0, 0, time.UTC))}
}

func TestAttribute(t *testing.T) {
	program := &Program{MerchantID: 7, CookieDays: 30, Commission: CommissionRule{Percent: Some(Percent(100000))}}
	couponCredit := Credit{Method: TrackingMethodClickless, AffiliateID: 55,
		CreativeType: CreativeTypeCoupon, CreativeName: Some("SPRING10")}
	clickCredit := func(method TrackingMethod, click *Click) Credit {
		return Credit{Method: method, AffiliateID: 42, Click: click,
			CreativeType: CreativeTypeBanner, CreativeID: Some(int64(9))}
	}
	tests := []struct {
		name     string
		conv     func(c *Conversion)
		coupon   func(c *Coupon) *Coupon // nil: no coupon found
		click    func(c *Click) *Click   // nil: no click found
		want     func(click *Click) Credit
		wantCode string
	}{
		{
			name:   "a valid exclusive coupon beats a click",
			coupon: func(c *Coupon) *Coupon { return c },
			click:  func(c *Click) *Click { return c },
			want:   func(*Click) Credit { return couponCredit },
		},
		{
			name:   "a valid exclusive coupon credits without a click",
			conv:   func(c *Conversion) { c.ClickID = "" },
			coupon: func(c *Coupon) *Coupon { return c },
			want:   func(*Click) Credit { return couponCredit },
		},
		{
			name:   "a public coupon does not credit, so the click does",
			coupon: func(c *Coupon) *Coupon { c.AffiliateID = Null[int64]{}; return c },
			click:  func(c *Click) *Click { return c },
			want:   func(click *Click) Credit { return clickCredit(TrackingMethodServer, click) },
		},
		{
			name:     "a public coupon without a click is unprocessable",
			conv:     func(c *Conversion) { c.ClickID = "" },
			coupon:   func(c *Coupon) *Coupon { c.AffiliateID = Null[int64]{}; return c },
			wantCode: EUNPROCESSABLE,
		},
		{
			name:   "an expired coupon falls back to the click",
			coupon: func(c *Coupon) *Coupon { c.EndDate = Some(time.Date(2024, 3, 9, 0, 0, 0, 0, time.UTC)); return c },
			click:  func(c *Click) *Click { return c },
			want:   func(click *Click) Credit { return clickCredit(TrackingMethodServer, click) },
		},
		{
			name:   "a coupon not yet started falls back to the click",
			coupon: func(c *Coupon) *Coupon { c.StartDate = Some(time.Date(2024, 3, 11, 0, 0, 0, 0, time.UTC)); return c },
			click:  func(c *Click) *Click { return c },
			want:   func(click *Click) Credit { return clickCredit(TrackingMethodServer, click) },
		},
		{
			name:     "an expired coupon without a click is unprocessable",
			conv:     func(c *Conversion) { c.ClickID = "" },
			coupon:   func(c *Coupon) *Coupon { c.EndDate = Some(time.Date(2024, 3, 9, 0, 0, 0, 0, time.UTC)); return c },
			wantCode: EUNPROCESSABLE,
		},
		{
			name:   "another merchant's coupon falls back to the click",
			coupon: func(c *Coupon) *Coupon { c.MerchantID = 8; return c },
			click:  func(c *Click) *Click { return c },
			want:   func(click *Click) Credit { return clickCredit(TrackingMethodServer, click) },
		},
		{
			name:  "a click credits as Server",
			click: func(c *Click) *Click { return c },
			want:  func(click *Click) Credit { return clickCredit(TrackingMethodServer, click) },
		},
		{
			name:  "a pixel's click credits as Cookie",
			conv:  func(c *Conversion) { c.Pixel = true },
			click: func(c *Click) *Click { return c },
			want:  func(click *Click) Credit { return clickCredit(TrackingMethodCookie, click) },
		},
		{
			name: "a text link's click credits without a creative id",
			click: func(c *Click) *Click {
				c.CreativeType, c.CreativeID = CreativeTypeTextLink, Null[int64]{}
				return c
			},
			want: func(click *Click) Credit {
				return Credit{Method: TrackingMethodServer, AffiliateID: 42, Click: click, CreativeType: CreativeTypeTextLink}
			},
		},
		{
			name:     "a click on another merchant's link is unprocessable",
			click:    func(c *Click) *Click { c.MerchantID = 8; return c },
			wantCode: EUNPROCESSABLE,
		},
		{
			name:     "an uncredited click is unprocessable",
			click:    func(c *Click) *Click { c.Credited = false; return c },
			wantCode: EUNPROCESSABLE,
		},
		{
			name:     "an unknown click is unprocessable",
			wantCode: EUNPROCESSABLE,
		},
		{
			name:  "a click exactly CookieDays old is still credited",
			click: func(c *Click) *Click { c.Time = convNow.Add(-30 * 24 * time.Hour); return c },
			want:  func(click *Click) Credit { return clickCredit(TrackingMethodServer, click) },
		},
		{
			name:     "a click older than CookieDays is unprocessable",
			click:    func(c *Click) *Click { c.Time = convNow.Add(-30*24*time.Hour - time.Millisecond); return c },
			wantCode: EUNPROCESSABLE,
		},
		{
			name:     "no click and no coupon is unprocessable",
			conv:     func(c *Conversion) { c.ClickID = "" },
			wantCode: EUNPROCESSABLE,
		},
		{
			name:     "a coupon code no coupon matches and no click is unprocessable",
			conv:     func(c *Conversion) { c.ClickID, c.CouponCode = "", "NOSUCH" },
			wantCode: EUNPROCESSABLE,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Conversion{MerchantID: 7, ClickID: convClickID, OrderID: "ORD-1001", SaleValue: 1000000,
				CurrencyCode: "AUD", CustomerType: CustomerTypeNew, CouponCode: "SPRING10"}
			if tt.conv != nil {
				tt.conv(c)
			}
			var coupon *Coupon
			if tt.coupon != nil {
				coupon = tt.coupon(convCoupon())
			}
			var click *Click
			if tt.click != nil {
				click = tt.click(convClick())
			}
			got, err := Attribute(c, program, coupon, click, convNow)
			if code := ErrorCode(err); code != tt.wantCode {
				t.Fatalf("Attribute() error = %v, want code %q", err, tt.wantCode)
			}
			if tt.wantCode != "" {
				return
			}
			if diff := cmp.Diff(tt.want(click), got); diff != "" {
				t.Errorf("Attribute() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConversionFingerprint(t *testing.T) {
	base := func() *Conversion {
		return &Conversion{MerchantID: 7, ClickID: convClickID, OrderID: "ORD-1001", SaleValue: 1150000,
			CurrencyCode: "USD", CustomerType: CustomerTypeNew, CouponCode: "SPRING10",
			ConsumptionDate: Some(time.Date(2024, 3, 9, 18, 0, 0, 0, time.UTC)),
			AdditionalNotes: Some("gift wrap"), CustomerCountryCode: "NZL",
			Items: []ConversionItem{
				{Sku: "SH-1", Quantity: 1, SaleValue: 7500, Name: "Runner", Brand: "Fleet", Category: "Shoes"},
				{Sku: "BK-2", Quantity: 2, SaleValue: 4000, Name: "Atlas", Brand: "Maps Co", Category: "Books"},
			}}
	}
	want := base().Fingerprint()

	t.Run("equal content gives an equal fingerprint", func(t *testing.T) {
		c := base()
		c.Items = slices.Clone(c.Items)
		if got := c.Fingerprint(); got != want {
			t.Errorf("Fingerprint() = %s, want %s", got, want)
		}
	})
	t.Run("the fingerprint is 64 hex digits", func(t *testing.T) {
		if len(want) != 64 || !IsClickID(want[:32]) || !IsClickID(want[32:]) {
			t.Errorf("Fingerprint() = %q, want 64 lowercase hex digits", want)
		}
	})
	t.Run("the pixel is not content", func(t *testing.T) {
		c := base()
		c.Pixel = true
		if got := c.Fingerprint(); got != want {
			t.Errorf("Fingerprint() with Pixel = %s, want %s", got, want)
		}
	})

	mutators := []struct {
		name string
		edit func(c *Conversion)
	}{
		{"another MerchantId", func(c *Conversion) { c.MerchantID = 8 }},
		{"another ClickId", func(c *Conversion) { c.ClickID = "fedcba9876543210fedcba9876543210" }},
		{"no ClickId", func(c *Conversion) { c.ClickID = "" }},
		{"another OrderId", func(c *Conversion) { c.OrderID = "ORD-1002" }},
		{"a ClickId letter moved into the OrderId", func(c *Conversion) {
			c.ClickID, c.OrderID = c.ClickID[:31], c.ClickID[31:]+c.OrderID
		}},
		{"another SaleValue", func(c *Conversion) { c.SaleValue++ }},
		{"another CurrencyCode", func(c *Conversion) { c.CurrencyCode = "AUD" }},
		{"another CustomerType", func(c *Conversion) { c.CustomerType = CustomerTypeReturn }},
		{"another CouponCode", func(c *Conversion) { c.CouponCode = "SPRING20" }},
		{"another ConsumptionDate", func(c *Conversion) { c.ConsumptionDate.Value = c.ConsumptionDate.Value.Add(time.Second) }},
		{"a null ConsumptionDate", func(c *Conversion) { c.ConsumptionDate = Null[time.Time]{} }},
		{"a ConsumptionDate at the epoch", func(c *Conversion) { c.ConsumptionDate = Some(time.Unix(0, 0).UTC()) }},
		{"other AdditionalNotes", func(c *Conversion) { c.AdditionalNotes = Some("no gift wrap") }},
		{"null AdditionalNotes", func(c *Conversion) { c.AdditionalNotes = Null[string]{} }},
		{"empty AdditionalNotes", func(c *Conversion) { c.AdditionalNotes = Some("") }},
		{"another CustomerCountryCode", func(c *Conversion) { c.CustomerCountryCode = "AUS" }},
		{"no items", func(c *Conversion) { c.Items = nil }},
		{"an item fewer", func(c *Conversion) { c.Items = c.Items[:1] }},
		{"an item more", func(c *Conversion) { c.Items = append(c.Items, ConversionItem{Sku: "MI-3", Quantity: 1}) }},
		{"the items in another order", func(c *Conversion) { c.Items[0], c.Items[1] = c.Items[1], c.Items[0] }},
		{"another item Sku", func(c *Conversion) { c.Items[1].Sku = "BK-3" }},
		{"another item Quantity", func(c *Conversion) { c.Items[1].Quantity = 3 }},
		{"another item SaleValue", func(c *Conversion) { c.Items[1].SaleValue = 4001 }},
		{"another item Name", func(c *Conversion) { c.Items[1].Name = "Globe" }},
		{"another item Brand", func(c *Conversion) { c.Items[1].Brand = "Maps Inc" }},
		{"another item Category", func(c *Conversion) { c.Items[1].Category = "Maps" }},
		{"an item's Name moved into its Brand", func(c *Conversion) {
			c.Items[1].Name, c.Items[1].Brand = "", c.Items[1].Name+c.Items[1].Brand
		}},
	}
	for _, m := range mutators {
		t.Run(m.name+" gives another fingerprint", func(t *testing.T) {
			c := base()
			m.edit(c)
			if got := c.Fingerprint(); got == want {
				t.Errorf("Fingerprint() with %s = %s, the same as the original's", m.name, got)
			}
		})
	}
}
