package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

// settingTimeZone is the settings row of the network's time zone.
const settingTimeZone = "time_zone"

// settingTentativeZone marks a time zone recorded by an import still
// under way, which takes it back should it fail; the value is that
// import's own token. Whoever else relies on the zone (a serve, an import
// that commits) removes the mark, and the zone then stays.
const settingTentativeZone = "time_zone_tentative"

// CheckTimeZone records name as the network's time zone if the database
// has none yet, and otherwise checks that it is the one recorded: the
// stored datetimes are wall clocks of that zone, so serving or importing
// under another would shift every one of them. A mismatch is an EINVALID
// error that names both zones.
func (db *DB) CheckTimeZone(ctx context.Context, name string) error {
	stored, err := db.recordSetting(ctx, settingTimeZone, name)
	if err != nil {
		return fmt.Errorf("record time zone: %w", err)
	}
	if stored != name {
		return timeZoneMismatch(stored, name)
	}
	// The mark is read first: a start-up that finds none (nearly every
	// one) writes nothing, so it does not queue behind a SQLite import's
	// write lock.
	if mark, err := db.setting(ctx, settingTentativeZone); err != nil || mark == "" {
		return err
	}
	if _, err := db.sql.ExecContext(ctx, `DELETE FROM settings WHERE name = $1`, settingTentativeZone); err != nil {
		return fmt.Errorf("record time zone: %w", err)
	}
	return nil
}

// NetworkTimeZone returns the network's time zone without recording
// one: the recorded one, else name. A name the caller was given (given)
// that is not the recorded one is CheckTimeZone's error.
func (db *DB) NetworkTimeZone(ctx context.Context, name string, given bool) (string, error) {
	return db.networkSetting(ctx, settingTimeZone, name, given, timeZoneMismatch)
}

// networkSetting is NetworkTimeZone for the setting of that name, whose
// disagreement with a value given is mismatch's error.
func (db *DB) networkSetting(ctx context.Context, name, value string, given bool,
	mismatch func(stored, value string) error) (string, error) {
	stored, err := db.setting(ctx, name)
	switch {
	case err != nil:
		return "", err
	case stored == "" || stored == value:
		return value, nil
	case given:
		return "", mismatch(stored, value)
	}
	return stored, nil
}

func timeZoneMismatch(stored, name string) error {
	return afftrack.Errorf(afftrack.EINVALID,
		"the database was created for time zone %s; --timezone %s would shift every datetime (run with --timezone %s)",
		stored, name, stored)
}

// settingCurrency is the settings row of the network's currency.
const settingCurrency = "currency"

// CheckCurrency records code as the network's currency if the database
// has none yet, and otherwise checks that it is the one recorded: every
// stored amount is in that currency, so serving under another would
// misstate all of them. A mismatch is an EINVALID error naming both.
func (db *DB) CheckCurrency(ctx context.Context, code string) error {
	stored, err := db.recordSetting(ctx, settingCurrency, code)
	if err != nil {
		return fmt.Errorf("record currency: %w", err)
	}
	if stored != code {
		return currencyMismatch(stored, code)
	}
	return nil
}

// NetworkCurrency is NetworkTimeZone for the network's currency.
func (db *DB) NetworkCurrency(ctx context.Context, code string, given bool) (string, error) {
	return db.networkSetting(ctx, settingCurrency, code, given, currencyMismatch)
}

func currencyMismatch(stored, code string) error {
	return afftrack.Errorf(afftrack.EINVALID,
		"the database's amounts are in %s; --currency %s would misstate every one of them (run with --currency %s)",
		stored, code, stored)
}

// RecordedCurrency returns the network's currency as the database
// recorded it, or "" if none is recorded yet.
func (db *DB) RecordedCurrency(ctx context.Context) (string, error) {
	return db.setting(ctx, settingCurrency)
}

// setting returns the stored value of the setting, "" for none.
func (db *DB) setting(ctx context.Context, name string) (string, error) {
	var stored string
	err := db.sql.QueryRowContext(ctx, `SELECT value FROM settings WHERE name = $1`, name).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	} else if err != nil {
		return "", fmt.Errorf("read setting %s: %w", name, err)
	}
	return stored, nil
}

// recordSetting stores value as the setting's unless one is stored, and
// returns the stored one. Two processes racing both read the first. A
// setting stored already is only read.
func (db *DB) recordSetting(ctx context.Context, name, value string) (string, error) {
	if stored, err := db.setting(ctx, name); err != nil || stored != "" {
		return stored, err
	}
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO settings (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO NOTHING`, name, value); err != nil {
		return "", err
	}
	stored, err := db.setting(ctx, name)
	if err == nil && stored == "" {
		return "", errors.New("the setting vanished")
	}
	return stored, err
}

// networkNow returns the current wall clock of the network's zone, the
// recorded time_zone (UTC while none is recorded), as a record the
// network stamps carries it.
func (db *DB) networkNow(ctx context.Context) (time.Time, error) {
	zone, err := db.setting(ctx, settingTimeZone)
	if err != nil {
		return time.Time{}, err
	}
	if zone == "" {
		return afftrack.WallClock(db.clock(), time.UTC), nil
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return time.Time{}, fmt.Errorf("the recorded time zone %q: %w", zone, err)
	}
	return afftrack.WallClock(db.clock(), loc), nil
}
