package sqlstore

import "context"

// MigrateTo applies the migrations up to version last, for the tests of a
// migration's conversion of older data.
func (db *DB) MigrateTo(ctx context.Context, last int64) error { return db.migrateTo(ctx, last) }
