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

// page returns the statement of the page after the transaction whose
// date (in the list's order) and id are after, or the first page when
// after is nil. The range's start ($2, whereBuilder.start) moves to that
// date, so the date's index starts there rather than at the range's
// start for every page, and that date's ids already read are left out.
func (q listQuery) page(after *[2]int64) (string, []any) {
	text, args := q.text, q.args
	if after != nil {
		args = append(slices.Clone(args), after[1])
		args[1] = after[0]
		// A row value: PostgreSQL seeks to it in the index, SQLite to its
		// date (so a date shared by many rows is read again in part for
		// each of their pages; docs/performance.md). An OR was read from
		// the date's start on both, and a payout run dates thousands of
		// rows alike.
		text += " AND (" + q.order + ", t.id) > ($2, $" + strconv.Itoa(len(args)) + ")"
	}
	return text + " ORDER BY " + q.order + ", t.id LIMIT " + strconv.Itoa(listPage), args
}

// date returns t's date in the list's order, as stored.
func (q listQuery) date(t *afftrack.Transaction) int64 {
	if q.property == afftrack.ByDateModified {
		return toMillis(t.DateModified)
	}
	return toMillis(t.DateCreated)
}

// stream runs list query q in view v a page at a time, handing fn each
// transaction; fn's error is returned as it is. Each page is a statement
// of its own, so a list longer than a page is not one snapshot: ordered
// by DateModified, a transaction changed while the list is sent may come
// again, in its later state, further on.
func (s *TransactionService) stream(ctx context.Context, v transactionView, q listQuery,
	fn func(*afftrack.Transaction) error) error {
	p := pages.Get().(*[]afftrack.Transaction)
	heavy := false
	defer func() {
		if !heavy {
			pages.Put(p)
		}
	}()
	var after *[2]int64
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
		after = &[2]int64{q.date(last), last.ID}
	}
}

// pages keeps the pages of lists, each reused with its transactions'
// items: a list then allocates little beyond the text of its rows. A page
// that held maxPageItems is not kept.
var pages = sync.Pool{New: func() any { return new([]afftrack.Transaction) }}

// readPage reads the page of q after after into page, whole, and ends its
// statement; full reports a page ended early at maxPageItems.
func (s *TransactionService) readPage(ctx context.Context, v transactionView, q listQuery, after *[2]int64,
	page []afftrack.Transaction) (_ []afftrack.Transaction, full bool, _ error) {
	text, args := q.page(after)
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
	items := 0
	err = scanTransactions(rows, v, next, func(t *afftrack.Transaction) error {
		if items += len(t.Items); items >= maxPageItems {
			return errPageFull
		}
		return nil
	})
	if err == errPageFull {
		return page, true, nil
	}
	return page, false, err
}
