package sqlstore_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

const unauthorizedMessage = "The API key is missing, invalid, or for a different account type; or the user account has been suspended or closed."

func TestAuthenticate(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		loaded(t, db)
		s := sqlstore.NewAccountService(db)
		ctx := context.Background()
		tests := []struct {
			name   string
			secret string
			want   *afftrack.Account
		}{
			{"a merchant's key gives the merchant and its null limits", secretMerchant1, &afftrack.Account{
				Ref: afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 1}, Status: afftrack.AccountActive}},
			{"a merchant's own limits come with it, 0 included", secretMerchant2, &afftrack.Account{
				Ref: afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 2}, Status: afftrack.AccountActive,
				RateLimit: afftrack.RateLimit{PerMinute: afftrack.Some[int64](60), PerDay: afftrack.Some[int64](0),
					Concurrent: afftrack.Some[int64](2)}}},
			{"an affiliate's key gives the affiliate", secretAffiliate1, &afftrack.Account{
				Ref: afftrack.AccountRef{Kind: afftrack.KindAffiliate, ID: 1}, Status: afftrack.AccountActive}},
			{"a suspended account's key still authenticates, with its status", secretAffiliate2, &afftrack.Account{
				Ref: afftrack.AccountRef{Kind: afftrack.KindAffiliate, ID: 2}, Status: afftrack.AccountSuspended,
				RateLimit: afftrack.RateLimit{PerDay: afftrack.Some[int64](5)}}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.Authenticate(ctx, afftrack.HashKey(tt.secret))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(got.KeyID, "k_") {
					t.Errorf("KeyID = %q, want the key's public id", got.KeyID)
				}
				got.KeyID = "" // random, checked above
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("account (-want +got):\n%s", diff)
				}
			})
		}
		t.Run("an unknown key is unauthorized", func(t *testing.T) {
			_, err := s.Authenticate(ctx, afftrack.HashKey("nobody's key"))
			wantError(t, err, afftrack.EUNAUTHORIZED, unauthorizedMessage)
		})
		t.Run("a revoked key is unauthorized", func(t *testing.T) {
			keys, err := s.ListKeys(ctx, afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 1})
			if err != nil || len(keys) != 1 {
				t.Fatalf("ListKeys = %v, %v; want one key", keys, err)
			}
			if err := s.RevokeKey(ctx, keys[0].ID, dt(t, "2024-05-01T00:00:00")); err != nil {
				t.Fatal(err)
			}
			_, err = s.Authenticate(ctx, afftrack.HashKey(secretMerchant1))
			wantError(t, err, afftrack.EUNAUTHORIZED, unauthorizedMessage)
		})
		t.Run("a key whose account does not exist is unauthorized", func(t *testing.T) {
			k := &afftrack.Key{ID: "k_orphan", Account: afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 77}}
			if _, err := db.SQL().ExecContext(ctx, `INSERT INTO api_keys (id, key_hash, account_kind, account_id,
				label, created) VALUES ($1, $2, $3, $4, '', 0)`, k.ID, afftrack.HashKey("orphan"),
				int64(k.Account.Kind), k.Account.ID); err != nil {
				t.Fatal(err)
			}
			_, err := s.Authenticate(ctx, afftrack.HashKey("orphan"))
			wantError(t, err, afftrack.EUNAUTHORIZED, unauthorizedMessage)
		})
	})
}

func TestFindAccounts(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		d := loaded(t, db)
		s := sqlstore.NewAccountService(db)
		ctx := context.Background()
		for _, m := range d.Merchants {
			got, err := s.FindMerchant(ctx, m.ID)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&m.Merchant, got); diff != "" {
				t.Errorf("merchant %d (-want +got):\n%s", m.ID, diff)
			}
		}
		for _, a := range d.Affiliates {
			got, err := s.FindAffiliate(ctx, a.ID)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(&a.Affiliate, got); diff != "" {
				t.Errorf("affiliate %d (-want +got):\n%s", a.ID, diff)
			}
		}
		_, err := s.FindMerchant(ctx, 99)
		wantError(t, err, afftrack.ENOTFOUND, "The requested item could not be found.")
		_, err = s.FindAffiliate(ctx, 99)
		wantError(t, err, afftrack.ENOTFOUND, "The requested item could not be found.")
	})
}

