package sqlstore

import (
	"context"
	"fmt"
)

// MigrateTo applies the migrations up to version last, for the tests of a
// migration's conversion of older data.
func (db *DB) MigrateTo(ctx context.Context, last int64) error { return db.migrateTo(ctx, last) }

// HoldConversionWrites keeps s from writing conversions, which then wait
// to be written together, until release is called.
func HoldConversionWrites(s *ConversionService) (release func()) {
	s.group.writing <- struct{}{}
	return func() { <-s.group.writing }
}

// ConversionsWaiting returns how many conversions of s wait to be written.
func ConversionsWaiting(s *ConversionService) int {
	s.group.mu.Lock()
	defer s.group.mu.Unlock()
	return len(s.group.waiting)
}

// PreparedTexts returns the SQL texts db keeps prepared.
func (db *DB) PreparedTexts() []string {
	var texts []string
	db.stmts.stmts.Range(func(k, _ any) bool {
		texts = append(texts, k.(string))
		return true
	})
	return texts
}

// FillWriter makes db's SQLite file full for its write connection: no
// write that needs a page more succeeds, as on a full disk. SQLite's
// max_page_count is the connection's own, so reads are untouched.
func FillWriter(ctx context.Context, db *DB) error {
	conn := <-db.writer
	defer func() { db.writer <- conn }()
	var pages int64
	if err := conn.QueryRowContext(ctx, `PRAGMA page_count`).Scan(&pages); err != nil {
		return err
	}
	_, err := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA max_page_count = %d`, pages))
	return err
}
