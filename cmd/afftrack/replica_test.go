package main_test

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// TestReplicasShareDataAndBudget runs two `afftrack serve` processes on one
// PostgreSQL and one Redis, as a network behind a load balancer would: they
// return the same data, share each account's rate budget exactly, and see a
// write made through the command line (an import, a key revocation)
// without a restart.
func TestReplicasShareDataAndBudget(t *testing.T) {
	redisURL := os.Getenv("AFFTRACK_TEST_REDIS_URL")
	if redisURL == "" || os.Getenv("AFFTRACK_TEST_POSTGRES_URL") == "" {
		t.Skip("set AFFTRACK_TEST_POSTGRES_URL and AFFTRACK_TEST_REDIS_URL to run the multi-replica test")
	}
	dsn := storetest.URL(t, "postgres")
	if out, err := afftrack(t, nil, "import", "--db", dsn, "testdata/network.json"); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	var b [6]byte
	rand.Read(b[:])
	prefix := "afftrack-test-" + hex.EncodeToString(b[:]) + ":"
	replicas := []*server{
		serve(t, "--db", dsn, "--redis", redisURL, "--redis-prefix", prefix),
		serve(t, "--db", dsn, "--redis", redisURL, "--redis-prefix", prefix),
	}

	t.Run("both replicas return the same data", func(t *testing.T) {
		const path = "/V1/Merchant/Transactions?apiKey=e2e-merchant-10-secret&fromDate=2024-03-01&toDate=2024-03-31"
		s0, _, b0 := replicas[0].get(t, path)
		s1, _, b1 := replicas[1].get(t, path)
		if s0 != 200 || s1 != 200 || b0 != b1 {
			t.Errorf("replica answers differ: %d %.80s / %d %.80s", s0, b0, s1, b1)
		}
	})

	t.Run("an account's budget is shared exactly even when calls arrive at once", func(t *testing.T) {
		// Merchant 11 may make 2 calls a minute and any number at once.
		const calls = 24
		var mu sync.Mutex
		accepted, refused := 0, 0
		var wg sync.WaitGroup
		for i := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				status, h, _ := replicas[i%2].get(t, "/V1/Merchant/Transactions/101?apiKey=e2e-merchant-11-secret")
				mu.Lock()
				defer mu.Unlock()
				switch status {
				case 200:
					accepted++
				case 429:
					refused++
					if h.Get("Retry-After") == "" {
						t.Errorf("429 without Retry-After")
					}
				default:
					t.Errorf("status %d", status)
				}
			}()
		}
		wg.Wait()
		if accepted != 2 || refused != calls-2 {
			t.Errorf("accepted %d and refused %d of %d calls; want exactly 2 accepted across both replicas", accepted, refused, calls)
		}
	})

	t.Run("an import through the command line is served by both at once", func(t *testing.T) {
		doc := `{"Transactions": [{"Id": 102, "MerchantId": 10, "AffiliateId": 20, "DateCreated": "2024-03-05",
		  "TrafficType": "Search", "CreativeType": "Text Link", "CustomerType": "New", "TrackingMethod": "Server", "Status2": "Locked"}]}`
		if out, err := afftrack(t, strings.NewReader(doc), "import", "--db", dsn, "-"); err != nil {
			t.Fatalf("import: %v\n%s", err, out)
		}
		for i, r := range replicas {
			if status, _, body := r.get(t, "/V1/Merchant/Transactions/102?apiKey=e2e-merchant-10-secret"); status != 200 {
				t.Errorf("replica %d: %d %s", i, status, body)
			}
		}
	})

	t.Run("a revoked key is refused by both within the documented bound", func(t *testing.T) {
		out, err := afftrack(t, nil, "key", "list", "affiliate", "20", "--db", dsn)
		if err != nil {
			t.Fatalf("key list: %v\n%s", err, out)
		}
		if out, err := afftrack(t, nil, "key", "revoke", strings.Fields(out)[0], "--db", dsn); err != nil {
			t.Fatalf("key revoke: %v\n%s", err, out)
		}
		revoked := time.Now()
		for i, r := range replicas {
			for {
				status, _, _ := r.get(t, "/V1/Affiliate/Invoices/7?apiKey=e2e-affiliate-20-secret")
				if status == 401 {
					break
				}
				if time.Since(revoked) > keyCacheBound+2*time.Second {
					t.Fatalf("replica %d still accepts a key revoked %v ago", i, time.Since(revoked))
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	})
}

// keyCacheBound is how long a replica may go on accepting a revoked key, as
// docs/deploy.md promises.
const keyCacheBound = 5 * time.Second

func sleepTenth() { time.Sleep(100 * time.Millisecond) }
