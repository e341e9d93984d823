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

	// The merchant's transactions of January 2024 that are not final yet.
	txs, err := c.Merchant().Transactions(ctx, client.MerchantTransactionsParams{
		From:   time.Date(2024, time.January, 1, 0, 0, 0, 0, time.UTC),
		To:     time.Date(2024, time.January, 31, 0, 0, 0, 0, time.UTC),
		Status: client.StatusPending, // Pending and Locked
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
	// 3 T0003 Pending 60.0000 6.0000 2024-01-10 20:45:30
	// 5 T0005 Locked 35.5000 3.5500 2024-01-31 23:59:59
	// transaction 6: The requested item could not be found.
}
