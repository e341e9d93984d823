package api

import (
	"bufio"
	"net/http"
	"sync"

	"github.com/afftrack/afftrack"
)

// streamBufferSize is the buffer between the encoder and the connection:
// large enough that a day's list (100 transactions: 150 KB of JSON, 220 KB
// of XML) leaves in one write, as each write costs a system call and the
// receiver's processing (docs/performance.md), small enough that a huge
// list never sits in memory.
const streamBufferSize = 256 << 10

// handleTransactions lists the merchant's transactions in a date range. The
// list is written as the store reads it, one transaction at a time, so
// memory stays flat however many match.
func (s *Server) handleTransactions(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	f, err := transactionFilter(stateOf(r).query, account.Ref.ID)
	if err != nil {
		return err
	}
	return s.streamTransactions(w, r, merchantEncoding, func(ts *transactionStream) error {
		return s.svc.Transactions.FindTransactions(r.Context(), f, ts.write)
	})
}

// transactionEncoding is one view's encoders of a Transaction.
type transactionEncoding struct {
	json func(b []byte, t *afftrack.Transaction) []byte
	xml  func(b []byte, t *afftrack.Transaction, ns string) []byte
}

// The views' encodings: the merchant's (the interface's Transaction) and
// the affiliate's (v1-surface.md section 3).
var (
	merchantEncoding  = transactionEncoding{json: appendTransactionJSON, xml: appendTransactionXML}
	affiliateEncoding = transactionEncoding{json: appendAffiliateTransactionJSON, xml: appendAffiliateTransactionXML}
)

// respondTransaction answers with one transaction in the negotiated format.
func (s *Server) respondTransaction(w http.ResponseWriter, r *http.Request, status int, t *afftrack.Transaction,
	enc transactionEncoding) {
	st := stateOf(r)
	buf := getBody()
	b := st.neg.open(*buf)
	if st.neg.format == formatXML {
		b = enc.xml(b, t, st.ns)
	} else {
		b = enc.json(b, t)
	}
	s.respond(w, st, status, st.neg.close(b))
	putBody(buf, b)
}

// streamTransactions writes a TransactionArray as find hands the stream
// transactions; its route holds one of the server's list slots
// (authenticatedList).
func (s *Server) streamTransactions(w http.ResponseWriter, r *http.Request, enc transactionEncoding,
	find func(*transactionStream) error) error {
	ts := newTransactionStream(w, stateOf(r), enc)
	if err := find(ts); err != nil {
		if !ts.started() {
			ts.release()
			return err
		}
		// The status line and part of the list may be out already: a
		// well-formed ending would pass a partial list off as complete,
		// so the connection is aborted instead.
		if r.Context().Err() != nil {
			s.abortClientGone(r, err)
		}
		s.logInternal(r, err)
		_ = ts.bw.Flush()
		panic(http.ErrAbortHandler)
	}
	ts.finish()
	ts.release()
	return nil
}

// handleTransaction returns one of the merchant's transactions by id.
func (s *Server) handleTransaction(w http.ResponseWriter, r *http.Request, account *afftrack.Account) error {
	id, err := parseInt("id", pathValue(r, "id"))
	if err != nil {
		return err
	}
	t, err := s.svc.Transactions.FindTransactionByID(r.Context(), account.Ref.ID, id)
	if err != nil {
		return err
	}
	s.respondTransaction(w, r, http.StatusOK, t, merchantEncoding)
	return nil
}

// transactionStream writes a TransactionArray as the store hands it
// transactions. It starts the response lazily, at the first transaction or
// at the end, so a store that fails before any row still gets a proper
// error response.
type transactionStream struct {
	w   http.ResponseWriter
	st  *requestState
	enc transactionEncoding
	bw  *bufio.Writer
	buf []byte // reused for every transaction
	n   int
	sb  *streamBuffers
}

// streamBuffers are the buffers of a transactionStream, pooled: a list's
// writer was otherwise most of the garbage a request makes.
type streamBuffers struct {
	bw  *bufio.Writer
	buf []byte
}

// streamPool holds streamBuffers between requests.
var streamPool = sync.Pool{New: func() any {
	return &streamBuffers{bw: bufio.NewWriterSize(nil, streamBufferSize), buf: make([]byte, 0, 4096)}
}}

// newTransactionStream returns a stream to w with buffers from the pool;
// release gives them back.
func newTransactionStream(w http.ResponseWriter, st *requestState, enc transactionEncoding) *transactionStream {
	sb := streamPool.Get().(*streamBuffers)
	return &transactionStream{w: w, st: st, enc: enc, buf: sb.buf[:0], sb: sb}
}

