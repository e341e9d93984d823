package importfile_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/importfile"
)

func at(s string) time.Time {
	t, err := time.Parse("2006-01-02T15:04:05.000", s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseReadsEveryField(t *testing.T) {
	f, err := os.Open("testdata/full.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sydney, err := time.LoadLocation("Australia/Sydney")
	if err != nil {
		t.Fatal(err)
	}
	got, err := importfile.Parse(f, sydney)
	if err != nil {
		t.Fatal(err)
	}
	created := at("2024-01-02T03:04:05.678")
	want := &afftrack.Dataset{
		Merchants: []afftrack.MerchantRecord{{
			Merchant: afftrack.Merchant{ID: 1, Name: "Example Pty Ltd", AvatarURL: "https://example.com/a.png",
				Status:    afftrack.AccountActive,
				RateLimit: afftrack.RateLimit{PerMinute: afftrack.Some[int64](60), Concurrent: afftrack.Some[int64](0)}},
			APIKeys: []string{"merchant-one-key-000001"},
		}},
		Affiliates: []afftrack.AffiliateRecord{{
			Affiliate: afftrack.Affiliate{ID: 7, ContactName: "John Smith", BusinessName: "Example Pty Ltd",
				Status: afftrack.AccountSuspended, GSTRegistered: true},
			APIKeys: []string{"affiliate-seven-key-01"},
		}},
		Memberships: []afftrack.Membership{{AffiliateID: 7, MerchantID: 1, Status: afftrack.MembershipJoined}},
		Transactions: []afftrack.TransactionRecord{{
			Transaction: afftrack.Transaction{
				ID: 1, MerchantID: 1, DateCreated: created,
				DateModified:    at("2024-01-03T21:00:00.000"), // 10:00Z is 21:00 in Sydney's summer
				ConsumptionDate: created, ValidationDate: created, AffiliateID: 7,
				TrafficType: afftrack.TrafficTypeWebsite, TrafficSource: "https://www.example.com/",
				CreativeType: afftrack.CreativeTypeTextLink, CustomerCountryCode: "AUS", CustomerCountryName: "Australia",
				CustomerIPAddress: "0123456789abcdef0123456789abcdef", CustomerType: afftrack.CustomerTypeNew,
				OrderID: "T0001", TrackingMethod: afftrack.TrackingMethodCookie,
				SaleValue: 1000000, Commission: 105000, OverrideFee: 25000,
				ReportedCurrencyCode: "AUD", ReportedCurrencyName: "Australian Dollar", ReportedSaleValue: 1000000,
				TrafficSourceApproved: true, Status2: afftrack.Status2Paid, InvoiceID: afftrack.Some[int64](12345),
				CouponCode: afftrack.Some("FREE101"), PlacementID: afftrack.Some[int64](3), PlacementName: afftrack.Some("Top"),
				Items: []afftrack.TransactionItem{{
					Sku: "P0001", Quantity: 1, ReportedSaleValue: 5000, SaleValue: 5000, Commission: 500,
					Name: "Example Product 1", Brand: "Example Brand 1", Category: "Clothing",
					CartItemReference: afftrack.Some("42"), CartItemReference2: afftrack.Some("abc"),
				}},
			},
			ClaimedContactName: afftrack.Some("John Smith"),
		}},
		Banners: []afftrack.Banner{{ID: 3, MerchantID: 1, DateCreated: at("2000-01-01T00:00:00.000"),
			DateModified: at("2000-01-01T00:00:00.000"), GroupName: " Default Group", Name: "Banner 1",
			TargetURL: "https://www.example.com/", Width: 468, Height: 60, ImageURL: "https://img/1", AltText: "Alt"}},
		Invoices: []afftrack.Invoice{{ID: 9, AffiliateID: 7, DateCreated: at("2000-01-01T00:00:00.000"),
			DatePaid: at("2000-01-02T00:00:00.000"), Number: "CF-1-0001", Description: "Commissions",
			SubTotal: 1000000, Total: 1000000}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse mismatch (-want +got):\n%s", diff)
	}
}

// tx is a minimal valid transaction; tests splice one field in or out.
const tx = `"Id": 1, "MerchantId": 1, "AffiliateId": 1, "DateCreated": "2024-01-01", "TrafficType": "Website",
 "CreativeType": "Text Link", "CustomerType": "New", "TrackingMethod": "Cookie"`

func TestParseRejectsBadRecords(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"a document that is not an object", `[1]`, "the import file must be one JSON object"},
		{"broken JSON", `{"Merchants": [`, "invalid JSON"},
		{"an unknown collection", `{"Merchant": []}`, "Merchant: is not a collection"},
		{"a collection that is not an array", `{"Merchants": {}}`, "Merchants: must be a JSON array"},
		{"a record that is not an object", `{"Merchants": [1]}`, "Merchants[0]: must be a JSON object"},
		{"a missing id", `{"Merchants": [{"Name": "x"}]}`, "Merchants[0].Id: is required"},
		{"a zero id", `{"Merchants": [{"Id": 0, "Name": "x"}]}`, "Merchants[0].Id: 0 is not a valid id"},
		{"a fractional id", `{"Merchants": [{"Id": 1.5, "Name": "x"}]}`, "Merchants[0].Id: 1.5 is not an integer"},
		{"a quoted id", `{"Merchants": [{"Id": "1", "Name": "x"}]}`, `Merchants[0].Id: "1" is not an integer`},
		{"an id beyond int64", `{"Merchants": [{"Id": 9223372036854775808, "Name": "x"}]}`, "is not an integer"},
		{"an unknown field", `{"Merchants": [{"Id": 1, "Name": "x", "Nmae": "y"}]}`, "Merchants[0].Nmae: is not a field of this record"},
		{"an unknown account status", `{"Affiliates": [{"Id": 1, "ContactName": "x", "Status": "Gone"}]}`,
			`Affiliates[0].Status: "Gone" is not one of Active, Suspended, Closed`},
		{"a negative rate limit", `{"Merchants": [{"Id": 1, "Name": "x", "RateLimit": {"PerDay": -1}}]}`,
			"Merchants[0].RateLimit.PerDay: -1 is negative"},
		{"an empty key", `{"Merchants": [{"Id": 1, "Name": "x", "ApiKeys": [""]}]}`, "Merchants[0].ApiKeys[0]: a key must be"},
		{"a key with a space", `{"Merchants": [{"Id": 1, "Name": "x", "ApiKeys": ["a b"]}]}`, "Merchants[0].ApiKeys[0]"},
		{"a bad boolean", `{"Affiliates": [{"Id": 1, "ContactName": "x", "GstRegistered": "yes"}]}`,
			`Affiliates[0].GstRegistered: "yes" is not a boolean`},
		{"too many fractional digits", `{"Transactions": [{` + tx + `, "Status2": "Pending", "SaleValue": 1.23456}]}`,
			`Transactions[0].SaleValue: "1.23456" has more than 4 fractional digits`},
		{"item money with three digits", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Items": [{"Sku": "a", "Quantity": 1, "SaleValue": 1.005}]}]}`,
			`Transactions[0].Items[0].SaleValue: "1.005" has more than 2 fractional digits`},
		{"money as a string", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Commission": "1.00"}]}`,
			`Transactions[0].Commission: "1.00" must be a JSON number, not a string`},
		{"a bad date", `{"Transactions": [{` + tx + `, "Status2": "Pending", "DateModified": "2024-02-30"}]}`,
			`Transactions[0].DateModified: "2024-02-30" is not a date`},
		{"an unknown enum value", `{"Transactions": [{` + tx + `, "Status2": "Done"}]}`,
			`Transactions[0].Status2: "Done" is not one of Pending, Locked, Approved, Paid, Void`},
		{"a missing Status2", `{"Transactions": [{` + tx + `}]}`, "Transactions[0].Status2: is required"},
		{"a Paid transaction without an invoice", `{"Transactions": [{` + tx + `, "Status2": "Paid"}]}`,
			"Transactions[0].InvoiceId: a Paid transaction must have an InvoiceId"},
		{"a Void transaction without a reason", `{"Transactions": [{` + tx + `, "Status2": "Void"}]}`,
			"Transactions[0].VoidReason: a Void transaction must have a VoidReason"},
		{"a pending transaction with an invoice", `{"Transactions": [{` + tx + `, "Status2": "Pending", "InvoiceId": 4}]}`,
			"Transactions[0].InvoiceId: only a Paid transaction has an InvoiceId"},
		{"a void reason on an approved transaction", `{"Transactions": [{` + tx + `, "Status2": "Approved", "VoidReason": "Cancelled Order"}]}`,
			"Transactions[0].VoidReason: only a Void transaction has a VoidReason"},
		{"a Status that disagrees", `{"Transactions": [{` + tx + `, "Status2": "Locked", "Status": "Approved"}]}`,
			`Transactions[0].Status: "Approved" does not agree with Status2 "Locked"`},
		{"a control character", `{"Transactions": [{` + tx + `, "Status2": "Pending", "OrderId": "a\u0001b"}]}`,
			"Transactions[0].OrderId: contains a character XML cannot carry"},
		{"an item without a quantity", `{"Transactions": [{` + tx + `, "Status2": "Pending", "Items": [{"Sku": "a"}]}]}`,
			"Transactions[0].Items[0].Quantity: is required"},
		{"a banner without size", `{"Banners": [{"Id": 1, "MerchantId": 1, "DateCreated": "2024-01-01", "Width": 0, "Height": 60}]}`,
			"Banners[0].Width: a banner's width and height must be positive"},
		{"an invoice with a bad GST", `{"Invoices": [{"Id": 1, "AffiliateId": 1, "DateCreated": "2024-01-01", "GST": 1.00001}]}`,
			"Invoices[0].GST"},
		{"the second record is the bad one", `{"Merchants": [{"Id": 1, "Name": "x"}, {"Id": 2}]}`, "Merchants[1].Name: is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is rejected with a precise message", func(t *testing.T) {
			_, err := importfile.Parse(strings.NewReader(tt.doc), time.UTC)
			if err == nil {
				t.Fatalf("Parse accepted %s", tt.doc)
			}
			if afftrack.ErrorCode(err) != afftrack.EINVALID {
				t.Errorf("code = %s, want %s", afftrack.ErrorCode(err), afftrack.EINVALID)
			}
			if msg := afftrack.ErrorMessage(err); !strings.Contains(msg, tt.want) {
				t.Errorf("message = %q, want it to contain %q", msg, tt.want)
			}
		})
	}
}

func TestParseAcceptsSparseRecords(t *testing.T) {
	doc := `{"Merchants": null, "transactions": [{` + tx + `, "Status2": "Void", "VoidReason": "cancelled order", "Items": null}]}`
	d, err := importfile.Parse(strings.NewReader(doc), time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	got := d.Transactions[0].Transaction
	if got.DateModified != got.DateCreated || got.VoidReason != afftrack.VoidReasonCancelledOrder || got.Items != nil {
		t.Errorf("defaults not applied: %+v", got)
	}
}

func FuzzParse(f *testing.F) {
	full, err := os.ReadFile("testdata/full.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(full))
	f.Add(`{"Transactions": [{` + tx + `, "Status2": "Pending"}]}`)
	f.Add(`{"Merchants": [{"Id": 1, "Name": "x", "RateLimit": {"PerDay": 5}}]}`)
	f.Fuzz(func(t *testing.T, doc string) {
		d, err := importfile.Parse(strings.NewReader(doc), time.UTC)
		if err != nil {
			if afftrack.ErrorCode(err) != afftrack.EINVALID {
				t.Fatalf("error %v has code %s, want invalid", err, afftrack.ErrorCode(err))
			}
			return
		}
		for _, r := range d.Transactions {
			if err := r.Validate(); err != nil {
				t.Fatalf("accepted a transaction that breaks an invariant: %v", err)
			}
		}
	})
}
