package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

var _ afftrack.AccountService = (*AccountService)(nil)

// AccountService implements afftrack.AccountService: accounts, keys and
// authentication.
type AccountService struct {
	db *DB
}

// NewAccountService returns an AccountService on db.
func NewAccountService(db *DB) *AccountService { return &AccountService{db: db} }

// unauthorized is the one error of every failed authentication, so a
// client cannot tell an unknown key from a revoked one.
func unauthorized() error {
	return afftrack.Errorf(afftrack.EUNAUTHORIZED,
		"The API key is missing, invalid, or for a different account type; or the user account has been suspended or closed.")
}

// authenticate reads the account of an unrevoked key and its limits.
const authenticate = `SELECT k.id, k.account_kind, k.account_id,
		COALESCE(m.status, a.status),
		COALESCE(m.rate_per_minute, a.rate_per_minute),
		COALESCE(m.rate_per_day, a.rate_per_day),
		COALESCE(m.rate_concurrent, a.rate_concurrent)
	FROM api_keys k
	LEFT JOIN merchants m ON k.account_kind = $2 AND m.id = k.account_id
	LEFT JOIN affiliates a ON k.account_kind = $3 AND a.id = k.account_id
	WHERE k.key_hash = $1 AND k.revoked IS NULL`

// Authenticate returns the account of the unrevoked key with the given hash
// in one index probe and two primary-key joins, as it runs on every call.
func (s *AccountService) Authenticate(ctx context.Context, keyHash string) (*afftrack.Account, error) {
	var kind, id int64
	var keyID string
	var status, perMinute, perDay, concurrent sql.Null[int64]
	err := s.db.queryRow(ctx, authenticate, keyHash, int64(afftrack.KindMerchant), int64(afftrack.KindAffiliate)).Scan(&keyID, &kind, &id, &status, &perMinute, &perDay, &concurrent)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, unauthorized()
	} else if err != nil {
		return nil, fmt.Errorf("authenticate: %w", err)
	}
	if !status.Valid { // the key's account does not exist
		return nil, unauthorized()
	}
	return &afftrack.Account{
		Ref:    afftrack.AccountRef{Kind: afftrack.AccountKind(kind), ID: id},
		Status: afftrack.AccountStatus(status.V),
		KeyID:  keyID,
		RateLimit: afftrack.RateLimit{
			PerMinute: fromNull(perMinute), PerDay: fromNull(perDay), Concurrent: fromNull(concurrent),
		},
	}, nil
}

// FindMerchant returns the merchant with the given id, or ENOTFOUND.
func (s *AccountService) FindMerchant(ctx context.Context, id int64) (*afftrack.Merchant, error) {
	m := afftrack.Merchant{ID: id}
	var status int64
	var perMinute, perDay, concurrent sql.Null[int64]
	err := s.db.sql.QueryRowContext(ctx, `SELECT name, avatar_url, status, rate_per_minute, rate_per_day, rate_concurrent
	FROM merchants WHERE id = $1`, id).Scan(&m.Name, &m.AvatarURL, &status, &perMinute, &perDay, &concurrent)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound()
	} else if err != nil {
		return nil, fmt.Errorf("find merchant %d: %w", id, err)
	}
	m.Status = afftrack.AccountStatus(status)
	m.RateLimit = afftrack.RateLimit{PerMinute: fromNull(perMinute), PerDay: fromNull(perDay), Concurrent: fromNull(concurrent)}
	return &m, nil
}

