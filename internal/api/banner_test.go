package api

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/google/go-cmp/cmp"
)

func TestBanners(t *testing.T) {
	ids := func(body string) []string {
		var out []string
		for _, part := range strings.Split(body, `{"Id":`)[1:] {
			out = append(out, part[:strings.IndexByte(part, ',')])
		}
		return out
	}
	tests := []struct {
		name       string
		query      string
		wantStatus int
		wantIDs    []string
		wantBody   string // exact error body; "" skips
	}{
		{"an affiliate sees the banners of joined merchants only", "", 200, []string{"1", "2"}, ""},
		{"merchantId filters", "?merchantId=2", 200, []string{"2"}, ""},
		{"merchantName filters on the whole name in any case", "?MerchantName=sample+%26+sons", 200, []string{"2"}, ""},
		{"merchantName never matches part of a name", "?merchantName=sample", 200, nil, ""},
		{"groupName filters", "?groupName=%20default%20group", 200, []string{"1"}, ""},
		{"size filters on the derived size name", "?size=full+banner", 200, []string{"1"}, ""},
		{"size matches a non-standard size as written", "?size=400x70", 200, []string{"2"}, ""},
		{"width and height filter", "?width=468&height=60", 200, []string{"1"}, ""},
		{"a banner of a merchant not joined is never shown", "?merchantId=3", 200, nil, ""},
		{"a non-integer merchantId is a 400", "?merchantId=abc", 400, nil, `{"Message":"merchantId: \"abc\" is not an integer"}`},
		{"a non-integer width is a 400", "?width=1e3", 400, nil, `{"Message":"width: \"1e3\" is not an integer"}`},
		{"a non-integer height is a 400", "?height=60px", 400, nil, `{"Message":"height: \"60px\" is not an integer"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", "/V1/Affiliate/Banners"+tt.query, "X-Api-Key", affiliateKey)
			mustStatus(t, w, tt.wantStatus)
			if tt.wantBody != "" {
				if diff := cmp.Diff(tt.wantBody, w.Body.String()); diff != "" {
					t.Errorf("body (-want +got):\n%s", diff)
				}
				return
			}
			if diff := cmp.Diff(tt.wantIDs, ids(w.Body.String())); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("the tracking link uses the configured tracking base", func(t *testing.T) {
		h := newHarness(t)
		srv := NewServer(Config{PublicURL: "https://api.example.com/", TrackingBaseURL: "https://t.example.com/"},
			h.srv.svc, slog.New(slog.NewTextHandler(io.Discard, nil)), func() time.Time { return fixedNow })
		r := httptest.NewRequest("GET", "/V1/Affiliate/Banners?merchantId=1&contentType=text/xml", nil)
		r.Header.Set("X-Api-Key", affiliateKey)
		w := httptest.NewRecorder()
		srv.Handler().ServeHTTP(w, r)
		mustStatus(t, w, http.StatusOK)
		for _, want := range []string{
			`xmlns="https://api.example.com/V1/Affiliate"`,
			`<TrackingUrl>https://t.example.com/1/b/1</TrackingUrl>`,
			`<TrackingCode>&lt;a href="https://t.example.com/1/b/1" rel="nofollow sponsored"&gt;`,
		} {
			if !strings.Contains(w.Body.String(), want) {
				t.Errorf("body lacks %s:\n%s", want, w.Body.String())
			}
		}
	})

	t.Run("a failing banner store is a 500", func(t *testing.T) {
		h := newHarness(t)
		h.banners.err = errStore
		mustStatus(t, h.do("GET", "/V1/Affiliate/Banners", "X-Api-Key", affiliateKey), http.StatusInternalServerError)
	})
}

func TestBannerTrackingCode(t *testing.T) {
	bn := &afftrack.Banner{ID: 5, Width: 468, Height: 60, ImageURL: `https://i.example/a.png?x=1&y="2"`, AltText: `Tom's "<b>"`}
	url := bannerTrackingURL("http://localhost:8080/t", 9, bn.ID)
	want := `<a href="http://localhost:8080/t/9/b/5" rel="nofollow sponsored"><img src="https://i.example/a.png?x=1&amp;y=&#34;2&#34;"` +
		` width="468" height="60" alt="Tom&#39;s &#34;&lt;b&gt;&#34;" style="border:none" /></a>`
	if diff := cmp.Diff(want, bannerTrackingCode(bn, url)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestInvoice(t *testing.T) {
	tests := []struct {
		name       string
		path       string
		wantStatus int
		wantBody   string
	}{
		{"an own invoice is returned", "/V1/Affiliate/Invoices/1", 200, `{"Id":1,`},
		{"another affiliate's invoice is not found", "/V1/Affiliate/Invoices/3", 404, `{"Message":"The requested item could not be found."}`},
		{"an invoice that does not exist is not found", "/V1/Affiliate/Invoices/0", 404, `{"Message":"The requested item could not be found."}`},
		{"a non-integer id is a 400", "/V1/Affiliate/Invoices/1.5", 400, `{"Message":"id: \"1.5\" is not an integer"}`},
		{"an escaped id is read unescaped", "/V1/Affiliate/Invoices/%31", 200, `{"Id":1,`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t)
			w := h.do("GET", tt.path, "X-Api-Key", affiliateKey)
			mustStatus(t, w, tt.wantStatus)
			if !strings.HasPrefix(w.Body.String(), tt.wantBody) {
				t.Errorf("body = %s, want prefix %s", w.Body.String(), tt.wantBody)
			}
		})
	}
}
