package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"
)

func TestRedactDSN(t *testing.T) {
	tests := []struct {
		name, dsn, want string
	}{
		{"an SQLite path is shown whole", "sqlite:/var/lib/afftrack/afftrack.db", "sqlite:/var/lib/afftrack/afftrack.db"},
		{"the in-memory SQLite is shown whole", "sqlite::memory:", "sqlite::memory:"},
		{"a URL without a password is shown whole", "postgres://afftrack@db.internal:5432/afftrack?sslmode=require",
			"postgres://afftrack@db.internal:5432/afftrack?sslmode=require"},
		{"a password in the user information is hidden", "postgres://afftrack:s3cretPW@db:5432/afftrack",
			"postgres://afftrack:xxxxx@db:5432/afftrack"},
		{"a password query parameter is hidden", "postgres://afftrack@127.0.0.1:5432/postgres?password=s3cretPW&sslmode=disable",
			"postgres://afftrack@127.0.0.1:5432/postgres?password=xxxxx&sslmode=disable"},
		{"a password query parameter in any case is hidden", "postgresql://u@h/x?sslmode=disable&PassWord=s3cretPW",
			"postgresql://u@h/x?sslmode=disable&PassWord=xxxxx"},
		{"an sslpassword query parameter is hidden", "postgres://u@h/x?sslpassword=s3cretPW", "postgres://u@h/x?sslpassword=xxxxx"},
		{"both a user password and a query password are hidden", "postgres://u:s3cretPW@h/x?password=s3cretPW",
			"postgres://u:xxxxx@h/x?password=xxxxx"},
		{"a Redis password is hidden", "redis://:s3cretPW@redis.internal:6379/0", "redis://:xxxxx@redis.internal:6379/0"},
		{"a libpq key=value password is hidden", "host=h password=s3cretPW dbname=x", "host=h password=xxxxx dbname=x"},
		{"a quoted libpq password is hidden", "host=h password = 's3cret PW' dbname=x", "host=h password = xxxxx dbname=x"},
		{"an unclosed quoted libpq password is hidden", "host=h PASSWORD='s3cret PW", "host=h PASSWORD=xxxxx"},
		{"a libpq password is hidden though a value holds ://", "host=/tmp password=hunter22 application_name=x://y",
			"host=/tmp password=xxxxx application_name=x://y"},
		{"a libpq password with an escaped space is hidden whole", `host=h password=hunter\ 22xyz dbname=x`,
			"host=h password=xxxxx dbname=x"},
		{"a URL that does not parse shows its scheme alone", "postgres://u:s3cretPW@h:badport/x", "<unparsable postgres URL>"},
		{"a URL with no slashes shows its scheme alone", "postgres:user:s3cretPW@h/x", "<unparsable postgres URL>"},
		{"a URL with no scheme shows nothing", "user:s3cretPW@h/x", "<unparsable URL>"},
		{"a host and port with a password show nothing", "user@h:s3cretPW", "<unparsable URL>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, redactDSN(tt.dsn)); diff != "" {
				t.Errorf("redactDSN(%q) (-want +got):\n%s", tt.dsn, diff)
			}
		})
	}
}

func TestRedactError(t *testing.T) {
	tests := []struct {
		name string
		err  error
		dsn  string
		want string
	}{
		{"an error that quotes the URL gets it redacted",
			errors.New("cannot parse `postgres://u@h/x?password=s3cretPW&connect_timeout=abc`: invalid connect_timeout"),
			"postgres://u@h/x?password=s3cretPW&connect_timeout=abc",
			"cannot parse `postgres://u@h/x?password=xxxxx&connect_timeout=abc`: invalid connect_timeout"},
		{"an error that quotes a password alone loses it", errors.New(`password "s3cretPW" refused`),
			"postgres://u:s3cretPW@h/x", `password "xxxxx" refused`},
		{"a percent-encoded password is found decoded too", errors.New("bad password s3cret/PW"),
			"postgres://u:s3cret%2FPW@h/x", "bad password xxxxx"},
		{"a password of a URL that does not parse is found", errors.New("parse postgres:user:s3cretPW@h/x"),
			"postgres:user:s3cretPW@h/x", "parse <unparsable postgres URL>"},
		{"a libpq password is found", errors.New("no host in 'host=h password=s3cretPW'"),
			"host=h password=s3cretPW", "no host in 'host=h password=xxxxx'"},
		{"an error without a secret is the same error", errors.New("connection refused"),
			"postgres://u:s3cretPW@h/x", "connection refused"},
		{"a short password is hidden where it is quoted, not inside words",
			errors.New("ping postgres database: failed to connect to `user=u password=a`: a refused"),
			"postgres://u:a@127.0.0.1:1/x", "ping postgres database: failed to connect to `user=u password=xxxxx`: xxxxx refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := redactError(tt.err, tt.dsn)
			if diff := cmp.Diff(tt.want, got.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if tt.want == tt.err.Error() && got != tt.err {
				t.Errorf("an error without a secret was replaced")
			}
		})
	}
	t.Run("a cleaned error does not wrap the one that held the password", func(t *testing.T) {
		inner := errors.New("s3cretPW")
		if got := redactError(fmt.Errorf("open: %w", inner), "postgres://u:s3cretPW@h/x"); errors.Is(got, inner) {
			t.Errorf("%v still wraps the error with the password", got)
		}
	})
}

// FuzzRedactDSN: whatever the URL, no password the drivers would read
// from it survives redactDSN or redactError. pgx and go-redis parse the
// URL as the service would, and say what its password is.
func FuzzRedactDSN(f *testing.F) {
	for _, seed := range []string{
		"postgres://u:s3cretPW@h:5432/x?sslmode=disable",
		"postgres://u@h/x?password=s3cretPW&sslpassword=0therPW",
		"host=/var/run/postgresql password=hunter22xyz application_name=x://y",
		"host=h password='s3cret PW' dbname=x",
		`host=h password=hunter\ 22xyz`,
		"redis://:s3cretPW@redis.internal:6379/0",
		"rediss://user:s3cretPW@h:6380",
		"sqlite:/var/lib/afftrack.db",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, dsn string) {
		var secrets []string
		if strings.HasPrefix(strings.ToLower(dsn), "redis") {
			if o, err := redis.ParseURL(dsn); err == nil {
				secrets = append(secrets, o.Password)
			}
		} else if !strings.HasPrefix(strings.ToLower(dsn), "sqlite:") {
			if c, err := pgconn.ParseConfig(dsn); err == nil {
				secrets = append(secrets, c.Password)
			}
		}
		shown := redactDSN(dsn)
		quoted := redactError(errors.New("cannot connect to "+dsn), dsn).Error()
		for _, s := range secrets {
			// A short password, or one that is also other text of the
			// URL (a user or host of the same letters), cannot be told
			// from that text.
			if len(s) < 6 || strings.Count(dsn, s) > 1 || strings.Contains(hidden, s) {
				continue
			}
			if strings.Contains(shown, s) || strings.Contains(quoted, s) {
				t.Fatalf("%q shows the password %q: redactDSN %q, redactError %q", dsn, s, shown, quoted)
			}
		}
	})
}
