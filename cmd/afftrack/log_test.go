package main_test

import (
	"cmp"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

func TestServeLog(t *testing.T) {
	const lookup = "/V1/Merchant/Transactions/1?apiKey=demo-merchant-1-key"
	t.Run("each request's line is written as it is logged", func(t *testing.T) {
		s := serve(t, "--demo")
		s.get(t, lookup)
		sent := time.Now()
		for !strings.Contains(s.logs.String(), "url=\"/V1/Merchant/Transactions/1?apiKey=REDACTED\"") {
			if time.Since(sent) > 3*time.Second {
				t.Fatalf("no request line 3 s after the request; log:\n%s", s.logs)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
	t.Run("a stop logs every request and the stop", func(t *testing.T) {
		s := serve(t, "--demo")
		for range 3 {
			s.get(t, lookup)
		}
		s.stop(t)
		if got := strings.Count(s.logs.String(), "msg=request "); got != 3 {
			t.Errorf("%d request lines after the stop, want 3; log:\n%s", got, s.logs)
		}
		if !strings.Contains(s.logs.String(), "msg=stopped") {
			t.Errorf("no stop line; log:\n%s", s.logs)
		}
	})
}

// TestServeLogsTheDatabaseWithoutItsPassword serves a PostgreSQL database
// whose URL has its password as a query parameter, which pgx takes: the
// log's listening line shows the URL with the password hidden.
func TestServeLogsTheDatabaseWithoutItsPassword(t *testing.T) {
	if os.Getenv(storetest.PostgresEnv) == "" {
		t.Skip("set AFFTRACK_TEST_POSTGRES_URL to run it")
	}
	u, err := url.Parse(storetest.URL(t, "postgres"))
	if err != nil {
		t.Fatal(err)
	}
	// A server that trusts the test's connections ignores the password;
	// one that asks for it gets the one the test was given.
	password := cmp.Or(os.Getenv("PGPASSWORD"), "s3cretPW-not-needed")
	if p, ok := u.User.Password(); ok {
		password, u.User = p, url.User(u.User.Username())
	}
	q := u.Query()
	q.Set("password", password)
	u.RawQuery = q.Encode()
	s := serve(t, "--db", u.String())
	s.stop(t)
	logs := s.logs.String()
	if strings.Contains(logs, password) {
		t.Errorf("the password is in the log:\n%s", logs)
	}
	if !strings.Contains(logs, "password=xxxxx") {
		t.Errorf("the listening line does not show the database with its password hidden:\n%s", logs)
	}
}