// FindAffiliate returns the affiliate with the given id, or ENOTFOUND.
func (s *AccountService) FindAffiliate(ctx context.Context, id int64) (*afftrack.Affiliate, error) {
	a := afftrack.Affiliate{ID: id}
	var status int64
	var perMinute, perDay, concurrent sql.Null[int64]
	err := s.db.sql.QueryRowContext(ctx, `SELECT contact_name, business_name, status, gst_registered,
		rate_per_minute, rate_per_day, rate_concurrent, notification_url
	FROM affiliates WHERE id = $1`, id).Scan(&a.ContactName, &a.BusinessName, &status, &a.GSTRegistered,
		&perMinute, &perDay, &concurrent, &a.NotificationURL)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound()
	} else if err != nil {
		return nil, fmt.Errorf("find affiliate %d: %w", id, err)
	}
	a.Status = afftrack.AccountStatus(status)
	a.RateLimit = afftrack.RateLimit{PerMinute: fromNull(perMinute), PerDay: fromNull(perDay), Concurrent: fromNull(concurrent)}
	return &a, nil
}

// Inserts of accounts, for CreateX, dated now; the import has upserts of
// its own (dataset.go). CreateX must not replace: a concurrent creation
// that took the id has to fail on the primary key.
const (
	insertMerchant = `INSERT INTO merchants (id, name, avatar_url, status, rate_per_minute, rate_per_day, rate_concurrent,
		date_created, date_modified)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`
	insertAffiliate = `INSERT INTO affiliates (id, contact_name, business_name, status, gst_registered,
		rate_per_minute, rate_per_day, rate_concurrent, notification_url, date_created, date_modified)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)`
)

func merchantArgs(m *afftrack.Merchant) []any {
	return []any{m.ID, m.Name, m.AvatarURL, int64(m.Status),
		nullInt(m.RateLimit.PerMinute), nullInt(m.RateLimit.PerDay), nullInt(m.RateLimit.Concurrent)}
}

func affiliateArgs(a *afftrack.Affiliate) []any {
	return []any{a.ID, a.ContactName, a.BusinessName, int64(a.Status), a.GSTRegistered,
		nullInt(a.RateLimit.PerMinute), nullInt(a.RateLimit.PerDay), nullInt(a.RateLimit.Concurrent),
		a.NotificationURL}
}

// accountTable returns the table of an account kind, or an EINVALID error
// for a kind that is neither.
func accountTable(kind afftrack.AccountKind) (table, noun string, err error) {
	switch kind {
	case afftrack.KindMerchant:
		return "merchants", "merchant", nil
	case afftrack.KindAffiliate:
		return "affiliates", "affiliate", nil
	}
	return "", "", afftrack.Errorf(afftrack.EINVALID, "account kind %d is neither merchant nor affiliate", kind)
}

// CreateMerchant adds m, created and modified now (the network's wall
// clock). An ID of 0 takes max(id)+1, written back; an ID that exists is an
// EINVALID error. A zero Status is taken as Active and
// written back, as an account nobody may use is never what is meant.
func (s *AccountService) CreateMerchant(ctx context.Context, m *afftrack.Merchant) error {
	if m.Status == 0 {
		m.Status = afftrack.AccountActive
	}
	now, err := s.db.networkNow(ctx)
	if err != nil {
		return fmt.Errorf("create merchant: %w", err)
	}
	id, err := s.createAccount(ctx, afftrack.KindMerchant, m.ID, func(tx *sql.Tx, id int64) error {
		mm := *m
		mm.ID = id
		_, err := tx.ExecContext(ctx, insertMerchant, append(merchantArgs(&mm), toMillis(now))...)
		return err
	})
	if err != nil {
		return err
	}
	m.ID = id
	return nil
}

// CreateAffiliate adds a, as CreateMerchant adds a merchant.
func (s *AccountService) CreateAffiliate(ctx context.Context, a *afftrack.Affiliate) error {
	if a.Status == 0 {
		a.Status = afftrack.AccountActive
	}
	now, err := s.db.networkNow(ctx)
	if err != nil {
		return fmt.Errorf("create affiliate: %w", err)
	}
	id, err := s.createAccount(ctx, afftrack.KindAffiliate, a.ID, func(tx *sql.Tx, id int64) error {
		aa := *a
		aa.ID = id
		_, err := tx.ExecContext(ctx, insertAffiliate, append(affiliateArgs(&aa), toMillis(now))...)
		return err
	})
	if err != nil {
		return err
	}
	a.ID = id
	return nil
}

