package api

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// bodyReadTimeout bounds how long a body may take to arrive, so a client
// that sends headers and then nothing holds no connection.
const bodyReadTimeout = 10 * time.Second

// readBody reads the request's body of at most max bytes within
// bodyReadTimeout, without a leading UTF-8 byte order mark, which RFC 8259
// lets a parser ignore and some platforms' writers put first. A
// Content-Length above max is refused before a byte is read; the
// connection is then closed unread (withoutBody).
func readBody(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	tooLarge := afftrack.Errorf(afftrack.EINVALID, "the body is larger than %d bytes", max)
	if r.ContentLength > max {
		return nil, tooLarge
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(bodyReadTimeout)) // no connection to bound in a test's recorder
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
	_ = rc.SetReadDeadline(time.Time{})
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, afftrack.Errorf(afftrack.EINVALID, "the body could not be read in time")
		}
		// A chunk size that is not one, a chunk longer or shorter than
		// it says, a body cut short: the client's fault, not the clock's.
		return nil, afftrack.Errorf(afftrack.EINVALID, "the body could not be read: %s", bodyProblem(err))
	}
	return bytes.TrimPrefix(body, []byte("\ufeff")), nil
}

// bodyProblem says what is wrong with a body whose reading failed for
// other than its size or time, without quoting it. net/http's errors of
// chunked encoding are not exported; they all speak of a chunk.
func bodyProblem(err error) string {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "it ended before all of it came"
	case strings.Contains(err.Error(), "chunk"):
		return "its chunked encoding is malformed"
	}
	return "the connection failed while it was read"
}

// handleConversion records a conversion the merchant's server reports
// (tracking.md section 3): 201 with the new transaction, 200 with the
// stored one when the same OrderId comes again with the same content.
func (s *Server) handleConversion(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	// A conversion refused before it is recorded is counted as one
	// recorded is, by recordConversion.
	refused := func(err error) error {
		s.svc.Observer.Conversion(conversionOutcome(false, err))
		return err
	}
	body, err := readBody(w, r, maxConversionBody)
	if err != nil {
		return refused(err)
	}
	in, err := parseConversionBody(body)
	if err != nil {
		return refused(err)
	}
	c, err := in.conversion(account.Ref.ID, s.cfg.Currency, s.location())
	if err != nil {
		return refused(err)
	}
	c.Actor = afftrack.AccountActor(account)
	t, created, err := s.recordConversion(r, c)
	if err != nil {
		return err
	}
	w.Header().Set("Location", s.nsMerchant+"/Transactions/"+strconv.FormatInt(t.ID, 10))
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	s.respondTransaction(w, r, status, t, merchantEncoding)
	return nil
}

// recordConversion records c. A click made moments ago may not be stored
// yet: if this process holds it, the buffer is written and the conversion
// tried again; if another replica does, it is written within ClickFlush,
// so the conversion waits up to twice that and tries once more. Only a
// conversion that would be refused pays for the waits.
func (s *Server) recordConversion(r *http.Request, c *afftrack.Conversion) (*afftrack.Transaction, bool, error) {
	t, created, err := s.svc.Conversions.RecordConversion(r.Context(), c)
	if afftrack.ErrorCode(err) == afftrack.EUNPROCESSABLE && c.ClickID != "" {
		switch ferr := s.svc.Clicks.Flush(r.Context()); {
		case ferr == nil:
			t, created, err = s.svc.Conversions.RecordConversion(r.Context(), c)
		case r.Context().Err() == nil:
			// The click may be one this process holds and cannot write
			// now: a 422 would tell the merchant to give up on a sale a
			// retry will credit.
			t, created, err = nil, false, errClickNotStored
		}
	}
	if afftrack.ErrorCode(err) == afftrack.EUNPROCESSABLE && c.ClickID != "" && s.cfg.ClickFlush > 0 {
		wait := min(2*s.cfg.ClickFlush, time.Second)
		select {
		case <-time.After(wait):
			t, created, err = s.svc.Conversions.RecordConversion(r.Context(), c)
		case <-r.Context().Done():
		}
	}
	s.svc.Observer.Conversion(conversionOutcome(created, err))
	return t, created, err
}

// errClickNotStored answers a conversion whose click may be among those
// this process holds while the database refuses their write.
var errClickNotStored = afftrack.Errorf(afftrack.EUNAVAILABLE,
	"The click of this conversion may not be stored yet: the database is not taking writes. Send the conversion again in a few seconds.")

