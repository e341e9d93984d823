package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.CurrencyRateService = (*CurrencyRateService)(nil)

// CurrencyRateService implements afftrack.CurrencyRateService.
type CurrencyRateService struct {
	db *DB
}

// NewCurrencyRateService returns a CurrencyRateService on db.
func NewCurrencyRateService(db *DB) *CurrencyRateService { return &CurrencyRateService{db: db} }

const upsertCurrencyRate = `INSERT INTO currency_rates (code, day, rate) VALUES ($1, $2, $3)
	ON CONFLICT (code, day) DO UPDATE SET rate = excluded.rate`

// SetRates writes rates in one transaction; a rate of a code and day
// already stored is replaced.
func (s *CurrencyRateService) SetRates(ctx context.Context, rates []afftrack.CurrencyRate) error {
	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("set rates: %w", err)
	}
	defer release()
	defer rollback(tx)
	st, err := tx.PrepareContext(ctx, upsertCurrencyRate)
	if err != nil {
		return fmt.Errorf("set rates: %w", err)
	}
	defer st.Close()
	for _, r := range rates {
		if _, err := st.ExecContext(ctx, r.Code, toMillis(r.Date), int64(r.Rate)); err != nil {
			return fmt.Errorf("set rate of %s on %s: %w", r.Code, r.Date.Format(time.DateOnly), err)
		}
	}
	return tx.Commit()
}

// importCurrencyRates writes the chunk's rates.
func (im *importer) importCurrencyRates(d *afftrack.Dataset) error {
	for i, r := range d.CurrencyRates {
		if err := im.exec(upsertCurrencyRate, r.Code, toMillis(r.Date), int64(r.Rate)); err != nil {
			return fmt.Errorf("import CurrencyRates[%d]: %w", d.Start.CurrencyRates+i, err)
		}
	}
	return nil
}

// latestRate returns the rate of code dated on or before at, and false
// when there is none.
func latestRate(ctx context.Context, q queryer, code string, at time.Time) (afftrack.Rate, bool, error) {
	var rate int64
	err := q.QueryRowContext(ctx, `SELECT rate FROM currency_rates WHERE code = $1 AND day <= $2
	ORDER BY day DESC LIMIT 1`, code, toMillis(at)).Scan(&rate)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	} else if err != nil {
		return 0, false, fmt.Errorf("read rate of %s: %w", code, err)
	}
	return afftrack.Rate(rate), true, nil
}
