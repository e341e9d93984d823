package importfile_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/importfile"
)

// spaced serves head, then n bytes of white space c, then tail, without
// holding the white space, and counts the bytes it has served.
type spaced struct {
	head, tail string
	c          byte
	n          int64
	served     atomic.Int64 // read by the test while the reader may read on
}

func (s *spaced) Read(p []byte) (int, error) {
	var n int
	for n < len(p) {
		switch at := s.served.Load(); {
		case at < int64(len(s.head)):
			p[n] = s.head[at]
		case at < int64(len(s.head))+s.n:
			p[n] = s.c
		case at < int64(len(s.head))+s.n+int64(len(s.tail)):
			p[n] = s.tail[at-int64(len(s.head))-s.n]
		default:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
		n++
		s.served.Add(1)
	}
	return n, nil
}

// TestAWhiteSpaceRunIsRefusedAsItIsRead: encoding/json keeps the white
// space it looks past between two tokens, so a long run is refused once
// it passes 1 MiB, naming its byte, before more of it is read: 64 MiB of
// it would otherwise be held whole.
func TestAWhiteSpaceRunIsRefusedAsItIsRead(t *testing.T) {
	for _, tt := range []struct {
		name, head, tail string
		c                byte
		want             string
	}{
		{"in the file's object", `{`, `}`, ' ', "the white space at byte 1 runs longer than 1048576 bytes"},
		{"in a collection", `{"Merchants": [`, `]}`, ' ', "the white space at byte 15 runs longer than 1048576 bytes"},
		{"between two records", `{"Merchants": [{"Id": 1, "Name": "x"},`, `{"Id": 2, "Name": "y"}]}`, '\t',
			"Merchants[1]: the white space at byte 38 runs longer than 1048576 bytes"},
		{"after the file's object", `{}`, ``, '\n', "the white space at byte 2 runs longer than 1048576 bytes"},
		{"in a record", `{"Merchants": [{"Id": 1,`, `"Name": "x"}]}`, '\r',
			"Merchants[0]: the white space at byte 24 runs longer than 1048576 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := &spaced{head: tt.head, tail: tt.tail, c: tt.c, n: 64 << 20}
			_, err := importfile.Parse(in, time.UTC)
			if got := afftrack.ErrorMessage(err); got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
			if n := in.served.Load(); n > 2<<20 {
				t.Errorf("%d bytes read, want the run refused within its first 2 MiB", n)
			}
		})
	}
	t.Run("a run of 1 MiB is white space like any other", func(t *testing.T) {
		in := &spaced{head: `{"Merchants": [`, tail: `{"Id": 1, "Name": "x"}]}`, c: '\n', n: 1 << 20}
		if d, err := importfile.Parse(in, time.UTC); err != nil || len(d.Merchants) != 1 {
			t.Errorf("Parse: %v", err)
		}
	})
}

// endless serves a Merchants collection that never ends, counting the
// reads it begins once stopped.
type endless struct {
	next    int
	buf     []byte
	stopped atomic.Bool
	after   atomic.Int32
}

func (e *endless) Read(p []byte) (int, error) {
	if e.stopped.Load() {
		e.after.Add(1)
	}
	if len(e.buf) == 0 {
		if e.next == 0 {
			e.buf = append(e.buf, `{"Merchants": [`...)
		}
		e.next++
		e.buf = fmt.Appendf(e.buf, `{"Id": %d, "Name": "m"},`, e.next)
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

func TestReaderStopsReadingOnceItsContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &endless{}
	rd := importfile.NewReader(ctx, in, importfile.Options{ChunkSize: 10})
	defer rd.Close()
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	in.stopped.Store(true)
	cancel()
	var err error
	// What the reader had buffered it may still hand on; a chunk is ten
	// records of about 25 bytes, so a few thousand chunks would mean it
	// read on.
	for range 10_000 {
		if _, err = rd.Next(); err != nil {
			break
		}
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Next: %v, want the context's error", err)
	}
	// The reader reads a buffer ahead: one read under way may end.
	if n := in.after.Load(); n > 1 {
		t.Errorf("the file was read %d times after the context was done, want at most once", n)
	}
}

// stalled serves head, then waits in Read until released, as standard
// input does while nothing is written to it; entered is closed when it
// begins to wait.
type stalled struct {
	head     string
	entered  chan struct{}
	released chan struct{}
}

func (s *stalled) Read(p []byte) (int, error) {
	if s.head != "" {
		n := copy(p, s.head)
		s.head = s.head[n:]
		return n, nil
	}
	close(s.entered)
	<-s.released
	return 0, io.EOF
}

func TestReaderStopsWaitingForInputOnceItsContextIsDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := &stalled{head: `{"Merchants": [{"Id": 1, "Name": "m"},`, entered: make(chan struct{}), released: make(chan struct{})}
	defer close(in.released)
	errs := make(chan error)
	go func() {
		rd := importfile.NewReader(ctx, in, importfile.Options{})
		defer rd.Close()
		_, err := rd.Next()
		errs <- err
	}()
	<-in.entered
	cancel()
	if err := <-errs; !errors.Is(err, context.Canceled) {
		t.Fatalf("Next: %v, want the context's error", err)
	}
}

