// Package importfile reads afftrack's import file: one JSON document whose
// optional collections (Merchants, Affiliates, Memberships, Transactions,
// BannerGroups, Banners, Invoices, Coupons, Promotions, CurrencyRates,
// Clicks) hold records in the API's own field names. It checks
// everything that needs no stored data — types, formats, lengths,
// required fields, enumerations, status invariants, ids given twice — and
// names the collection, the record's index and the field of the first
// problem. References between records are checked by the store, which
// also sees what is already stored.
//
// The file is read as a stream, a record at a time, and handed on in
// chunks, so memory grows with its size only by the keys remembered to
// find duplicates (seen): about 16 bytes a record.
package importfile

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// Options tune how a file is read. The zero value reads in UTC.
type Options struct {
	// Location is the network's time zone: datetimes without a zone are
	// its wall clocks, zoned ones are converted to it. Nil is UTC.
	Location *time.Location

	// AllowWeakKeys accepts API keys shorter than the rule of strongKey,
	// for the demo data set only, whose keys are meant to be typed.
	AllowWeakKeys bool

	// ChunkSize is how many records a chunk holds at most; 0 is 2,000.
	ChunkSize int
}

func (o *Options) location() *time.Location {
	if o.Location == nil {
		return time.UTC
	}
	return o.Location
}

// Parse reads a whole import document from r into one Dataset. Datetimes
// without a zone are wall clocks of loc; zoned ones are converted to it.
// It holds the whole file's records; a file of any size is read with a
// Reader.
func Parse(r io.Reader, loc *time.Location) (*afftrack.Dataset, error) {
	return ParseOptions(r, Options{Location: loc})
}

// ParseOptions is Parse with options.
func ParseOptions(r io.Reader, opts Options) (*afftrack.Dataset, error) {
	rd := NewReader(context.Background(), r, opts)
	defer rd.Close()
	all := &afftrack.Dataset{}
	for {
		d, err := rd.Next()
		if err != nil {
			return nil, err
		}
		if d == nil {
			return all, nil
		}
		for _, at := range d.ProgramAt {
			all.ProgramAt = append(all.ProgramAt, d.Start.Merchants+at)
		}
		all.Merchants = append(all.Merchants, d.Merchants...)
		all.Programs = append(all.Programs, d.Programs...)
		all.Coupons = append(all.Coupons, d.Coupons...)
		all.CurrencyRates = append(all.CurrencyRates, d.CurrencyRates...)
		all.Affiliates = append(all.Affiliates, d.Affiliates...)
		all.Memberships = append(all.Memberships, d.Memberships...)
		all.Transactions = append(all.Transactions, d.Transactions...)
		all.Banners = append(all.Banners, d.Banners...)
		all.Invoices = append(all.Invoices, d.Invoices...)
		all.BannerGroups = append(all.BannerGroups, d.BannerGroups...)
		all.Promotions = append(all.Promotions, d.Promotions...)
		all.Clicks = append(all.Clicks, d.Clicks...)
	}
}

// collections lists the file's collections in the order the store must
// write them: each refers only to those before it.
var collections = [numCollections]string{"Merchants", "Affiliates", "Memberships", "Transactions", "BannerGroups",
	"Banners", "Invoices", "Coupons", "Promotions", "CurrencyRates", "Clicks"}

// numCollections is the number of collections a file may hold.
const numCollections = 11

// collectionList names the collections for error messages: "A, B or C".
func collectionList() string {
	return strings.Join(collections[:numCollections-1], ", ") + " or " + collections[numCollections-1]
}

// collectionIndex returns the index in collections of a name in any case,
// or -1.
func collectionIndex(name string) int {
	for i, c := range collections {
		if strings.EqualFold(c, name) {
			return i
		}
	}
	return -1
}

