package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/afftrack/afftrack"
)

// settingTimeZone is the settings row of the network's time zone.
const settingTimeZone = "time_zone"

// CheckTimeZone records name as the network's time zone if the database
// has none yet, and otherwise checks that it is the one recorded: the
// stored datetimes are wall clocks of that zone, so serving or importing
// under another would shift every one of them. A mismatch is an EINVALID
// error that names both zones.
func (db *DB) CheckTimeZone(ctx context.Context, name string) error {
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO NOTHING`, settingTimeZone, name); err != nil {
		return fmt.Errorf("record time zone: %w", err)
	}
	var stored string
	err := db.sql.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = $1`, settingTimeZone).Scan(&stored)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("read time zone: the setting vanished")
	case err != nil:
		return fmt.Errorf("read time zone: %w", err)
	case stored != name:
		return afftrack.Errorf(afftrack.EINVALID,
			"the database was created for time zone %s; --timezone %s would shift every datetime (run with --timezone %s)",
			stored, name, stored)
	}
	return nil
}