// createAccount runs insert in a transaction with the account's id: the one
// asked for, refused if taken, or for 0 the next after the largest. Two
// concurrent creations can pick the same next id; the loser's insert fails
// on the primary key and it tries again with a fresh maximum.
func (s *AccountService) createAccount(ctx context.Context, kind afftrack.AccountKind, want int64,
	insert func(tx *sql.Tx, id int64) error) (int64, error) {
	table, noun, err := accountTable(kind)
	if err != nil {
		return 0, err
	}
	exists := func() error { return afftrack.Errorf(afftrack.EINVALID, "%s %d already exists", noun, want) }
	for attempt := 1; ; attempt++ {
		id, err := func() (int64, error) {
			tx, release, err := s.db.beginWrite(ctx)
			if err != nil {
				return 0, err
			}
			defer release()
			defer rollback(tx)
			id := want
			if id == 0 {
				// table is one of two constants, never input.
				err = tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(id), 0) + 1 FROM `+table).Scan(&id)
				if err == nil {
					err = newID(noun, id)
				}
			} else {
				var n int64
				err = tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table+` WHERE id = $1`, id).Scan(&n)
				if err == nil && n > 0 {
					return 0, exists()
				}
			}
			if err != nil {
				return 0, err
			}
			if err := insert(tx, id); err != nil {
				return 0, err
			}
			return id, tx.Commit()
		}()
		switch {
		case err == nil:
			return id, nil
		case !s.db.dialect.isUniqueViolation(err):
			if afftrack.ErrorCode(err) == afftrack.EINVALID {
				return 0, err
			}
			return 0, fmt.Errorf("create %s: %w", noun, err)
		case want != 0:
			return 0, exists()
		case attempt >= 5:
			return 0, fmt.Errorf("create %s: no free id after %d attempts: %w", noun, attempt, err)
		}
	}
}

// SetAccountStatus sets the status of the account ref names, or fails with
// ENOTFOUND if there is no such account.
func (s *AccountService) SetAccountStatus(ctx context.Context, ref afftrack.AccountRef, status afftrack.AccountStatus) error {
	table, noun, err := accountTable(ref.Kind)
	if err != nil {
		return err
	}
	res, err := s.db.sql.ExecContext(ctx, `UPDATE `+table+` SET status = $1 WHERE id = $2`, int64(status), ref.ID)
	if err != nil {
		return fmt.Errorf("set %s status: %w", noun, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("set %s status: %w", noun, err)
	} else if n == 0 {
		return afftrack.Errorf(afftrack.ENOTFOUND, "%s %d does not exist", noun, ref.ID)
	}
	return nil
}

// CreateKey records k, whose secret hashes to keyHash. The account must
// exist (else ENOTFOUND); a hash or id already stored is an EINVALID error.
// An empty k.ID gets a generated one, written back.
func (s *AccountService) CreateKey(ctx context.Context, k *afftrack.Key, keyHash string) error {
	table, noun, err := accountTable(k.Account.Kind)
	if err != nil {
		return err
	}
	if k.ID == "" {
		if k.ID, err = newKeyID(); err != nil {
			return err
		}
	}
	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	defer release()
	defer rollback(tx)
	var n int64
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+table+` WHERE id = $1`, k.Account.ID).Scan(&n); err != nil {
		return fmt.Errorf("create key: %w", err)
	} else if n == 0 {
		return afftrack.Errorf(afftrack.ENOTFOUND, "%s %d does not exist", noun, k.Account.ID)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM api_keys WHERE key_hash = $1 OR id = $2`,
		keyHash, k.ID).Scan(&n); err != nil {
		return fmt.Errorf("create key: %w", err)
	} else if n > 0 {
		return afftrack.Errorf(afftrack.EINVALID, "the key is already stored")
	}
	if _, err := tx.ExecContext(ctx, insertKey, keyArgs(k, keyHash)...); err != nil {
		if s.db.dialect.isUniqueViolation(err) {
			return afftrack.Errorf(afftrack.EINVALID, "the key is already stored")
		}
		return fmt.Errorf("create key: %w", err)
	}
	if err := tx.Commit(); err != nil {
		if s.db.dialect.isUniqueViolation(err) {
			return afftrack.Errorf(afftrack.EINVALID, "the key is already stored")
		}
		return fmt.Errorf("create key: %w", err)
	}
	return nil
}

const insertKey = `INSERT INTO api_keys (id, key_hash, account_kind, account_id, label, created, revoked)
	VALUES ($1, $2, $3, $4, $5, $6, $7)`

func keyArgs(k *afftrack.Key, keyHash string) []any {
	return []any{k.ID, keyHash, int64(k.Account.Kind), k.Account.ID, k.Label, toMillis(k.Created), nullMillis(k.Revoked)}
}

// newKeyID returns a fresh public key id of the form GenerateKey gives.
func newKeyID() (string, error) {
	_, id, err := afftrack.GenerateKey()
	return id, err
}

// ListKeys returns the account's keys, revoked ones included, oldest first.
func (s *AccountService) ListKeys(ctx context.Context, ref afftrack.AccountRef) ([]*afftrack.Key, error) {
	rows, err := s.db.sql.QueryContext(ctx, `SELECT id, label, created, revoked FROM api_keys
	WHERE account_kind = $1 AND account_id = $2 ORDER BY created, id`, int64(ref.Kind), ref.ID)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	keys := []*afftrack.Key{}
	for rows.Next() {
		k := &afftrack.Key{Account: ref}
		var created int64
		var revoked sql.Null[int64]
		if err := rows.Scan(&k.ID, &k.Label, &created, &revoked); err != nil {
			return nil, fmt.Errorf("list keys: %w", err)
		}
		k.Created = fromMillis(created)
		if revoked.Valid {
			k.Revoked = afftrack.Some(fromMillis(revoked.V))
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	return keys, nil
}

// HoldsAccounts reports whether the database holds any merchant or
// affiliate.
func (s *AccountService) HoldsAccounts(ctx context.Context) (bool, error) {
	var held bool
	err := s.db.sql.QueryRowContext(ctx,
		`SELECT EXISTS (SELECT 1 FROM merchants) OR EXISTS (SELECT 1 FROM affiliates)`).Scan(&held)
	if err != nil {
		return false, fmt.Errorf("accounts held: %w", err)
	}
	return held, nil
}

// NetworkNow returns the current wall clock of the network's recorded
// time zone, for the stamps a caller puts on a key it creates or revokes.
func (s *AccountService) NetworkNow(ctx context.Context) (time.Time, error) {
	return s.db.networkNow(ctx)
}

// RevokeKey revokes the key with the given id at the given time. A key
// revoked already keeps its first revocation time; an unknown id is
// ENOTFOUND.
func (s *AccountService) RevokeKey(ctx context.Context, id string, at time.Time) error {
	res, err := s.db.sql.ExecContext(ctx, `UPDATE api_keys SET revoked = $1 WHERE id = $2 AND revoked IS NULL`,
		toMillis(at), id)
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("revoke key: %w", err)
	} else if n > 0 {
		return nil
	}
	var n int64
	if err := s.db.sql.QueryRowContext(ctx, `SELECT COUNT(*) FROM api_keys WHERE id = $1`, id).Scan(&n); err != nil {
		return fmt.Errorf("revoke key: %w", err)
	} else if n == 0 {
		return afftrack.Errorf(afftrack.ENOTFOUND, "key %q does not exist", id)
	}
	return nil
}
