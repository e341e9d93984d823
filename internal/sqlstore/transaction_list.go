package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/afftrack/afftrack"
)

// listPage is how many transactions a list reads in one statement.
//
// A list is read a page at a time, each page read whole and its statement
// ended before any of it is handed on: on SQLite a statement is a read
// transaction, and one held while a slow client takes the answer (up to
// --write-timeout for each write) stops checkpoints at its snapshot, so
// two such clients overlapping grew the write-ahead log by gigabytes a
// minute under clicks. A page bounds how long a list holds a snapshot to
// the database's time to read it. 1,000 rows are about a megabyte.
const listPage = 1000

// maxPageItems ends a page early once its transactions hold this many
// items: a page of carts of 500 items each would otherwise hold half a
// million items in memory, and the pool would keep them.
const maxPageItems = 5000

// errPageFull stops a page's read at maxPageItems.
var errPageFull = errors.New("page full")

// errPageEnd stops a page's read at listPage transactions.
var errPageEnd = errors.New("page end")

// listQuery is a list's query, without its order: the SELECT and WHERE of
// its filters, their arguments, and the date column it is ordered by
// (then by id).
type listQuery struct {
	text     string
	args     []any
	order    string
	property afftrack.DateProperty
}

// list returns the list query w built, ordered by col, the column of p.
func (w *whereBuilder) list(col string, p afftrack.DateProperty) listQuery {
	return listQuery{text: w.b.String(), args: w.args, order: col, property: p}
}

// cursor is where a list's next page starts: after the transaction of
// date (in the list's order) and id. oneDate says that every transaction
// of the page before shared that date.
type cursor struct {
	date, id int64
	oneDate  bool
}

// first returns the statement of a list's first page.
func (q listQuery) first() (string, []any) {
	return q.text + q.orderLimit(), q.args
}

// after returns the statement of the page after c, when its page held more
// than one date. The range's start ($2, whereBuilder.start) moves to c's
// date, so the index is entered there rather than at the range's start
// for every page, and a row value leaves out that date's ids already
// read. PostgreSQL seeks the row value in the index; SQLite seeks its date
// alone and reads that date's rows from its start, which is fewer than a
// page here, as the date began within the page before.
func (q listQuery) after(c cursor) (string, []any) {
	args := q.from(c.date, c.id)
	return q.text + " AND (" + q.order + ", t.id) > ($2, $" + strconv.Itoa(len(args)) + ")" + q.orderLimit(), args
}

// sameDate returns the first of the two statements of the page after c when
// its page held one date: the rest of that date, by id. The second is
// later's. Each is a plain seek in the index of (account, date, id), where
// the row value of after would make SQLite read a date shared by many
// pages of rows (a payout run's) from its start again for each page.
func (q listQuery) sameDate(c cursor) (string, []any) {
	args := q.from(c.date, c.id)
	return q.text + " AND " + q.order + " = $2 AND t.id > $" + strconv.Itoa(len(args)) + q.orderLimit(), args
}

// later returns the statement of the transactions after date. Its bound
// is a page's, whatever sameDate read: the reader stops at a page, and a
// text that varied with what came before would take a place among the
// statements the store keeps prepared for each text it sees (stmt.go),
// one for each count, until none were left for the lookups.
func (q listQuery) later(date int64) (string, []any) {
	return q.text + " AND " + q.order + " > $2" + q.orderLimit(), q.from(date)
}

// from returns the list's arguments with the range's start ($2,
// whereBuilder.start) moved to date, and extra appended.
func (q listQuery) from(date int64, extra ...any) []any {
	args := append(slices.Clone(q.args), extra...)
	args[1] = date
	return args
}

// orderLimit is the list's order and a page's bound.
func (q listQuery) orderLimit() string {
	return " ORDER BY " + q.order + ", t.id LIMIT " + strconv.Itoa(listPage)
}

// date returns t's date in the list's order, as stored.
func (q listQuery) date(t *afftrack.Transaction) int64 {
	if q.property == afftrack.ByDateModified {
		return toMillis(t.DateModified)
	}
	return toMillis(t.DateCreated)
}

// stream runs list query q in view v a page at a time, handing fn each
// transaction; fn's error is returned as it is. Each page is read by
// statements of its own, so a list longer than a page is not one
// snapshot: ordered by DateModified, a transaction changed while the list
// is sent may come again, in its later state, further on.
func (s *TransactionService) stream(ctx context.Context, v transactionView, q listQuery,
	fn func(*afftrack.Transaction) error) error {
	p := pages.Get().(*[]afftrack.Transaction)
	heavy := false
	defer func() {
		if !heavy {
			pages.Put(p)
		}
	}()
	var after *cursor
	for {
		page, full, err := s.readPage(ctx, v, q, after, (*p)[:0])
		*p = page
		heavy = heavy || full
		if err != nil {
			return fmt.Errorf("find transactions: %w", err)
		}
		for i := range page {
			if err := fn(&page[i]); err != nil {
				return err
			}
		}
		if len(page) < listPage && !full {
			return nil
		}
		last := &page[len(page)-1]
		after = &cursor{date: q.date(last), id: last.ID, oneDate: q.date(&page[0]) == q.date(last)}
	}
}

// pages keeps the pages of lists, each reused with its transactions'
// items: a list then allocates little beyond the text of its rows. A page
// that held maxPageItems is not kept.
var pages = sync.Pool{New: func() any { return new([]afftrack.Transaction) }}

// readPage reads the page of q after after into page, whole, and ends its
// statements; full reports a page ended early at maxPageItems.
func (s *TransactionService) readPage(ctx context.Context, v transactionView, q listQuery, after *cursor,
	page []afftrack.Transaction) (_ []afftrack.Transaction, full bool, _ error) {
	items := 0
	var text string
	var args []any
	switch {
	case after == nil:
		text, args = q.first()
	case !after.oneDate:
		text, args = q.after(*after)
	default:
		text, args = q.sameDate(*after)
		var err error
		page, full, err = s.readRows(ctx, v, text, args, page, &items)
		if err != nil || full || len(page) == listPage {
			return page, full, err
		}
		text, args = q.later(after.date)
	}
	return s.readRows(ctx, v, text, args, page, &items)
}

// readRows appends the transactions of one statement to page, counting
// their items in items; full reports that they reached maxPageItems.
func (s *TransactionService) readRows(ctx context.Context, v transactionView, text string, args []any,
	page []afftrack.Transaction, items *int) (_ []afftrack.Transaction, full bool, _ error) {
	rows, err := s.db.query(ctx, text, args...)
	if err != nil {
		return page, false, err
	}
	defer rows.Close()
	next := func() *afftrack.Transaction {
		if len(page) < cap(page) {
			page = page[:len(page)+1]
		} else {
			page = append(page, afftrack.Transaction{})
		}
		return &page[len(page)-1]
	}
	err = scanTransactions(rows, v, next, func(t *afftrack.Transaction) error {
		if *items += len(t.Items); *items >= maxPageItems {
			return errPageFull
		}
		if len(page) == listPage {
			return errPageEnd
		}
		return nil
	})
	switch err {
	case errPageFull:
		return page, true, nil
	case errPageEnd:
		return page, false, nil
	}
	return page, false, err
}