func TestAccountAdministration(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		loaded(t, db)
		s := sqlstore.NewAccountService(db)
		ctx := context.Background()

		t.Run("an account created with id 0 takes the next id", func(t *testing.T) {
			m := &afftrack.Merchant{Name: "New Shop", AvatarURL: "https://img.example/new.png"}
			if err := s.CreateMerchant(ctx, m); err != nil {
				t.Fatal(err)
			}
			want := &afftrack.Merchant{ID: 3, Name: "New Shop", AvatarURL: "https://img.example/new.png",
				Status: afftrack.AccountActive}
			if diff := cmp.Diff(want, m); diff != "" {
				t.Errorf("written back (-want +got):\n%s", diff)
			}
			got, err := s.FindMerchant(ctx, 3)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
			a := &afftrack.Affiliate{ContactName: "C", BusinessName: "B", Status: afftrack.AccountClosed,
				GSTRegistered: true, RateLimit: afftrack.RateLimit{Concurrent: afftrack.Some[int64](4)}}
			if err := s.CreateAffiliate(ctx, a); err != nil {
				t.Fatal(err)
			}
			if a.ID != 4 {
				t.Errorf("affiliate id = %d, want 4", a.ID)
			}
			gotA, err := s.FindAffiliate(ctx, 4)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(a, gotA); diff != "" {
				t.Errorf("stored affiliate (-want +got):\n%s", diff)
			}
			// Created and modified now: the wall clock of UTC, as no zone
			// is recorded.
			before := afftrack.WallClock(time.Now(), time.UTC).Add(-time.Minute).UnixMilli()
			for _, table := range []string{"merchants WHERE id = 3", "affiliates WHERE id = 4"} {
				var created, modified int64
				if err := db.SQL().QueryRow(`SELECT date_created, date_modified FROM `+table).Scan(&created, &modified); err != nil {
					t.Fatal(err)
				}
				if created < before || modified != created {
					t.Errorf("%s: dates %d, %d; want both now", table, created, modified)
				}
			}
		})
		t.Run("an account created with a free id keeps it", func(t *testing.T) {
			m := &afftrack.Merchant{ID: 40, Name: "Forty", Status: afftrack.AccountActive}
			if err := s.CreateMerchant(ctx, m); err != nil {
				t.Fatal(err)
			}
			if _, err := s.FindMerchant(ctx, 40); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("an account created with a taken id is refused", func(t *testing.T) {
			err := s.CreateMerchant(ctx, &afftrack.Merchant{ID: 1, Name: "Clash"})
			wantError(t, err, afftrack.EINVALID, "merchant 1 already exists")
			err = s.CreateAffiliate(ctx, &afftrack.Affiliate{ID: 2, ContactName: "Clash"})
			wantError(t, err, afftrack.EINVALID, "affiliate 2 already exists")
			m, err := s.FindMerchant(ctx, 1)
			if err != nil || m.Name != "Example Pty Ltd" {
				t.Errorf("merchant 1 = %+v, %v; want it unchanged", m, err)
			}
		})
		t.Run("concurrent creations with id 0 get distinct ids", func(t *testing.T) {
			var wg sync.WaitGroup
			ids := make([]int64, 4)
			errs := make([]error, 4)
			for i := range ids {
				wg.Add(1)
				go func() {
					defer wg.Done()
					a := &afftrack.Affiliate{ContactName: "Racer", BusinessName: "Racer", Status: afftrack.AccountActive}
					errs[i] = s.CreateAffiliate(ctx, a)
					ids[i] = a.ID
				}()
			}
			wg.Wait()
			seen := map[int64]bool{}
			for i, id := range ids {
				if errs[i] != nil {
					t.Errorf("creation %d: %v", i, errs[i])
				} else if seen[id] {
					t.Errorf("id %d given twice", id)
				}
				seen[id] = true
			}
		})
		t.Run("status changes show in authentication", func(t *testing.T) {
			ref := afftrack.AccountRef{Kind: afftrack.KindAffiliate, ID: 1}
			if err := s.SetAccountStatus(ctx, ref, afftrack.AccountClosed); err != nil {
				t.Fatal(err)
			}
			acc, err := s.Authenticate(ctx, afftrack.HashKey(secretAffiliate1))
			if err != nil {
				t.Fatal(err)
			}
			if acc.Status != afftrack.AccountClosed {
				t.Errorf("status = %v, want Closed", acc.Status)
			}
			if err := s.SetAccountStatus(ctx, ref, afftrack.AccountActive); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("the status of a missing account is not found", func(t *testing.T) {
			err := s.SetAccountStatus(ctx, afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 99}, afftrack.AccountSuspended)
			wantError(t, err, afftrack.ENOTFOUND, "merchant 99 does not exist")
			err = s.SetAccountStatus(ctx, afftrack.AccountRef{Kind: afftrack.KindAffiliate, ID: 99}, afftrack.AccountSuspended)
			wantError(t, err, afftrack.ENOTFOUND, "affiliate 99 does not exist")
		})
	})
}

func TestKeys(t *testing.T) {
	eachBackend(t, func(t *testing.T, db *sqlstore.DB) {
		loaded(t, db)
		s := sqlstore.NewAccountService(db)
		ctx := context.Background()
		ref := afftrack.AccountRef{Kind: afftrack.KindAffiliate, ID: 3}
		newer := &afftrack.Key{ID: "k_newer", Account: ref, Label: "ci", Created: dt(t, "2024-05-02T00:00:00.001")}
		older := &afftrack.Key{ID: "k_older", Account: ref, Label: "laptop", Created: dt(t, "2024-05-01T00:00:00")}
		for _, k := range []*afftrack.Key{newer, older} {
			if err := s.CreateKey(ctx, k, afftrack.HashKey(k.ID+"-secret")); err != nil {
				t.Fatal(err)
			}
		}
		t.Run("a created key authenticates", func(t *testing.T) {
			acc, err := s.Authenticate(ctx, afftrack.HashKey("k_older-secret"))
			if err != nil {
				t.Fatal(err)
			}
			if acc.Ref != ref {
				t.Errorf("account = %v, want %v", acc.Ref, ref)
			}
		})
		t.Run("a key with no id gets one", func(t *testing.T) {
			k := &afftrack.Key{Account: ref, Label: "generated", Created: dt(t, "2024-05-03T00:00:00")}
			if err := s.CreateKey(ctx, k, afftrack.HashKey("generated-secret")); err != nil {
				t.Fatal(err)
			}
			if len(k.ID) < 8 {
				t.Errorf("generated id %q", k.ID)
			}
		})
		t.Run("a hash already stored is refused", func(t *testing.T) {
			k := &afftrack.Key{ID: "k_again", Account: ref, Created: dt(t, "2024-05-01T00:00:00")}
			err := s.CreateKey(ctx, k, afftrack.HashKey(secretMerchant1))
			wantError(t, err, afftrack.EINVALID, "the key is already stored")
		})
		t.Run("a key of a missing account is refused", func(t *testing.T) {
			k := &afftrack.Key{ID: "k_missing", Account: afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 99}}
			err := s.CreateKey(ctx, k, afftrack.HashKey("missing"))
			wantError(t, err, afftrack.ENOTFOUND, "merchant 99 does not exist")
		})
		t.Run("revoking keeps the key listed, and the first revocation time", func(t *testing.T) {
			if err := s.RevokeKey(ctx, "k_newer", dt(t, "2024-06-01T10:00:00.500")); err != nil {
				t.Fatal(err)
			}
			if err := s.RevokeKey(ctx, "k_newer", dt(t, "2024-07-01T00:00:00")); err != nil {
				t.Errorf("revoking again: %v", err)
			}
			keys, err := s.ListKeys(ctx, ref)
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) != 3 {
				t.Fatalf("got %d keys, want 3", len(keys))
			}
			revoked := *newer
			revoked.Revoked = afftrack.Some(dt(t, "2024-06-01T10:00:00.500"))
			if diff := cmp.Diff([]*afftrack.Key{older, &revoked}, keys[:2]); diff != "" {
				t.Errorf("keys, oldest first (-want +got):\n%s", diff)
			}
			_, err = s.Authenticate(ctx, afftrack.HashKey("k_newer-secret"))
			wantError(t, err, afftrack.EUNAUTHORIZED, unauthorizedMessage)
		})
		t.Run("revoking an unknown key is not found", func(t *testing.T) {
			err := s.RevokeKey(ctx, "k_nope", dt(t, "2024-06-01"))
			wantError(t, err, afftrack.ENOTFOUND, `key "k_nope" does not exist`)
		})
		t.Run("an account without keys lists none", func(t *testing.T) {
			keys, err := s.ListKeys(ctx, afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: 99})
			if err != nil || len(keys) != 0 {
				t.Errorf("ListKeys = %v, %v; want none", keys, err)
			}
		})
	})
}

