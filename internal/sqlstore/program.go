package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/afftrack/afftrack"
)

var _ afftrack.ProgramService = (*ProgramService)(nil)

// ProgramService implements afftrack.ProgramService.
type ProgramService struct {
	db *DB
}

// NewProgramService returns a ProgramService on db.
func NewProgramService(db *DB) *ProgramService { return &ProgramService{db: db} }

// queryer is what a read needs: the pool or a transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// FindProgram returns the merchant's program, or ENOTFOUND.
func (s *ProgramService) FindProgram(ctx context.Context, merchantID int64) (*afftrack.Program, error) {
	p, err := loadProgram(ctx, s.db.sql, merchantID)
	if err != nil {
		return nil, err
	}
	if p == nil {
		if exists, err := merchantExists(ctx, pooled{s.db}, merchantID); err != nil {
			return nil, fmt.Errorf("find program of merchant %d: %w", merchantID, err)
		} else if !exists {
			return nil, afftrack.Errorf(afftrack.ENOTFOUND, "merchant %d not found", merchantID)
		}
		return nil, afftrack.Errorf(afftrack.ENOTFOUND, "merchant %d has no program", merchantID)
	}
	return p, nil
}

// SetProgram creates or replaces the merchant's program, its deep-link
// hosts and its rules, in one transaction.
func (s *ProgramService) SetProgram(ctx context.Context, p *afftrack.Program) error {
	if err := p.CheckCommissionType(); err != nil {
		return err
	}
	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("set program: %w", err)
	}
	defer release()
	defer rollback(tx)
	if exists, err := merchantExists(ctx, tx, p.MerchantID); err != nil {
		return fmt.Errorf("set program: %w", err)
	} else if !exists {
		return afftrack.Errorf(afftrack.ENOTFOUND, "merchant %d not found", p.MerchantID)
	}
	if err := writeProgram(ctx, tx, p); err != nil {
		return fmt.Errorf("set program of merchant %d: %w", p.MerchantID, err)
	}
	return tx.Commit()
}

const (
	upsertProgram = `INSERT INTO programs (merchant_id, target_url, cookie_days, validation_days, prepaid,
		click_append, commission_percent, commission_flat, override_fee_percent, listed, commission_type)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
	ON CONFLICT (merchant_id) DO UPDATE SET target_url = excluded.target_url,
		cookie_days = excluded.cookie_days, validation_days = excluded.validation_days,
		prepaid = excluded.prepaid, click_append = excluded.click_append,
		commission_percent = excluded.commission_percent, commission_flat = excluded.commission_flat,
		override_fee_percent = excluded.override_fee_percent, listed = excluded.listed,
		commission_type = excluded.commission_type`
	deleteProgramDomains = `DELETE FROM program_domains WHERE merchant_id = $1`
	insertProgramDomain  = `INSERT INTO program_domains (merchant_id, host) VALUES ($1, $2)
	ON CONFLICT (merchant_id, host) DO NOTHING`
	deleteProgramRules = `DELETE FROM program_rules WHERE merchant_id = $1`
	insertProgramRule  = `INSERT INTO program_rules (merchant_id, position, percent, flat, affiliate_id,
		category, customer_type)
	VALUES ($1, $2, $3, $4, $5, $6, $7)`
)

