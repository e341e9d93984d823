package sqlstore_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// findProgram returns the merchant's program and fails the test on error.
func findProgram(t *testing.T, db *sqlstore.DB, merchantID int64) *afftrack.Program {
	t.Helper()
	p, err := sqlstore.NewProgramService(db).FindProgram(context.Background(), merchantID)
	if err != nil {
		t.Fatalf("FindProgram(%d): %v", merchantID, err)
	}
	return p
}

// ignoreBannerHosts leaves out of a comparison what a program read back
// takes from its merchant's banners, not from the import; the tests of
// FindProgram and FindLink check it.
var ignoreBannerHosts = cmpopts.IgnoreFields(afftrack.Program{}, "BannerHosts")

func TestProgramImportRoundTrip(t *testing.T) {
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		d := trackingLoaded(t, db)
		tests := []struct {
			name string
			want afftrack.Program
		}{
			{"a program with every field and a rule of every kind reads back exactly, rules in order",
				trackingProgram1()},
			{"a plain program reads back exactly", d.Programs[1]},
			{"a program without TargetUrl reads back with none", d.Programs[4]},
			{"a program without Commission reads back with neither Percent nor Flat", d.Programs[5]},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				want := tt.want
				if diff := cmp.Diff(&want, findProgram(t, db, want.MerchantID), ignoreBannerHosts); diff != "" {
					t.Errorf("program (-want +got):\n%s", diff)
				}
			})
		}

		t.Run("importing a changed program replaces its rules and domains whole", func(t *testing.T) {
			changed := afftrack.Program{
				MerchantID:     1,
				TargetURL:      "http://new.one.example/landing",
				AllowedDomains: []string{"new.example"},
				CookieDays:     7,
				ValidationDays: 0,
				Prepaid:        false,
				ClickAppend:    "",
				Commission:     afftrack.CommissionRule{Flat: flat(25000)},
				Rules: []afftrack.CommissionRule{
					{CustomerType: afftrack.CustomerTypeNew, Flat: flat(10000)},
					{Category: afftrack.Some("toys"), Percent: pct(1)},
				},
				OverrideFeePercent: 0,
			}
			m := d.Merchants[0]
			mustImport(t, db, &afftrack.Dataset{Merchants: []afftrack.MerchantRecord{m},
				Programs: []afftrack.Program{changed}, ProgramAt: []int{0}})
			if diff := cmp.Diff(&changed, findProgram(t, db, 1), ignoreBannerHosts); diff != "" {
				t.Errorf("program (-want +got):\n%s", diff)
			}
			if n := countRows(t, db, "program_rules"); n != 2 {
				t.Errorf("program_rules holds %d rows, want 2 (the new program's)", n)
			}
			if n := countRows(t, db, "program_domains"); n != 1 {
				t.Errorf("program_domains holds %d rows, want 1 (the new program's)", n)
			}

			bare := changed
			bare.AllowedDomains, bare.Rules = nil, nil
			mustImport(t, db, &afftrack.Dataset{Merchants: []afftrack.MerchantRecord{m},
				Programs: []afftrack.Program{bare}, ProgramAt: []int{0}})
			if diff := cmp.Diff(&bare, findProgram(t, db, 1), cmpopts.EquateEmpty(), ignoreBannerHosts); diff != "" {
				t.Errorf("program without rules or domains (-want +got):\n%s", diff)
			}
		})
		t.Run("another merchant's program is left alone by the replacement", func(t *testing.T) {
			want := d.Programs[1]
			if diff := cmp.Diff(&want, findProgram(t, db, 2), ignoreBannerHosts); diff != "" {
				t.Errorf("program (-want +got):\n%s", diff)
			}
		})
	})
}

