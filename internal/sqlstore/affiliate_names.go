package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
)

// Every transaction shows its affiliate's contact and business names, and
// the affiliate can be renamed after its transactions are stored, so the
// names are not stored with them. Joining affiliates to each row cost more
// than half of a list's time in SQLite (two B-tree searches per row), so
// the reads take the names from an affiliateNameCache instead, shared by
// the DB's services.
//
// The cache is exact, not merely fresh within a bound: each write to
// affiliates (an import's, CreateAffiliate's) adds one to the affiliates
// row of table_versions in its own transaction, each read of transactions
// reads that version in the same statement, and the cache serves a read
// only names it holds for that version. A read whose version is newer
// empties the cache; one whose version is older (a snapshot taken before
// the newest write) reads its misses from the database without caching
// them.

// affiliateVersionColumn is the select-list expression for the version of
// the affiliates that a read of transactions sees. Both engines evaluate
// an uncorrelated subquery once per statement.
const affiliateVersionColumn = `(SELECT version FROM table_versions WHERE name = 'affiliates')`

// bumpAffiliateVersion is run by every transaction that writes affiliates.
const bumpAffiliateVersion = `UPDATE table_versions SET version = version + 1 WHERE name = 'affiliates'`

// maxCachedAffiliates bounds the cache's memory (about 100 bytes an
// affiliate): a network with more active affiliates than this reads some
// names from the database, and the cache starts afresh when it is full.
const maxCachedAffiliates = 250_000

// affiliateNameCache holds affiliates' names as of one version of the
// affiliates table.
type affiliateNameCache struct {
	mu      sync.RWMutex
	version int64
	names   map[int64]affiliateNames
}

// lookup returns the names of affiliate id as of version, from the cache or
// from the database. A missing affiliate, which the foreign key and the
// importer's own checks rule out, is an internal error.
func (c *affiliateNameCache) lookup(ctx context.Context, db *DB, version, id int64) (affiliateNames, error) {
	c.mu.RLock()
	n, ok := c.names[id]
	ok = ok && c.version == version
	c.mu.RUnlock()
	if ok {
		return n, nil
	}
	// A query of its own, on another pooled connection. Its snapshot is
	// at least as new as the caller's, so the names it caches under the
	// caller's version are never older than that version: no read is
	// served names older than its own snapshot.
	if err := db.queryRow(ctx, selectAffiliate, id).Scan(&n.contact, &n.business); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			err = errors.New("no such affiliate")
		}
		return n, fmt.Errorf("affiliate %d: %w", id, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if version > c.version || c.names == nil || len(c.names) >= maxCachedAffiliates {
		c.version, c.names = max(version, c.version), make(map[int64]affiliateNames)
	}
	if version == c.version {
		c.names[id] = n
	}
	return n, nil
}
