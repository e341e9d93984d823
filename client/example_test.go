package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"github.com/afftrack/afftrack/client"
)

// This example is the README's "Go client" section: a test checks that
// the README shows this body from its second statement on.
func Example() {
	baseURL := client.DemoServerURL() // the README's reader runs `afftrack serve --demo` instead

	ctx := context.Background()
	c := client.New(baseURL, "demo-merchant-1-key")

	// The merchant's transactions of January 2024.
	txs, err := c.Merchant().Transactions(ctx, client.MerchantTransactionsParams{
		From: time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC),
		To:   time.Date(2024, time.January, 31, 0, 0, 0, 0, time.UTC),
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range txs {
		fmt.Println(t.ID, t.OrderID, t.Status2, t.SaleValue, t.Commission, t.DateCreated.Format(time.DateTime))
	}

	// Another merchant's transaction is not found.
	_, err = c.Merchant().Transaction(ctx, 6)
	var apiErr *client.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusNotFound {
		fmt.Println("transaction 6:", apiErr.Message)
	}
	// Output:
	// 1 T0001 Paid 100.0000 10.0000 2024-01-01 09:15:00
	// 2 T0002 Void 80.0000 8.0000 2024-01-03 14:02:11
	// 3 T0003 Pending 60.0000 6.0000 2024-01-10 20:45:30
	// 4 T0004 Approved 250.0000 25.0000 2024-01-15 11:00:00
	// 5 T0005 Locked 35.5000 3.5500 2024-01-31 23:59:59
	// transaction 6: The requested item could not be found.
}