func TestProgramImportErrors(t *testing.T) {
	tests := []struct {
		name    string
		coupon  afftrack.Coupon
		message string
	}{
		{"a coupon naming an unknown affiliate fails naming its AffiliateId",
			afftrack.Coupon{ID: 90, MerchantID: 1, Code: "X", AffiliateID: afftrack.Some[int64](99)},
			"Coupons[1].AffiliateId: affiliate 99 does not exist"},
		{"a coupon naming an unknown merchant fails naming its MerchantId",
			afftrack.Coupon{ID: 90, MerchantID: 98, Code: "X"},
			"Coupons[1].MerchantId: merchant 98 does not exist"},
		{"a merchant id is not an affiliate id",
			afftrack.Coupon{ID: 90, MerchantID: 1, Code: "X", AffiliateID: afftrack.Some[int64](8)},
			"Coupons[1].AffiliateId: affiliate 8 does not exist"},
	}
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		trackingLoaded(t, db)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				d := &afftrack.Dataset{
					Programs:  []afftrack.Program{trackingProgram(3, "https://three.example/")},
					ProgramAt: []int{0},
					Merchants: []afftrack.MerchantRecord{{Merchant: afftrack.Merchant{ID: 3, Name: "No Program",
						Status: afftrack.AccountActive}}},
					Coupons: []afftrack.Coupon{{ID: 80, MerchantID: 1, Code: "FINE"}, tt.coupon},
				}
				_, err := sqlstore.NewImportService(db).Import(context.Background(), d)
				wantError(t, err, afftrack.EINVALID, tt.message)
				// All or nothing: neither the good coupon nor the program
				// of the failed import is stored.
				if n := countRows(t, db, "coupons"); n != 3 {
					t.Errorf("coupons holds %d rows, want the 3 imported before", n)
				}
				_, err = sqlstore.NewProgramService(db).FindProgram(context.Background(), 3)
				wantCode(t, err, afftrack.ENOTFOUND)
			})
		}
	})
}

func TestFindAndSetProgram(t *testing.T) {
	ctx := context.Background()
	eachTransactionStore(t, func(t *testing.T, db *sqlstore.DB) {
		trackingLoaded(t, db)
		s := sqlstore.NewProgramService(db)
		t.Run("a merchant without a program has none", func(t *testing.T) {
			_, err := s.FindProgram(ctx, 3)
			wantCode(t, err, afftrack.ENOTFOUND)
			if msg := afftrack.ErrorMessage(err); msg != "merchant 3 has no program" {
				t.Errorf("message %q, want the merchant's missing program named", msg)
			}
		})
		t.Run("an unknown merchant is not found", func(t *testing.T) {
			_, err := s.FindProgram(ctx, 99)
			wantCode(t, err, afftrack.ENOTFOUND)
			if msg := afftrack.ErrorMessage(err); msg != "merchant 99 not found" {
				t.Errorf("message %q, want the merchant named not found", msg)
			}
		})
		t.Run("setting the program of an unknown merchant is not found and stores nothing", func(t *testing.T) {
			p := trackingProgram(99, "https://nowhere.example/")
			wantCode(t, s.SetProgram(ctx, &p), afftrack.ENOTFOUND)
			if n := countRows(t, db, "programs"); n != 6 {
				t.Errorf("programs holds %d rows, want 6", n)
			}
		})
		t.Run("setting the program of a merchant without one creates it", func(t *testing.T) {
			p := trackingProgram1()
			p.MerchantID = 3
			if err := s.SetProgram(ctx, &p); err != nil {
				t.Fatal(err)
			}
			p.BannerHosts = []string{"three.example"} // read with the program, never set by it
			if diff := cmp.Diff(&p, findProgram(t, db, 3)); diff != "" {
				t.Errorf("program (-want +got):\n%s", diff)
			}
		})
		t.Run("setting the program of a merchant with one replaces it whole", func(t *testing.T) {
			p := afftrack.Program{MerchantID: 1, TargetURL: "https://replaced.example/",
				AllowedDomains: []string{"a.example", "b.example", "c.example"}, CookieDays: 1, ValidationDays: 2,
				ClickAppend: "x=[AffiliateId]", Commission: afftrack.CommissionRule{Percent: pct(10)},
				Rules:              []afftrack.CommissionRule{{AffiliateID: afftrack.Some[int64](3), Percent: pct(20)}},
				OverrideFeePercent: 1}
			if err := s.SetProgram(ctx, &p); err != nil {
				t.Fatal(err)
			}
			p.BannerHosts = []string{"shop.one.example"}
			if diff := cmp.Diff(&p, findProgram(t, db, 1)); diff != "" {
				t.Errorf("program (-want +got):\n%s", diff)
			}
			// Merchant 3's program (5 rules, 2 domains) is untouched.
			if n := countRows(t, db, "program_rules"); n != 1+5 {
				t.Errorf("program_rules holds %d rows, want 6", n)
			}
		})
	})
}
