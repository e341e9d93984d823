package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := redactError(tt.err, tt.dsn)
			if diff := cmp.Diff(tt.want, got.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if !strings.Contains(tt.err.Error(), "s3cret") && got != tt.err {
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
