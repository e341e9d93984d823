package keycache_test

import (
	"context"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/keycache"
	"github.com/afftrack/afftrack/internal/sqlstore"
	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// BenchmarkAuthenticate compares a key lookup in SQLite with the same
// lookup answered by the cache: the price of every API call's first step.
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	store := sqlstore.NewAccountService(storetest.Open(b, storetest.SQLite))
	m := &afftrack.Merchant{Name: "Bench Pty Ltd", Status: afftrack.AccountActive}
	if err := store.CreateMerchant(ctx, m); err != nil {
		b.Fatal(err)
	}
	secret, _, err := afftrack.GenerateKey()
	if err != nil {
		b.Fatal(err)
	}
	hash := afftrack.HashKey(secret)
	key := &afftrack.Key{Account: afftrack.AccountRef{Kind: afftrack.KindMerchant, ID: m.ID}, Created: time.Now().UTC()}
	if err := store.CreateKey(ctx, key, hash); err != nil {
		b.Fatal(err)
	}

	for _, bm := range []struct {
		name     string
		accounts afftrack.AccountService
	}{
		{"sqlite", store},
		{"cached", keycache.New(store, keycache.Options{TTL: time.Hour})},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if a, err := bm.accounts.Authenticate(ctx, hash); err != nil || a.Ref.ID != m.ID {
					b.Fatalf("Authenticate = %v, %v", a, err)
				}
			}
		})
	}
}