// Reader reads an import file as a stream of chunks. A collection is read
// as it comes when every collection before it (in the order of
// collections) has been read; one that comes too early (a file whose keys
// are in alphabetical order puts Banners before Merchants) is copied to a
// temporary file and read once the file has ended, so records always reach
// the store after the accounts they refer to, and memory stays bounded.
type Reader struct {
	ctx   context.Context
	opts  Options
	in    *stoppable
	dec   *json.Decoder
	begun bool
	ended bool // the top-level object is read

	cur      int           // index of the collection being read, -1 for none
	curDec   *json.Decoder // where its elements come from
	curIndex int           // index in the file of its next element
	curSpool *os.File      // the spool it is read from, if any

	seen   [numCollections]bool     // collections met in the file
	done   [numCollections]bool     // collections read to the end
	spools [numCollections]*os.File // collections put aside until the file ends

	dup duplicates
	err error // the first, which ends the reading
}

// NewReader returns a Reader of the import file r. Once ctx is done the
// Reader reads no more, and Next returns its cause: a signal stops an
// import while it reads, however long the file or standard input runs.
func NewReader(ctx context.Context, r io.Reader, opts Options) *Reader {
	if opts.ChunkSize <= 0 {
		opts.ChunkSize = 2_000
	}
	// A byte order mark, which some editors on Windows write before UTF-8,
	// is skipped, as the rates CSV's is.
	in := newStoppable(ctx, r)
	br := bufio.NewReader(in)
	if b, _ := br.Peek(3); string(b) == "\uFEFF" {
		_, _ = br.Discard(3)
	}
	return &Reader{ctx: ctx, opts: opts, in: in, dec: json.NewDecoder(&tokenBound{r: br}), cur: -1, dup: newDuplicates()}
}

// Close removes the Reader's temporary files and stops its reading.
func (rd *Reader) Close() error {
	rd.in.close()
	for i, f := range rd.spools {
		if f != nil {
			f.Close()
			os.Remove(f.Name())
			rd.spools[i] = nil
		}
	}
	if rd.curSpool != nil {
		rd.curSpool.Close()
		os.Remove(rd.curSpool.Name())
		rd.curSpool = nil
	}
	return nil
}

// errShape is the error of a file that is not one object of arrays.
func errShape(detail string) error {
	return afftrack.Errorf(afftrack.EINVALID, "the import file must be one JSON object with the collections "+
		"%s: %s", collectionList(), detail)
}

// shapeError is errShape for the decoder's error err, or otherwise when
// it has none; a bound of tokenBound is its own error, naming its byte.
func shapeError(err error, otherwise string) error {
	var e *afftrack.Error
	if errors.As(err, &e) {
		return err
	}
	return errShape(tokenProblem(err, otherwise))
}

// Next returns the next chunk of records, all of one collection, or nil
// at the end of the file. After an error it returns that error again:
// the ids remembered are those of every record before it (seen).
func (rd *Reader) Next() (*afftrack.Dataset, error) {
	if rd.err != nil {
		return nil, rd.err
	}
	d, err := rd.next()
	if err != nil && rd.ctx.Err() != nil {
		// Whatever the decoder made of the read that failed, the reason
		// is the context's.
		err = fmt.Errorf("the import file's reading stopped: %w", context.Cause(rd.ctx))
	}
	rd.err = err
	return d, err
}

func (rd *Reader) next() (*afftrack.Dataset, error) {
	if rd.ctx.Err() != nil { // the collections put aside are read from files, not through rd.in
		return nil, rd.ctx.Err()
	}
	if !rd.begun {
		rd.begun = true
		if tok, err := rd.dec.Token(); err != nil || tok != json.Delim('{') {
			return nil, shapeError(err, "it does not start with {")
		}
	}
	for {
		if rd.cur >= 0 {
			d, err := rd.readChunk()
			if err != nil || d != nil {
				return d, err
			}
			continue
		}
		if !rd.ended {
			if err := rd.nextCollection(); err != nil {
				return nil, err
			}
			continue
		}
		// The file has ended: the collections put aside, in order.
		next := -1
		for i, f := range rd.spools {
			if f != nil {
				next = i
				break
			}
		}
		if next < 0 {
			return nil, nil
		}
		f := rd.spools[next]
		rd.spools[next] = nil
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("read the import's temporary file: %w", err)
		}
		rd.cur, rd.curDec, rd.curIndex, rd.curSpool = next, json.NewDecoder(f), 0, f
	}
}