// writeProgram replaces p's rows. Its hosts and rules are replaced whole.
func writeProgram(ctx context.Context, q queryer, p *afftrack.Program) error {
	if _, err := q.ExecContext(ctx, upsertProgram, p.MerchantID, p.TargetURL, p.CookieDays, p.ValidationDays,
		p.Prepaid, p.ClickAppend, nullPercent(p.Commission.Percent), nullMoney(p.Commission.Flat),
		int64(p.OverrideFeePercent), p.Listed, nullEnum(uint8(p.CommissionType))); err != nil {
		return err
	}
	if _, err := q.ExecContext(ctx, deleteProgramDomains, p.MerchantID); err != nil {
		return err
	}
	for _, host := range p.AllowedDomains {
		if _, err := q.ExecContext(ctx, insertProgramDomain, p.MerchantID, host); err != nil {
			return err
		}
	}
	if _, err := q.ExecContext(ctx, deleteProgramRules, p.MerchantID); err != nil {
		return err
	}
	for i, r := range p.Rules {
		if _, err := q.ExecContext(ctx, insertProgramRule, p.MerchantID, i+1, nullPercent(r.Percent),
			nullMoney(r.Flat), nullInt(r.AffiliateID), nullText(r.Category), nullEnum(uint8(r.CustomerType))); err != nil {
			return err
		}
	}
	return nil
}

// loadProgram reads the merchant's program with its banners' hosts, or
// nil if it has none.
func loadProgram(ctx context.Context, q queryer, merchantID int64) (*afftrack.Program, error) {
	p, err := loadProgramDomains(ctx, q, merchantID)
	if p == nil || err != nil {
		return p, err
	}
	if p.BannerHosts, err = loadBannerHosts(ctx, q, merchantID); err != nil {
		return nil, err
	}
	return p, nil
}