// conversionOutcome names what became of a conversion, for metrics.
func conversionOutcome(created bool, err error) string {
	switch afftrack.ErrorCode(err) {
	case "":
		if created {
			return "created"
		}
		return "repeated"
	case afftrack.EUNPROCESSABLE:
		return "not_credited"
	case afftrack.ECONFLICT:
		return "conflict"
	case afftrack.EINVALID:
		return "invalid"
	case afftrack.EUNAVAILABLE:
		return "unavailable"
	}
	return "error"
}

// pixelGIF is a 1x1 transparent GIF.
var pixelGIF = []byte{
	'G', 'I', 'F', '8', '9', 'a', 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff,
	0x21, 0xf9, 4, 1, 0, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3b,
}

// handlePixel records a conversion reported by the pixel on the
// merchant's order page: the same fields as the S2S call, in the query,
// the click from ClickId or the afftrack_{merchantId} cookie. It always
// answers the GIF; the outcome goes to the log and the metrics, since the
// page's visitor is not the one to tell.
func (s *Server) handlePixel(w http.ResponseWriter, r *http.Request) {
	defer writePixel(w)
	if r.Method == http.MethodHead {
		return // a prefetch or a link checker: no sale is recorded
	}
	merchantID, err := strconv.ParseInt(pathValue(r, "merchantId"), 10, 64)
	if err != nil || merchantID < 1 {
		s.pixelRefused(r, 0, afftrack.Errorf(afftrack.EINVALID, "merchantId: not an id"))
		return
	}
	if r.UserAgent() == afftrack.NotificationUserAgent {
		s.pixelRefused(r, merchantID, afftrack.Errorf(afftrack.EINVALID,
			"a notification of this service is not a sale: an affiliate's NotificationUrl points at the pixel"))
		return
	}
	in, err := pixelInput(stateOf(r).query)
	if err != nil {
		s.pixelRefused(r, merchantID, err)
		return
	}
	if in.values["ClickId"] == "" {
		if ck, err := r.Cookie("afftrack_" + strconv.FormatInt(merchantID, 10)); err == nil {
			in.values["ClickId"] = ck.Value
		}
	}
	c, err := in.conversion(merchantID, s.cfg.Currency, s.location())
	if err != nil {
		s.pixelRefused(r, merchantID, err)
		return
	}
	c.Pixel = true
	_, created, err := s.recordConversion(r, c)
	s.pixelOutcome(r, merchantID, conversionOutcome(created, err), err)
}

