package afftrack_test

import (
	"testing"
	"time"

	"github.com/afftrack/afftrack"
)

func TestNewClickID(t *testing.T) {
	at := time.Date(2026, 11, 26, 9, 30, 0, 123_000_000, time.UTC)

	t.Run("an id is a click id that begins with its time's Unix milliseconds", func(t *testing.T) {
		id := afftrack.NewClickID(at)
		if !afftrack.IsClickID(id) {
			t.Fatalf("NewClickID = %q, not a click id", id)
		}
		// 2026-11-26T09:30:00.123Z is 1,795,685,400,123 ms: 0x01a21730be3b.
		if want := "01a21730be3b"; id[:12] != want {
			t.Errorf("NewClickID(%v) = %q, want it to begin with %s", at, id, want)
		}
	})

	t.Run("ids of one millisecond differ in their random part", func(t *testing.T) {
		seen := map[string]bool{}
		for range 1000 {
			id := afftrack.NewClickID(at)
			if seen[id] {
				t.Fatalf("NewClickID gave %q twice", id)
			}
			seen[id] = true
		}
	})

	t.Run("a later click's id sorts after an earlier one's", func(t *testing.T) {
		for _, d := range []time.Duration{time.Millisecond, time.Second, 24 * time.Hour, 100 * 365 * 24 * time.Hour} {
			earlier, later := afftrack.NewClickID(at), afftrack.NewClickID(at.Add(d))
			if earlier >= later {
				t.Errorf("the id %s after %v sorts before the earlier %s", later, d, earlier)
			}
		}
	})
}