// TestTheStoreStampsItsOwnTimesByItsClock: the times the store stamps
// itself (an account made from the command line, NetworkNow for keys)
// come from Options.Clock, so they can be fixed in a test.
func TestTheStoreStampsItsOwnTimesByItsClock(t *testing.T) {
	at := time.Date(2031, 2, 3, 4, 5, 6, 7_000_000, time.UTC)
	for _, b := range storetest.Backends(t) {
		t.Run("on "+b+" an account made now is stamped with the clock's time", func(t *testing.T) {
			ctx := context.Background()
			db, err := sqlstore.Open(ctx, storetest.URL(t, b), sqlstore.Options{Clock: func() time.Time { return at }})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			s := sqlstore.NewAccountService(db)
			m := &afftrack.Merchant{Name: "Clocked"}
			if err := s.CreateMerchant(ctx, m); err != nil {
				t.Fatal(err)
			}
			var created int64
			if err := db.SQL().QueryRowContext(ctx, `SELECT date_created FROM merchants WHERE id = $1`, m.ID).Scan(&created); err != nil {
				t.Fatal(err)
			}
			if got := time.UnixMilli(created).UTC(); !got.Equal(at) {
				t.Errorf("DateCreated %s, want the clock's %s", got, at)
			}
			if now, err := s.NetworkNow(ctx); err != nil || !now.Equal(at) {
				t.Errorf("NetworkNow = %s, %v; want %s", now, err, at)
			}
		})
	}
}