// release returns the stream's buffers to the pool, unless a transaction
// made the encoding buffer outgrow what the pool keeps. The stream must
// not be used after.
func (ts *transactionStream) release() {
	if cap(ts.buf) > maxPooledBody {
		return
	}
	ts.sb.bw.Reset(nil)
	ts.sb.buf = ts.buf[:0]
	streamPool.Put(ts.sb)
}

func (ts *transactionStream) started() bool { return ts.bw != nil }

// start writes the status, the headers and the array's opening.
func (ts *transactionStream) start() {
	ts.w.Header().Set(headerContentType, ts.st.neg.contentType())
	ts.w.WriteHeader(http.StatusOK)
	ts.bw = ts.sb.bw
	ts.bw.Reset(ts.w)
	b := ts.st.neg.open(ts.buf[:0])
	if ts.st.neg.format == formatXML {
		b = appendXMLOpen(b, "TransactionArray", ts.st.ns)
	} else {
		b = append(b, '[')
	}
	ts.buf = b
}

// write appends one transaction. It must not keep t, which the store
// reuses.
func (ts *transactionStream) write(t *afftrack.Transaction) error {
	b := ts.buf[:0]
	if !ts.started() {
		ts.start()
		b = ts.buf
	}
	if ts.st.neg.format == formatXML {
		b = ts.enc.xml(b, t, "")
	} else {
		if ts.n > 0 {
			b = append(b, ',')
		}
		b = ts.enc.json(b, t)
	}
	ts.n++
	ts.buf = b
	_, err := ts.bw.Write(b)
	return err
}

// finish closes the array and flushes. A failed write means the client has
// gone; there is no one left to tell.
func (ts *transactionStream) finish() {
	b := ts.buf[:0]
	if !ts.started() {
		ts.start()
		b = ts.buf
	}
	if ts.st.neg.format == formatXML {
		b = appendXMLClose(b, "TransactionArray")
	} else {
		b = append(b, ']')
	}
	b = ts.st.neg.close(b)
	_, _ = ts.bw.Write(b)
	_ = ts.bw.Flush()
}

// transactionFilter reads the Transactions function's parameters in the
// order of the interface's table; the first bad one is the 400.
func transactionFilter(q query, merchantID int64) (afftrack.TransactionFilter, error) {
	f := afftrack.TransactionFilter{MerchantID: merchantID}
	p := params{q: q}
	f.From, f.To, f.DateProperty = p.dateRange()
	if p.err != nil {
		return f, p.err
	}
	p.int64("affiliateId", &f.AffiliateID)
	p.text("affiliateContactName", &f.AffiliateContactName)
	p.text("affiliateBusinessName", &f.AffiliateBusinessName)
	paramEnum(&p, "trafficType", &f.TrafficType, afftrack.ParseTrafficType, afftrack.TrafficTypeNames())
	p.text("trafficSource", &f.TrafficSource)
	paramEnum(&p, "creativeType", &f.CreativeType, afftrack.ParseCreativeType, afftrack.CreativeTypeNames())
	p.int64("creativeId", &f.CreativeID)
	p.text("creativeName", &f.CreativeName)
	p.text("customerCountryCode", &f.CustomerCountryCode)
	p.text("customerCountryName", &f.CustomerCountryName)
	p.text("customerIpAddress", &f.CustomerIPAddress)
	paramEnum(&p, "customerType", &f.CustomerType, afftrack.ParseCustomerType, afftrack.CustomerTypeNames())
	p.text("orderId", &f.OrderID)
	paramEnum(&p, "trackingMethod", &f.TrackingMethod, afftrack.ParseTrackingMethod, afftrack.TrackingMethodNames())
	p.bool("trafficSourceApproved", &f.TrafficSourceApproved)
	paramEnum(&p, "status", &f.Status, afftrack.ParseTransactionStatus, afftrack.TransactionStatusNames())
	paramEnum(&p, "status2", &f.Status2, afftrack.ParseTransactionStatus2, afftrack.TransactionStatus2Names())
	p.int64("invoiceId", &f.InvoiceID)
	paramEnum(&p, "voidReason", &f.VoidReason, afftrack.ParseVoidReason, afftrack.VoidReasonNames())
	paramEnum(&p, "amendedReason", &f.AmendedReason, afftrack.ParseAmendedReason, afftrack.AmendedReasonNames())
	return f, p.err
}