// writePixel answers the pixel's GIF.
func writePixel(w http.ResponseWriter) {
	h := w.Header()
	h.Set(headerContentType, "image/gif")
	h.Set(headerContentLength, strconv.Itoa(len(pixelGIF)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(pixelGIF)
}

// isPixel reports whether r's path is the pixel's route as the router
// will match it (canonicalPath): the tracking path's /px/ and one segment.
// withoutBody needs to know before the routes are reached.
func (s *Server) isPixel(r *http.Request) bool {
	p, ok := canonicalPath(stateOf(r).path)
	prefix := strings.ToLower(s.trackingPath) + "/px/"
	return ok && s.svc.Conversions != nil && strings.HasPrefix(p, prefix) && len(p) > len(prefix) &&
		!strings.Contains(p[len(prefix):], "/")
}

// pixelRefused counts and logs a pixel refused before its conversion
// reached the store.
func (s *Server) pixelRefused(r *http.Request, merchantID int64, err error) {
	s.svc.Observer.Conversion("invalid")
	s.pixelOutcome(r, merchantID, "invalid", err)
}

// pixelOutcome logs what became of a pixel's conversion.
func (s *Server) pixelOutcome(r *http.Request, merchantID int64, outcome string, err error) {
	args := []any{"request_id", stateOf(r).id, "merchant", merchantID, "outcome", outcome}
	if err != nil {
		if afftrack.ErrorCode(err) == afftrack.EINTERNAL {
			if r.Context().Err() != nil {
				// The visitor left while the conversion waited.
				s.clientGone(r, err)
				args = append(args, "error", err.Error())
			} else {
				// The pixel answers its GIF whatever happened, so the
				// cause is logged here as writeError would log it.
				s.logInternal(r, fmt.Errorf("pixel conversion: %w", err))
			}
		}
		args = append(args, "reason", clipped(afftrack.ErrorMessage(err), maxLoggedText))
	}
	level := slog.LevelInfo
	if afftrack.ErrorCode(err) == afftrack.EUNAVAILABLE {
		// A browser does not send a pixel again: this sale is lost; and
		// a refusal of the database's (a full disk) is an operator's
		// to act on, as writeError logs it.
		level = slog.LevelWarn
		if carriesCause(err) {
			level = slog.LevelError
			args = append(args, "error", err.Error())
		}
	}
	s.logger.Log(r.Context(), level, "pixel conversion", args...)
}

// maxPixelItemPlaces bounds the places of the pixel's repeated item
// parameters read, empty ones included (an item whose every parameter is
// empty is none, so a page may leave many): what a cart of
// maxConversionItems items can need, with room for empty ones, and no
// more, whatever the length of the query.
const maxPixelItemPlaces = 4 * maxConversionItems

// pixelItemParams maps the pixel's item parameters to the item's fields.
var pixelItemParams = map[string]string{"Sku": "Sku", "Quantity": "Quantity", "ItemSaleValue": "SaleValue",
	"Category": "Category", "Name": "Name", "Brand": "Brand"}

// pixelFields are the parameters the pixel reads: a conversion's fields
// (its Items are the item parameters) and the item parameters.
var pixelFields = func() []string {
	fields := slices.Clone(conversionFields)
	for p := range pixelItemParams {
		fields = append(fields, p)
	}
	return fields
}()

// pixelInput reads a pixel's query: the conversion's fields by name, and
// the items from Sku, Quantity, ItemSaleValue and Category repeated in
// order (the n-th of each makes the n-th item).
func pixelInput(q query) (*conversionInput, error) {
	in := &conversionInput{values: map[string]string{}, isNum: map[string]bool{}}
	// A field the pixel reads whose value is not correctly percent-encoded
	// refuses the sale, as the API's 400 would: taken as absent, a
	// CurrencyCode=USD%zz would book the sale in the network's currency.
	for _, p := range q {
		if !p.badEscape {
			continue
		}
		for _, f := range pixelFields {
			if asciiEqualFold(p.name, f) {
				return nil, afftrack.Errorf(afftrack.EINVALID, "%s: %q is not correctly percent-encoded", f, p.value)
			}
		}
	}
	for _, f := range conversionFields {
		if v := q.get(f); v != "" && f != "Items" {
			in.values[f] = v
		}
	}
	// A field given twice with two values is refused, as in a body: which
	// one the merchant meant cannot be told.
	for _, p := range q {
		if p.badEscape || p.value == "" {
			continue
		}
		for f, v := range in.values {
			if asciiEqualFold(p.name, f) && p.value != v {
				return nil, afftrack.Errorf(afftrack.EINVALID, "%s: is given twice, as %q and %q", f, v, p.value)
			}
		}
	}
	counts := map[string]int{}
	for _, p := range q {
		if p.badEscape {
			continue // absent, as get has it
		}
		for param, field := range pixelItemParams {
			if !asciiEqualFold(p.name, param) {
				continue
			}
			i := counts[field]
			counts[field]++
			if i >= maxPixelItemPlaces {
				continue
			}
			for len(in.items) <= i {
				in.items = append(in.items, map[string]string{})
				in.itemsN = append(in.itemsN, map[string]bool{})
			}
			if p.value != "" { // left empty: absent from its item, which keeps its place
				in.items[i][field] = p.value
			}
		}
	}
	for _, n := range counts {
		if n > maxPixelItemPlaces {
			return nil, afftrack.Errorf(afftrack.EINVALID, "Items: has %d places of an item parameter, empty ones included; at most %d",
				n, maxPixelItemPlaces)
		}
	}
	// An item whose every parameter was left empty is no item: a pixel
	// template's `&Sku=&Category=` where the page had no cart.
	kept := 0
	for i := range in.items {
		if len(in.items[i]) > 0 {
			in.items[kept], in.itemsN[kept] = in.items[i], in.itemsN[i]
			kept++
		}
	}
	in.items, in.itemsN = in.items[:kept], in.itemsN[:kept]
	if len(in.items) > maxConversionItems {
		// As the body's: a cart cut short would be credited at less
		// than its sale.
		return nil, afftrack.Errorf(afftrack.EINVALID, "Items: has %d items; at most %d", len(in.items), maxConversionItems)
	}
	return in, nil
}
