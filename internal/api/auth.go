package api

import (
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
	unauthorized := &afftrack.Error{Code: afftrack.EUNAUTHORIZED, Message: messageUnauthorized}
	key, header := stateOf(r).query.get("apikey"), r.Header.Get("X-Api-Key")
	switch {
	case key == "":
		key = header
	case header != "" && header != key:
		return nil, unauthorized
	}
	if key == "" {
		return nil, unauthorized
	}
	account, err := s.svc.Accounts.Authenticate(r.Context(), afftrack.HashKey(key))
	switch afftrack.ErrorCode(err) {
	case "":
	case afftrack.EUNAUTHORIZED, afftrack.ENOTFOUND:
		return nil, unauthorized
	default:
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	if account == nil || account.Ref.Kind != kind || account.Status != afftrack.AccountActive {
		return nil, unauthorized
	}
	return account, nil
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
	stateOf(r).release = release
	h := w.Header()
	if d.HasWindow {
		h.Set("X-RateLimit-Limit", strconv.FormatInt(d.Limit, 10))
		h.Set("X-RateLimit-Remaining", strconv.FormatInt(max(d.Remaining, 0), 10))
		h.Set("X-RateLimit-Reset", strconv.FormatInt(ceilSeconds(d.Reset), 10))
	}
	if !d.Allowed {
		s.svc.Observer.RateLimited(account.Ref.Kind)
		h.Set("Retry-After", strconv.FormatInt(max(ceilSeconds(d.RetryAfter), 1), 10))
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
