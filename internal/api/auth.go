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
	return s.guarded(kind, guardLimited, h)
}

// authenticatedList is authenticated for a function that streams a
// transaction list: it holds one of the server's list slots, taken before
// the rate limit, so that a call refused for want of one (503) is not
// counted, as only accepted calls count.
func (s *Server) authenticatedList(kind afftrack.AccountKind, h apiHandler) http.Handler {
	return s.guarded(kind, guardLimited|guardList, h)
}

// guard says what guarded checks beside authentication.
type guard uint8

const (
	guardLimited guard = 1 << iota // the rate limit applies
	guardList                      // the function holds a list slot
)

// guarded runs h after authentication and the checks g names.
func (s *Server) guarded(kind afftrack.AccountKind, g guard, h apiHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := stateOf(r)
		account, refused, err := s.authenticate(w, r, kind)
		if refused {
			return
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		st.account = account
		if g&guardList != 0 {
			release, ok := s.acquireList(r.Context(), listSlotWait)
			if !ok {
				s.reportBudget(w, r, account)
				w.Header().Set(headerRetryAfter, "1")
				s.writeError(w, r, errBusy())
				return
			}
			defer release()
		}
		if g&guardLimited != 0 {
			if err := s.admit(w, r, account); err != nil {
				s.writeError(w, r, err)
				return
			}
		} else {
			s.reportBudget(w, r, account)
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

// authenticatedWrite is authenticated for a function that writes: the
// same checks, but the call does not count against the read rate limits.
func (s *Server) authenticatedWrite(kind afftrack.AccountKind, h apiHandler) http.Handler {
	return s.guarded(kind, 0, h)
}

// authenticate returns the active account of the given kind that owns the
// request's key, taken from the apiKey parameter or the X-Api-Key header,
// within its address's budget of failed authentications (failureBudget):
// a lookup of an address whose failures are spent waits its turn, and is
// answered 429 (refused) when that is too far off. A key whose answer the
// key cache holds is answered from it at once (see cachedAuthenticator),
// as looking nothing up it tells a guesser nothing new; any other takes a
// place in the budget for its lookup, given back, and counted if it
// failed, however the lookup ends.
// Every way to fail is the same EUNAUTHORIZED, so a caller cannot tell a
// wrong key from a suspended account; only a store failure differs.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, kind afftrack.AccountKind) (account *afftrack.Account, refused bool, err error) {
	addr := s.clientAddress(r)
	key, ok := requestKey(r, stateOf(r).query)
	hash := ""
	if ok && key != "" {
		hash = afftrack.HashKey(key)
	}
	cached := false
	if c, isCache := s.svc.Accounts.(cachedAuthenticator); isCache && hash != "" {
		account, cached, err = c.CachedAuthenticate(hash)
	}
	if !cached {
		if wait := s.authFailures.begin(r.Context(), addr, s.clock); wait > 0 {
			w.Header().Set(headerRetryAfter, strconv.FormatInt(max(ceilSeconds(wait), 1), 10))
			s.writeError(w, r, &afftrack.Error{Code: afftrack.ERATELIMIT, Message: messageRateLimited})
			return nil, true, nil
		}
	}
	failed := false // a panic in the lookup gives the place back, uncounted
	defer func() {
		switch {
		case !cached:
			s.authFailures.end(addr, key, failed, s.clock())
		case failed:
			s.authFailures.fail(addr, key, s.clock())
		}
	}()
	switch {
	case cached:
	case hash == "":
		account, err = nil, errUnauthorized()
	default:
		account, err = s.svc.Accounts.Authenticate(r.Context(), hash)
	}
	account, err = activeAccount(kind, account, err)
	failed = err != nil && afftrack.ErrorCode(err) == afftrack.EUNAUTHORIZED
	return account, false, err
}

// activeAccount is the store's answer for a key as authenticate gives it:
// the account if it is active and of kind, else EUNAUTHORIZED, or the
// store's own failure.
func activeAccount(kind afftrack.AccountKind, account *afftrack.Account, err error) (*afftrack.Account, error) {
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

// cachedAuthenticator is an AccountService that can give, without a
// lookup, the answer it holds for a key (keycache's): such a key needs no
// place in its address's budget of failed authentications, since it waits
// on no store.
type cachedAuthenticator interface {
	CachedAuthenticate(keyHash string) (account *afftrack.Account, ok bool, err error)
}

// requestKey returns the request's API key, from every apiKey parameter
// and X-Api-Key header it carries. Where they name different keys, which
// one the client meant is anyone's guess, so ok is false and the request
// is refused as unauthenticated; the same key given twice is fine.
func requestKey(r *http.Request, q query) (key string, ok bool) {
	add := func(v string) bool {
		if key == "" {
			key = v
		}
		return v == "" || v == key
	}
	for _, p := range q {
		if isAPIKeyName(p.name) && !add(p.value) {
			return "", false
		}
	}
	for _, v := range r.Header.Values(headerAPIKey) {
		if !add(v) {
			return "", false
		}
	}
	return key, true
}

// errUnauthorized returns the one error of every failed authentication.
// Each is new, so no caller can change another's.
func errUnauthorized() error {
	return &afftrack.Error{Code: afftrack.EUNAUTHORIZED, Message: messageUnauthorized}
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
	setBudgetHeaders(h, d)
	if !d.Allowed {
		s.svc.Observer.RateLimited(account.Ref.Kind)
		retry := max(ceilSeconds(d.RetryAfter), 1)
		h.Set(headerRetryAfter, strconv.FormatInt(retry, 10))
		// On a 429, X-RateLimit-Reset is the time until a call will be
		// accepted, as Retry-After: for a call the day's window refused
		// that is the day's wait, and for one refused while another is in
		// progress, the concurrent slot's, not the minute's.
		if d.HasWindow {
			h.Set(headerRateLimitReset, strconv.FormatInt(retry, 10))
		}
		return &afftrack.Error{Code: afftrack.ERATELIMIT, Message: messageRateLimited}
	}
	return nil
}

// reportBudget sets the X-RateLimit-* headers of a call the limits do not
// apply to (a conversion), from the account's budget as it stands, so that
// every authenticated response reports it. A limiter that cannot tell
// leaves them out: the call goes on regardless, since it is not limited.
func (s *Server) reportBudget(w http.ResponseWriter, r *http.Request, account *afftrack.Account) {
	d, err := s.svc.RateLimiter.Peek(r.Context(), account.Ref, account.RateLimit.Resolve(s.cfg.DefaultLimits), s.clock())
	if err == nil {
		setBudgetHeaders(w.Header(), d)
	}
}

// setBudgetHeaders sets the X-RateLimit-* headers from d's window, if it
// has one.
func setBudgetHeaders(h http.Header, d afftrack.RateDecision) {
	if d.HasWindow {
		h.Set(headerRateLimitLimit, strconv.FormatInt(d.Limit, 10))
		h.Set(headerRateLimitRemaining, strconv.FormatInt(max(d.Remaining, 0), 10))
		h.Set(headerRateLimitReset, strconv.FormatInt(ceilSeconds(d.Reset), 10))
	}
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
