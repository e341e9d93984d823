package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// defaultUserAgent names the client in the server's logs unless
// [WithUserAgent] says otherwise.
const defaultUserAgent = "afftrack-go-client/1"

// Client calls one afftrack server with one API key. It is safe for
// concurrent use, though the server allows one request in progress per
// account by default: a second concurrent call is answered 429.
type Client struct {
	base      string
	key       string
	http      *http.Client
	userAgent string
	loc       *time.Location
	strict    bool // decode refusing fields the types lack, and wanting all they have; for tests
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests through hc, for timeouts, proxies or
// instrumentation; the default is [http.DefaultClient], which has no
// timeout, so rely on the context or give one here.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	}
}

// WithUserAgent sets the User-Agent of every request, so the network's
// operator can tell your integration apart in its logs.
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua }
}

// WithLocation gives the network's time zone (the server's --timezone).
// The API writes datetimes as wall-clock times of that zone without
// saying which, so the client needs it to turn them into the right
// instants. The default is UTC, the server's default.
func WithLocation(loc *time.Location) Option {
	return func(c *Client) {
		if loc != nil {
			c.loc = loc
		}
	}
}

// New returns a client of the server at baseURL (such as
// "http://localhost:8080"; the /V1/... paths are added to it) that
// authenticates with apiKey. The key travels in the X-Api-Key header,
// never in the URL, so it stays out of proxies' logs.
func New(baseURL, apiKey string, opts ...Option) *Client {
	c := &Client{
		base:      strings.TrimRight(baseURL, "/"),
		key:       apiKey,
		http:      http.DefaultClient,
		userAgent: defaultUserAgent,
		loc:       time.UTC,
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// AffiliateAPI holds the functions under /V1/Affiliate, for an
// affiliate's key.
type AffiliateAPI struct{ c *Client }

// MerchantAPI holds the functions under /V1/Merchant, for a merchant's
// key.
type MerchantAPI struct{ c *Client }

// Affiliate returns the affiliate's functions. Grouping them by account
// type keeps the two views of one noun (an affiliate's Transaction and a
// merchant's) apart at the call site.
func (c *Client) Affiliate() AffiliateAPI { return AffiliateAPI{c} }

// Merchant returns the merchant's functions.
func (c *Client) Merchant() MerchantAPI { return MerchantAPI{c} }

// get calls GET path?query and decodes the JSON answer into out.
func (c *Client) get(ctx context.Context, path string, q query, out any) error {
	_, err := c.do(ctx, http.MethodGet, path+q.encode(), nil, out)
	return err
}

// post sends body as JSON and decodes the answer into out; it returns
// the response for callers that need its status or headers.
func (c *Client) post(ctx context.Context, path string, body, out any) (*http.Response, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("client: encode %s: %w", path, err)
	}
	return c.do(ctx, http.MethodPost, path, b, out)
}

// do sends one request and decodes a 2xx answer into out as it
// arrives, so a long transaction list costs no copy of its body; anything
// else becomes an *Error.
func (c *Client) do(ctx context.Context, method, pathAndQuery string, body []byte, out any) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+pathAndQuery, rd)
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	// The contract's negotiation puts Accept before Content-Type: asking
	// for JSON here is what makes the answer JSON whatever else is sent.
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Api-Key", c.key)
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: %w", method, pathOnly(pathAndQuery), err)
	}
	defer func() {
		// Reading to the end lets the connection be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
	}()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return resp, newError(resp, data)
	}
	if out == nil {
		return resp, nil
	}
	if err := decodeJSON(resp.Body, out, c.loc, c.strict); err != nil {
		return resp, fmt.Errorf("client: %s %s: decoding the answer: %w", method, pathOnly(pathAndQuery), err)
	}
	return resp, nil
}

// pathOnly drops the query from an error's text: it is noise there, and
// a caller's filter values may be private.
func pathOnly(s string) string {
	path, _, _ := strings.Cut(s, "?")
	return path
}

// idPath is a collection's path followed by an id.
func idPath(collection string, id int64) string {
	return collection + "/" + strconv.FormatInt(id, 10)
}

// list fetches a JSON array. An error returns no partial list.
func list[T any](ctx context.Context, c *Client, path string, q query) ([]T, error) {
	var out []T
	if err := c.get(ctx, path, q, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// one fetches a JSON object.
func one[T any](ctx context.Context, c *Client, path string, q query) (*T, error) {
	var out T
	if err := c.get(ctx, path, q, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