// nextCollection reads the next member of the top-level object: it starts
// reading a collection, puts it aside, or notes the object's end.
func (rd *Reader) nextCollection() error {
	if !rd.dec.More() {
		if _, err := rd.dec.Token(); err != nil { // }
			return shapeError(err, "")
		}
		if _, err := rd.dec.Token(); err != io.EOF {
			var e *afftrack.Error
			if errors.As(err, &e) {
				return err
			}
			return errShape("there is more after the object's end")
		}
		rd.ended = true
		return nil
	}
	tok, err := rd.dec.Token()
	if err != nil {
		return shapeError(err, "")
	}
	name, _ := tok.(string)
	i := collectionIndex(name)
	if i < 0 {
		return afftrack.Errorf(afftrack.EINVALID,
			"%s: is not a collection; use %s", shorten(name), collectionList())
	}
	if rd.seen[i] {
		return afftrack.Errorf(afftrack.EINVALID, "%s: is given twice in the file", collections[i])
	}
	rd.seen[i] = true
	tok, err = rd.dec.Token()
	switch {
	case err != nil:
		return shapeError(err, "")
	case tok == nil: // null: an empty collection
		rd.done[i] = true
		return nil
	case tok != json.Delim('['):
		return afftrack.Errorf(afftrack.EINVALID, "%s: must be a JSON array", collections[i])
	}
	ready := true
	for j := range i {
		ready = ready && rd.done[j]
	}
	if ready {
		rd.cur, rd.curDec, rd.curIndex = i, rd.dec, 0
		return nil
	}
	return rd.spool(i)
}

// spool copies the elements of collection i to a temporary file, one JSON
// value after another, to be read after the file's end.
func (rd *Reader) spool(i int) error {
	f, err := os.CreateTemp("", "afftrack-import-*.json")
	if err != nil {
		return fmt.Errorf("import: a temporary file for %s: %w", collections[i], err)
	}
	rd.spools[i] = f
	// The name goes at once; the open file stays readable. So an import
	// killed before Close leaves nothing in the temporary directory. Where
	// the system refuses to remove an open file, Close removes it.
	os.Remove(f.Name())
	for n := 0; rd.dec.More(); n++ {
		var raw json.RawMessage
		if err := rd.dec.Decode(&raw); err != nil {
			return afftrack.Errorf(afftrack.EINVALID, "%s[%d]: %s", collections[i], n, tokenProblem(err, ""))
		}
		if _, err := f.Write(append(raw, '\n')); err != nil {
			return fmt.Errorf("import: write a temporary file: %w", err)
		}
	}
	if _, err := rd.dec.Token(); err != nil { // ]
		return shapeError(err, "")
	}
	return nil
}

// readChunk reads up to a chunk of the current collection's records, or
// returns nil when it has ended.
func (rd *Reader) readChunk() (*afftrack.Dataset, error) {
	i := rd.cur
	d := &afftrack.Dataset{}
	start := rd.curIndex
	for n := 0; n < rd.opts.ChunkSize && rd.curDec.More(); n++ {
		var raw json.RawMessage
		if err := rd.curDec.Decode(&raw); err != nil {
			return nil, afftrack.Errorf(afftrack.EINVALID, "%s[%d]: %s", collections[i], rd.curIndex, tokenProblem(err, ""))
		}
		path := fmt.Sprintf("%s[%d]", collections[i], rd.curIndex)
		r := newRecord(path, raw, &rd.opts)
		if r.err == nil {
			rd.parse(i, r, d)
		}
		if err := r.done(); err != nil {
			return nil, err
		}
		rd.curIndex++
	}
	setStart(d, i, start)
	if rd.curIndex > start {
		return d, nil
	}
	// The collection has ended.
	if rd.curSpool == nil {
		if _, err := rd.dec.Token(); err != nil { // ]
			return nil, shapeError(err, "")
		}
	} else {
		rd.curSpool.Close()
		os.Remove(rd.curSpool.Name())
		rd.curSpool = nil
	}
	rd.done[i] = true
	rd.cur, rd.curDec = -1, nil
	return nil, nil
}

