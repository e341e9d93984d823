package api

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/afftrack/afftrack"
)

// apiHandler is a function of the interface. It runs for an authenticated,
// admitted account and returns an error instead of writing one, so
// writeError alone decides statuses and bodies. It returns nil once it has
// written a response.
type apiHandler func(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error

// authenticated wraps a function of the given account kind in the
// contract's order of checks: authentication (401), then the rate limit
// (429), then the negotiation parameters (400); the handler checks its own
// parameters (400) and then looks up (404).
func (s *Server) authenticated(kind afftrack.AccountKind, h apiHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r)
		account, err := s.authenticate(r, kind)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		st.account = account
		if err := s.admit(w, r, account); err != nil {
			s.writeError(w, r, err)
			return
		}
		if st.neg.err != nil {
			s.writeError(w, r, st.neg.err)
			return
		}
		if err := h(w, r, account); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// authenticate returns the active account of the given kind that owns the
// request's key, taken from the apiKey parameter or the X-Api-Key header.
// Every way to fail is the same EUNAUTHORIZED, so a caller cannot tell a
// wrong key from a suspended account; only a store failure differs.
func (s *Server) authenticate(r *http.Request, kind afftrack.AccountKind) (*afftrack.Account, error) {
	key, header := stateOf(r).query.get("apikey"), headerValue(r.Header, headerAPIKey)
	switch {
	case key == "":
		key = header
	case header != "" && header != key:
		return nil, errUnauthorized()
	}
	if key == "" {
		return nil, errUnauthorized()
	}
	account, err := s.svc.Accounts.Authenticate(r.Context(), hashKey(key))
	if err != nil { // ErrorCode allocates even for a nil error
		switch afftrack.ErrorCode(err) {
		case "": // an *afftrack.Error without a code; the account decides
		case afftrack.EUNAUTHORIZED, afftrack.ENOTFOUND:
			return nil, errUnauthorized()
		default:
			return nil, fmt.Errorf("authenticate: %w", err)
		}
	}
	if account == nil || account.Ref.Kind != kind || account.Status != afftrack.AccountActive {
		return nil, errUnauthorized()
	}
	return account, nil
}

// errUnauthorized returns the one error of every failed authentication.
// Each is new, so no caller can change another's.
func errUnauthorized() error {
	return &afftrack.Error{Code: afftrack.EUNAUTHORIZED, Message: messageUnauthorized}
}

// hashKey is afftrack.HashKey with the key's bytes and the hex on the
// stack, so the string is the only allocation for a key of up to 64 bytes
// (a plain []byte(secret) stays on the stack only up to 32).
func hashKey(secret string) string {
	var buf [64]byte
	sum := sha256.Sum256(append(buf[:0], secret...))
	var h [2 * sha256.Size]byte
	hex.Encode(h[:], sum[:])
	return string(h[:])
}

// admit asks the rate limiter for the account's call. It sets the
// X-RateLimit-* headers whatever the outcome, so every authenticated
// response reports the budget, and keeps the release func for withLogging
// to call once the response is complete.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	limits := account.RateLimit.Resolve(s.cfg.DefaultLimits)
	d, release, err := s.svc.RateLimiter.Acquire(r.Context(), account.Ref, limits, s.clock())
	if err != nil {
		return fmt.Errorf("rate limiter: %w", err)
	}
	st := stateOf(r)
	st.release = release
	h := w.Header()
	if d.HasWindow {
		st.setHeader(h, headerRateLimitLimit, strconv.FormatInt(d.Limit, 10))
		st.setHeader(h, headerRateLimitRemaining, strconv.FormatInt(max(d.Remaining, 0), 10))
		st.setHeader(h, headerRateLimitReset, strconv.FormatInt(ceilSeconds(d.Reset), 10))
	}
	if !d.Allowed {
		s.svc.Observer.RateLimited(account.Ref.Kind)
		st.setHeader(h, headerRetryAfter, strconv.FormatInt(max(ceilSeconds(d.RetryAfter), 1), 10))
		return &afftrack.Error{Code: afftrack.ERATELIMIT, Message: messageRateLimited}
	}
	return nil
}

// ceilSeconds returns d in whole seconds, rounded up; 0 for d <= 0.
func ceilSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	return s
}
