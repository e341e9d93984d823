package api

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/afftrack/afftrack"
)

func FuzzNegotiate(f *testing.F) {
	for _, seed := range [][4]string{
		{"", "", "", ""},
		{"application/xml", "application/json", "", "cb"},
		{"TEXT/XML; charset=utf-8", "", "", ""},
		{"text/html", "application/xml;q=0.9, */*;q=0.1", "", "a.b.c"},
		{"", "application/json;q=0, text/xml;q=0.001", "application/json", ""},
		{"", "application/*;q=1.000, text/xml", "", "$._1"},
		{"", ";;,,q=1,application/json;q=", "text/xml", "1bad"},
		{"", "", "application/xml; charset=\"utf-8\"", "a..b"},
		{" ", "text/xml;q=0.5;level=1, application/json;q=0.5", "", strings.Repeat("x", 129)},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	f.Fuzz(func(t *testing.T, param, accept, contentType, callback string) {
		n := negotiate(param, accept, contentType, callback)
		if n.format != formatJSON && n.format != formatXML {
			t.Fatalf("format = %d, want JSON or XML", n.format)
		}
		if n.err != nil && afftrack.ErrorCode(n.err) != afftrack.EINVALID {
			t.Fatalf("err = %v, want an EINVALID (a 400)", n.err)
		}
		if n.callback != "" && (n.format != formatJSON || n.callback != callback || !validCallback(n.callback)) {
			t.Fatalf("callback %q accepted for format %d", n.callback, n.format)
		}
		if param == "" && n.err != nil && n.callback == "" && callback == "" {
			t.Fatalf("a 400 without a bad contentType or callback: %v", n.err)
		}
	})
}

func FuzzQuery(f *testing.F) {
	for _, seed := range []string{
		"",
		"fromDate=2000-01-01&toDate=2000-01-31",
		"fromDate=2000-01-01T10:00:00.1234567%2B10:00&toDate=2000-01-01%2000:00&dateProperty=datemodified",
		"FROMDATE=2000-01-01&TODATE=1999-12-31&affiliateId=-9223372036854775808&invoiceId=9223372036854775808",
		"fromDate=2000-01-01&toDate=2000-01-02&status2=paid&status=void&voidReason=self+referral&trafficSourceApproved=TRUE",
		"fromDate=%zz&toDate=2000-01-02;x=1&&&=&a",
		"fromDate=2000-01-01&toDate=2000-01-02&contentType=text/xml&callback=cb&creativeType=banner",
		"fromDate=2000-02-30&toDate=2000-01-02&customerType=Other",
	} {
		f.Add(seed)
	}
	h := newHarness(f)
	h.srv.logger = slog.New(slog.DiscardHandler) // millions of runs would fill the log buffer
	f.Fuzz(func(t *testing.T, rawQuery string) {
		r := &http.Request{
			Method: "GET", URL: &url.URL{Path: "/V1/Merchant/Transactions", RawQuery: rawQuery},
			Header: http.Header{"X-Api-Key": {merchantKey}}, Host: "example.com",
		}
		w := httptest.NewRecorder()
		h.srv.Handler().ServeHTTP(w, r.WithContext(context.Background()))
		if w.Code >= 500 {
			t.Fatalf("query %q: status %d: %s", rawQuery, w.Code, w.Body.String())
		}
	})
}

func FuzzRequest(f *testing.F) {
	for _, seed := range [][2]string{
		{"/V1/Merchant/Transactions", "apiKey=" + merchantKey + "&fromDate=2000-01-01&toDate=2000-01-31"},
		{"/v1/merchant/transactions/1/", "APIKEY=" + merchantKey + "&contentType=application/xml"},
		{"/V1/Merchant/Transactions/abc", "apiKey=" + merchantKey + "&callback=x.y"},
		{"/V1/Affiliate/Banners", "apiKey=" + affiliateKey + "&width=468&size=Full+Banner"},
		{"/V1/Affiliate/Invoices/2", "apiKey=" + affiliateKey + "&callback=1bad"},
		{"/V1/Affiliate/Invoices/%2F", "apiKey=" + affiliateKey},
		{"/V1/Merchant/../Affiliate//Banners/", ""},
		{"/healthz", ""},
		{"/readyz/", "contentType=nope"},
		{"/", ""},
	} {
		f.Add(seed[0], seed[1])
	}
	h := newHarness(f)
	h.srv.logger = slog.New(slog.DiscardHandler) // millions of runs would fill the log buffer
	f.Fuzz(func(t *testing.T, path, rawQuery string) {
		target := path
		if rawQuery != "" {
			target += "?" + rawQuery
		}
		u, err := url.ParseRequestURI(target)
		if err != nil {
			t.Skip("not a request target net/http would accept")
		}
		r := &http.Request{Method: "GET", URL: u, RequestURI: target, Header: http.Header{}, Host: "example.com"}
		w := httptest.NewRecorder()
		h.srv.Handler().ServeHTTP(w, r.WithContext(context.Background()))
		if w.Code >= 500 {
			t.Fatalf("target %q: status %d: %s", target, w.Code, w.Body.String())
		}
	})
}
