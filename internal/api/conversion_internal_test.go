package api

import (
	"fmt"
	"strings"
	"testing"

	"github.com/afftrack/afftrack"
)

// TestPixelItemPlacesAreBounded: the places of an item parameter read,
// empty ones included, are bounded, and beyond the bound the refusal
// speaks of places, since the items kept may be far fewer.
func TestPixelItemPlacesAreBounded(t *testing.T) {
	query := func(places int) query {
		return parseQuery("OrderId=px-places&SaleValue=2" + strings.Repeat("&Sku=", places))
	}
	t.Run("as many as the bound are read", func(t *testing.T) {
		if _, err := pixelInput(query(maxPixelItemPlaces)); err != nil {
			t.Errorf("error %v, want none", err)
		}
	})
	t.Run("one more is refused, naming places", func(t *testing.T) {
		_, err := pixelInput(query(maxPixelItemPlaces + 1))
		want := fmt.Sprintf("Items: has %d places of an item parameter, empty ones included; at most %d",
			maxPixelItemPlaces+1, maxPixelItemPlaces)
		if err == nil || afftrack.ErrorMessage(err) != want {
			t.Errorf("error %v, want %q", err, want)
		}
	})
}