// TestADuplicateNamesBothPlacesHoweverFarApart: the ids are remembered
// compactly, by their position among the collection's records; a
// duplicate still names the record that gave the key first.
func TestADuplicateNamesBothPlacesHoweverFarApart(t *testing.T) {
	const n = 20_000 // past a block of remembered keys and several growths
	many := func(collection string, record func(i int) string, again int) string {
		var b strings.Builder
		b.WriteString(`{"` + collection + `": [`)
		for i := range n {
			b.WriteString(record(i) + ",")
		}
		b.WriteString(record(again) + "]}")
		return b.String()
	}
	for _, tt := range []struct{ name, doc, want string }{
		{"a click id", many("Clicks", func(i int) string {
			return fmt.Sprintf(`{"ClickId": "%032x", "Date": "2024-01-01", "MerchantId": 1, "AffiliateId": 1}`, i+1)
		}, 17_000), fmt.Sprintf("Clicks[%d].ClickId: %032x is also Clicks[17000].ClickId", n, 17_001)},
		{"a currency's day", many("CurrencyRates", func(i int) string {
			return fmt.Sprintf(`{"Code": "USD", "Date": "%s", "Rate": 1.5}`, time.Date(1900, 1, 1+i, 0, 0, 0, 0, time.UTC).Format(time.DateOnly))
		}, 13_333), fmt.Sprintf("CurrencyRates[%d].Date: USD on 1936-07-04 is also CurrencyRates[13333]", n)},
		{"a transaction id", many("Transactions", func(i int) string {
			return fmt.Sprintf(`{"Id": %d, "MerchantId": 1, "AffiliateId": 1, "DateCreated": "2024-01-01", "TrafficType": "Website",
				"CreativeType": "Text Link", "CustomerType": "New", "TrackingMethod": "Cookie", "Status2": "Pending"}`, 1+i*1000)
		}, 19_999), fmt.Sprintf("Transactions[%d].Id: 19999001 is also Transactions[19999].Id", n)},
		{"a membership", many("Memberships", func(i int) string {
			return fmt.Sprintf(`{"AffiliateId": %d, "MerchantId": %d}`, 1+i%200, 1+i/200)
		}, 201), fmt.Sprintf("Memberships[%d].AffiliateId: affiliate 2 and merchant 2 are also Memberships[201]", n)},
		{"an affiliate id, the affiliates with keys", many("Affiliates", func(i int) string {
			return fmt.Sprintf(`{"Id": %d, "ContactName": "a", "ApiKeys": ["%s-%06d", "%s-%06d"]}`, i+1, strongKey, 2*i, strongKey, 2*i+1)
		}, 15_000), fmt.Sprintf("Affiliates[%d].Id: 15001 is also Affiliates[15000].Id", n)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := importfile.Parse(strings.NewReader(tt.doc), time.UTC)
			if got := afftrack.ErrorMessage(err); got != tt.want {
				t.Errorf("error %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("a key of another account", func(t *testing.T) {
		doc := `{"Merchants": [{"Id": 1, "Name": "m", "ApiKeys": ["` + strongKey + `-1"]}, {"Id": 2, "Name": "m", "ApiKeys": ["` +
			strongKey + `-2", "` + strongKey + `-3"]}], "Affiliates": [{"Id": 1, "ContactName": "a"}, {"Id": 2, "ContactName": "a", "ApiKeys": ["` +
			strongKey + `-4", "` + strongKey + `-3"]}]}`
		_, err := importfile.Parse(strings.NewReader(doc), time.UTC)
		if got, want := afftrack.ErrorMessage(err), "Affiliates[1].ApiKeys[1]: the key is also Merchants[1].ApiKeys[1]"; got != want {
			t.Errorf("error %q, want %q", got, want)
		}
	})
}

// TestReaderRemembersARecordInAbout20Bytes: what a file of many small
// records costs is the keys the Reader remembers to find duplicates; a
// Go map of key and index took about twice as much. Measured as the live
// heap once the file is read, not as time.
func TestReaderRemembersARecordInAbout20Bytes(t *testing.T) {
	// Just short of a growth of the remembered keys' slots, as a map's
	// would be too: memberships, whose key (two ids) is a click id's size.
	const n = 98_000
	live := importfile.LiveHeap
	var b strings.Builder
	b.WriteString(`{"Memberships": [`)
	for i := range n {
		fmt.Fprintf(&b, `{"AffiliateId": %d, "MerchantId": %d},`, 1+i%1000, 1+i/1000)
	}
	doc := strings.TrimSuffix(b.String(), ",") + "]}"
	before := live()
	rd := importfile.NewReader(context.Background(), strings.NewReader(doc), importfile.Options{})
	defer rd.Close()
	eachChunk(t, rd, func(*afftrack.Dataset) {})
	perRecord := float64(live()-before) / n
	runtime.KeepAlive(rd)
	runtime.KeepAlive(doc)
	if perRecord > 28 {
		t.Errorf("%.1f bytes a record remembered, want about 20", perRecord)
	}
	t.Logf("%.1f bytes a record remembered", perRecord)
}

// eachChunk hands fn each chunk rd reads until the file's end, failing t
// at an error.
func eachChunk(t *testing.T, rd *importfile.Reader, fn func(*afftrack.Dataset)) {
	t.Helper()
	for {
		d, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			return
		}
		fn(d)
	}
}