// loadProgramDomains reads the merchant's program with its
// AllowedDomains but not its banners' hosts, or nil if it has none: for a
// list of merchants, which leads no deep link anywhere.
func loadProgramDomains(ctx context.Context, q queryer, merchantID int64) (*afftrack.Program, error) {
	p, _, err := loadProgramTerms(ctx, q, merchantID)
	if p == nil || err != nil {
		return p, err
	}
	rows, err := q.QueryContext(ctx, `SELECT host FROM program_domains WHERE merchant_id = $1 ORDER BY host`, merchantID)
	if err != nil {
		return nil, fmt.Errorf("read program of merchant %d: %w", merchantID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var host string
		if err := rows.Scan(&host); err != nil {
			return nil, fmt.Errorf("read program of merchant %d: %w", merchantID, err)
		}
		p.AllowedDomains = append(p.AllowedDomains, host)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read program of merchant %d: %w", merchantID, err)
	}
	return p, nil
}

// loadBannerHosts reads the distinct hosts of the merchant's banners'
// TargetUrls, in order.
func loadBannerHosts(ctx context.Context, q queryer, merchantID int64) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT DISTINCT target_url FROM banners WHERE merchant_id = $1 AND target_url <> ''`,
		merchantID)
	if err != nil {
		return nil, fmt.Errorf("read banner hosts of merchant %d: %w", merchantID, err)
	}
	defer rows.Close()
	var hosts []string
	for rows.Next() {
		var target string
		if err := rows.Scan(&target); err != nil {
			return nil, fmt.Errorf("read banner hosts of merchant %d: %w", merchantID, err)
		}
		if h := afftrack.URLHost(target); h != "" {
			hosts = append(hosts, h)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read banner hosts of merchant %d: %w", merchantID, err)
	}
	slices.Sort(hosts)
	return slices.Compact(hosts), nil
}

// merchantExists reports whether merchant id is stored.
func merchantExists(ctx context.Context, q queryer, id int64) (bool, error) {
	var n int64
	err := q.QueryRowContext(ctx, countMerchant, id).Scan(&n)
	return n > 0, err
}

// loadProgramTerms reads what a conversion needs of the merchant's
// program, all but its deep-link hosts, and the merchant's status; the
// program is nil if it has none. The program and its rules come in one
// query (a row per rule, or one row of nulls for none), a round trip
// fewer on every conversion.
func loadProgramTerms(ctx context.Context, q queryer, merchantID int64) (*afftrack.Program, afftrack.AccountStatus, error) {
	rows, err := q.QueryContext(ctx, `SELECT p.target_url, p.cookie_days, p.validation_days, p.prepaid, p.click_append,
		p.commission_percent, p.commission_flat, p.override_fee_percent, p.listed, p.commission_type,
		r.percent, r.flat, r.affiliate_id, r.category, r.customer_type, m.status
	FROM programs p
	JOIN merchants m ON m.id = p.merchant_id
	LEFT JOIN program_rules r ON r.merchant_id = p.merchant_id
	WHERE p.merchant_id = $1
	ORDER BY r.position`, merchantID)
	if err != nil {
		return nil, 0, fmt.Errorf("read program of merchant %d: %w", merchantID, err)
	}
	defer rows.Close()
	var p *afftrack.Program
	var status int64
	for rows.Next() {
		var t afftrack.Program
		var pct, flat sql.Null[int64]
		var fee int64
		var commissionType sql.Null[int64]
		var rPct, rFlat, rAff, rCT sql.Null[int64]
		var rCat sql.Null[string]
		if err := rows.Scan(&t.TargetURL, &t.CookieDays, &t.ValidationDays, &t.Prepaid, &t.ClickAppend,
			&pct, &flat, &fee, &t.Listed, &commissionType, &rPct, &rFlat, &rAff, &rCat, &rCT, &status); err != nil {
			return nil, 0, fmt.Errorf("read program of merchant %d: %w", merchantID, err)
		}
		if p == nil {
			t.MerchantID = merchantID
			t.Commission.Percent, t.Commission.Flat = percentOf(pct), moneyOf(flat)
			t.OverrideFeePercent = afftrack.Percent(fee)
			t.CommissionType = afftrack.MerchantType(commissionType.V)
			p = &t
		}
		if rPct.Valid || rFlat.Valid { // every rule pays one way; none is the LEFT JOIN's empty row
			p.Rules = append(p.Rules, afftrack.CommissionRule{Percent: percentOf(rPct), Flat: moneyOf(rFlat),
				AffiliateID: fromNull(rAff), Category: fromNull(rCat), CustomerType: afftrack.CustomerType(rCT.V)})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, 0, fmt.Errorf("read program of merchant %d: %w", merchantID, err)
	}
	return p, afftrack.AccountStatus(status), nil
}

// programTarget returns the TargetUrl of merchant id's program, "" if it
// has none: what its coupons and promotions land on by default.
func (im *importer) programTarget(id int64) (string, error) {
	if t, known := im.targets[id]; known {
		return t, nil
	}
	st, err := im.stmt(`SELECT target_url FROM programs WHERE merchant_id = $1`)
	if err != nil {
		return "", err
	}
	var t string
	if err := st.QueryRowContext(im.ctx, id).Scan(&t); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	im.targets[id] = t
	return t, nil
}

// importPrograms writes the programs of the chunk's merchants.
func (im *importer) importPrograms(d *afftrack.Dataset) error {
	for i := range d.Programs {
		p := &d.Programs[i]
		delete(im.targets, p.MerchantID)
		if err := writeProgram(im.ctx, im.tx, p); err != nil {
			at := i
			if i < len(d.ProgramAt) {
				at = d.ProgramAt[i]
			}
			return fmt.Errorf("import Merchants[%d].Program: %w", d.Start.Merchants+at, err)
		}
	}
	return nil
}

func nullPercent(p afftrack.Null[afftrack.Percent]) any {
	if !p.Valid {
		return nil
	}
	return int64(p.Value)
}

func nullMoney(m afftrack.Null[afftrack.Money]) any {
	if !m.Valid {
		return nil
	}
	return int64(m.Value)
}

func percentOf(n sql.Null[int64]) afftrack.Null[afftrack.Percent] {
	return afftrack.Null[afftrack.Percent]{Value: afftrack.Percent(n.V), Valid: n.Valid}
}

func moneyOf(n sql.Null[int64]) afftrack.Null[afftrack.Money] {
	return afftrack.Null[afftrack.Money]{Value: afftrack.Money(n.V), Valid: n.Valid}
}
