// Package client is a Go client for afftrack's V1 REST interface, the
// affiliate-tracking API of an affiliate network: transactions, banners,
// merchants, coupons, promotions, invoices and reports for affiliates;
// transactions, affiliates, banners, coupons, promotions, reports,
// conversions and validations for merchants.
//
// A [Client] holds one API key, and a key belongs to one account: an
// affiliate's key calls the functions of [Client.Affiliate], a merchant's
// those of [Client.Merchant]. The other kind's functions answer 401.
//
//	c := client.New("http://localhost:8080", "demo-merchant-1-key")
//	txs, err := c.Merchant().Transactions(ctx, client.MerchantTransactionsParams{
//		From: time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC),
//		To:   time.Date(2024, time.January, 31, 0, 0, 0, 0, time.UTC),
//	})
//
// # Values
//
// Money is a [Decimal]: the number exactly as the server wrote it, never a
// float, so 0.1 + 0.2 problems cannot creep into commissions. Datetimes
// are [time.Time]; the server writes them without a zone, as wall-clock
// times of the network's time zone, so give the client that zone with
// [WithLocation] when it is not UTC. Nullable fields are pointers.
// Enumerations are string types with a constant for each value the
// contract names; a value the server adds later still decodes.
//
// # Parameters
//
// Every function takes a parameter struct (or an id). Optional filters
// are absent when zero: an empty string, a 0 id or width, an empty
// enumeration. Booleans, where false is a filter of its own, are
// pointers: nil is absent. Dates ([time.Time]) are sent as their calendar
// date in their own location, which is all the server reads of them.
//
// # Errors
//
// An answer other than 2xx is an [*Error] carrying the status code, the
// server's message and, for 429 and 503, how long to wait:
//
//	var apiErr *client.Error
//	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusTooManyRequests {
//		time.Sleep(apiErr.RetryAfter)
//	}
//
// The package uses the standard library only.
package client