// parse reads record r of collection i into d, checking that its id (or
// key) is not one an earlier record of the file had.
func (rd *Reader) parse(i int, r *record, d *afftrack.Dataset) {
	switch collections[i] {
	case "Merchants":
		m, p := parseMerchant(r)
		rd.dup.id(r, i, m.ID)
		rd.dup.keys(r, i, rd.curIndex, m.APIKeys)
		if p != nil {
			d.Programs = append(d.Programs, *p)
			d.ProgramAt = append(d.ProgramAt, len(d.Merchants))
		}
		d.Merchants = append(d.Merchants, m)
	case "Affiliates":
		a := parseAffiliate(r)
		rd.dup.id(r, i, a.ID)
		rd.dup.keys(r, i, rd.curIndex, a.APIKeys)
		d.Affiliates = append(d.Affiliates, a)
	case "Memberships":
		m := parseMembership(r)
		rd.dup.membership(r, m)
		d.Memberships = append(d.Memberships, m)
	case "Transactions":
		t := parseTransaction(r)
		rd.dup.id(r, i, t.ID)
		d.Transactions = append(d.Transactions, t)
	case "Banners":
		b := parseBanner(r)
		rd.dup.id(r, i, b.ID)
		d.Banners = append(d.Banners, b)
	case "Invoices":
		inv := parseInvoice(r)
		rd.dup.id(r, i, inv.ID)
		d.Invoices = append(d.Invoices, inv)
	case "Coupons":
		c := parseCoupon(r)
		rd.dup.id(r, i, c.ID)
		d.Coupons = append(d.Coupons, c)
	case "CurrencyRates":
		cr := parseCurrencyRate(r)
		rd.dup.rate(r, cr)
		d.CurrencyRates = append(d.CurrencyRates, cr)
	case "BannerGroups":
		g := parseBannerGroup(r)
		rd.dup.id(r, i, g.ID)
		rd.dup.groupName(r, rd.curIndex, g)
		d.BannerGroups = append(d.BannerGroups, g)
	case "Promotions":
		p := parsePromotion(r)
		rd.dup.id(r, i, p.ID)
		d.Promotions = append(d.Promotions, p)
	case "Clicks":
		c := parseClick(r)
		rd.dup.click(r, c.ID)
		d.Clicks = append(d.Clicks, c)
	}
}

// setStart records the file index of the chunk's first record.
func setStart(d *afftrack.Dataset, i, start int) {
	switch collections[i] {
	case "Merchants":
		d.Start.Merchants = start
	case "Affiliates":
		d.Start.Affiliates = start
	case "Memberships":
		d.Start.Memberships = start
	case "Transactions":
		d.Start.Transactions = start
	case "Banners":
		d.Start.Banners = start
	case "Invoices":
		d.Start.Invoices = start
	case "Coupons":
		d.Start.Coupons = start
	case "CurrencyRates":
		d.Start.CurrencyRates = start
	case "BannerGroups":
		d.Start.BannerGroups = start
	case "Promotions":
		d.Start.Promotions = start
	case "Clicks":
		d.Start.Clicks = start
	}
}

// tokenProblem turns a decoding error into words with a byte offset where
// encoding/json knows one.
func tokenProblem(err error, otherwise string) string {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se) && strings.HasSuffix(se.Error(), "exceeded max depth"):
		// encoding/json's own words ("invalid character '[' exceeded
		// max depth") blame the character, not the nesting.
		return fmt.Sprintf("invalid JSON at byte %d: a value is nested too deeply", se.Offset)
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d: %v", se.Offset, se)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "invalid JSON: the file ends too early"
	case err != nil:
		var e *afftrack.Error
		if errors.As(err, &e) {
			return e.Message
		}
		return err.Error()
	}
	return otherwise
}
