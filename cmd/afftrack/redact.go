package main

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// A database or Redis URL may hold a password: in its user information
// (postgres://user:pw@host), in a query parameter (?password=pw, which
// pgx takes) or, in libpq's key=value form, as password=pw. redactDSN is
// the one function that makes such a URL fit to show, and redactError
// uses it to clean an error that quotes one: every log line and error
// that names --db or --redis goes through them.

// hidden replaces a password.
const hidden = "xxxxx"

var (
	// kvStart matches the start of a libpq key=value string: a key (any
	// word the driver takes; no URL starts with one and "=") and "=".
	kvStart = regexp.MustCompile(`^\s*[^\s=:/?@]+\s*=`)
	// kvPassword matches a key=value pair whose key names a password
	// (password, sslpassword): $1 the key and =, $2 the value, bare or
	// in single quotes as libpq writes one with spaces (unclosed: to the
	// end), a backslash escaping the character after it in either.
	kvPassword = regexp.MustCompile(`(?i)(\b[a-z_]*password\s*=\s*)('(?:[^'\\]|\\.?)*'?|(?:[^\s\\]|\\.?)*)`)
	// userPassword matches ":pw@" in a URL whether or not it parses:
	// $1 is the password.
	userPassword = regexp.MustCompile(`:([^:@/]+)@`)
	// kvUnescape matches a backslash escape of a key=value string: $1 is
	// the character it stands for.
	kvUnescape = regexp.MustCompile(`\\(.)`)
	// urlScheme matches a URL's scheme and the colon after it.
	urlScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*):`)
)

// redactDSN returns dsn with every password in it replaced by xxxxx. A
// URL that does not parse, or parses only as a scheme and an opaque rest
// (postgres:user:pw@host), could have a password anywhere after a colon:
// only its scheme is shown, as <unparsable postgres URL>. An SQLite URL
// (sqlite:PATH) is shown whole: it holds no password, and its path is
// what an error about it needs.
func redactDSN(dsn string) string {
	// A key=value string may hold "://" in a value; a URL never starts
	// with a key and "=".
	if kvStart.MatchString(dsn) {
		return kvPassword.ReplaceAllString(dsn, "${1}"+hidden)
	}
	u, err := url.Parse(dsn)
	if err != nil || u.Opaque != "" && !strings.EqualFold(u.Scheme, "sqlite") {
		return unparsableURL(dsn)
	}
	changed := false
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), hidden)
		changed = true
	}
	if q, ok := redactQuery(u.RawQuery); ok {
		u.RawQuery = q
		changed = true
	}
	if !changed {
		return dsn
	}
	return u.String()
}

// unparsableURL names a URL that does not parse by its scheme alone, when
// it is one the command knows, since anything else may be a password
// (user:pw@host parses as the scheme "user").
func unparsableURL(dsn string) string {
	if m := urlScheme.FindStringSubmatch(dsn); m != nil {
		switch scheme := strings.ToLower(m[1]); scheme {
		case "sqlite", "postgres", "postgresql", "redis", "rediss", "unix":
			return "<unparsable " + scheme + " URL>"
		}
	}
	return "<unparsable URL>"
}

// redactQuery hides the value of every query parameter whose name holds
// "password", in any case; ok reports whether there was one.
func redactQuery(rawQuery string) (q string, ok bool) {
	if rawQuery == "" {
		return rawQuery, false
	}
	params := strings.Split(rawQuery, "&")
	for i, p := range params {
		key, _, hasValue := strings.Cut(p, "=")
		name, err := url.QueryUnescape(key)
		if err != nil {
			name = key
		}
		if hasValue && strings.Contains(strings.ToLower(name), "password") {
			params[i], ok = key+"="+hidden, true
		}
	}
	return strings.Join(params, "&"), ok
}

// dsnSecrets returns the passwords dsn holds, as written and decoded, for
// redactError to look for in an error's text.
func dsnSecrets(dsn string) []string {
	if strings.HasPrefix(strings.ToLower(dsn), "sqlite:") {
		return nil // a path, shown whole
	}
	var secrets []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		secrets = append(secrets, s)
		if d, err := url.QueryUnescape(s); err == nil && d != s {
			secrets = append(secrets, d)
		}
		if t := strings.Trim(s, "'"); t != s && t != "" {
			secrets = append(secrets, t)
		}
	}
	for _, m := range userPassword.FindAllStringSubmatch(dsn, -1) {
		add(m[1])
	}
	_, query, _ := strings.Cut(dsn, "?")
	for _, p := range strings.Split(query, "&") {
		if key, value, ok := strings.Cut(p, "="); ok && strings.Contains(strings.ToLower(key), "password") {
			add(value)
		}
	}
	if kvStart.MatchString(dsn) {
		for _, m := range kvPassword.FindAllStringSubmatch(dsn, -1) {
			add(m[2])
			add(kvUnescape.ReplaceAllString(strings.Trim(m[2], "'"), "$1")) // as a driver may quote it
		}
	}
	return secrets
}

// redactError returns err, or, when its text quotes one of urls or a
// password of one, an error of the same text with those redacted. A
// driver's error may repeat the URL it was given (url.Parse's does, and
// pgx's keeps a query's password): it is cleaned here rather than trusted.
// The cleaned error does not wrap err, whose text is the leak.
func redactError(err error, urls ...string) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	clean := text
	for _, u := range urls {
		if u == "" {
			continue
		}
		clean = strings.ReplaceAll(clean, u, redactDSN(u))
		for _, s := range dsnSecrets(u) {
			clean = replaceWord(clean, s, hidden)
		}
	}
	if clean == text {
		return err
	}
	return errors.New(clean)
}

// replaceWord returns text with every occurrence of s that is not part of
// a longer run of letters and digits replaced by repl: a password "a" is
// hidden where an error quotes it, not in every word that holds an a
// ("ping postgres dxxxxxtxxxxxbxxxxxse" was unreadable).
func replaceWord(text, s, repl string) string {
	var b strings.Builder
	for i := 0; ; {
		j := strings.Index(text[i:], s)
		if j < 0 {
			b.WriteString(text[i:])
			return b.String()
		}
		start, end := i+j, i+j+len(s)
		b.WriteString(text[i:start])
		if wordByte(text, start-1) || wordByte(text, end) {
			b.WriteString(s[:1])
			i = start + 1
			continue
		}
		b.WriteString(repl)
		i = end
	}
}

// wordByte reports whether text[i] is an ASCII letter or digit; outside
// text it is not.
func wordByte(text string, i int) bool {
	if i < 0 || i >= len(text) {
		return false
	}
	c := text[i]
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// urlError returns err without the URL it may quote, password and all:
// url.Parse's errors repeat the whole URL.
func urlError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("the URL cannot be parsed: %w", ue.Err)
	}
	return err
}
