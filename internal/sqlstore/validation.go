package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/afftrack/afftrack"
)

// Validate applies a merchant's validation rows, each in a database
// transaction of its own, and returns their results in order. A row that
// cannot be applied gets its Error and changes nothing; a failure of the
// database stops the call, and the rows before it stay applied.
func (s *LifecycleService) Validate(ctx context.Context, merchantID int64, actor afftrack.Actor,
	rows []afftrack.Validation) ([]afftrack.ValidationResult, error) {
	// A merchant calling the API exists; the command line may name one
	// that does not, which is its error rather than every row's.
	if exists, err := merchantExists(ctx, pooled{s.db}, merchantID); err != nil {
		return nil, fmt.Errorf("validate: %w", err)
	} else if !exists {
		return nil, afftrack.Errorf(afftrack.ENOTFOUND, "merchant %d not found", merchantID)
	}
	results := make([]afftrack.ValidationResult, len(rows))
	for i := range rows {
		r, err := s.validateRow(ctx, merchantID, actor, &rows[i])
		if err != nil {
			return nil, fmt.Errorf("validation row %d: %w", i, s.db.writeFailed(err))
		}
		results[i] = r
	}
	return results, nil
}

// validated is what a validation needs of the transaction a row names.
type validated struct {
	id, affiliateID     int64
	orderID             string
	status              afftrack.TransactionStatus2
	customerType        afftrack.CustomerType
	currency            string
	created, validation time.Time
	sale, commission    afftrack.Money
	items               int64
}

func (s *LifecycleService) validateRow(ctx context.Context, merchantID int64, actor afftrack.Actor,
	v *afftrack.Validation) (afftrack.ValidationResult, error) {
	res := afftrack.ValidationResult{ID: v.ID, OrderID: v.OrderID}
	refuse := func(format string, args ...any) (afftrack.ValidationResult, error) {
		res.Error = afftrack.Some(fmt.Sprintf(format, args...))
		return res, nil
	}
	if v.Problem != "" && !v.ID.Valid && !v.OrderID.Valid {
		return refuse("%s", v.Problem)
	}
	if v.OrderID.Valid && afftrack.TextProblem(v.OrderID.Value) >= 0 {
		// No stored OrderId holds such text, and PostgreSQL would refuse
		// the query: the command line's spreadsheet is not checked before.
		res.OrderID = afftrack.Some(afftrack.CleanText(v.OrderID.Value))
		return refuse("OrderId %q holds a character that cannot be stored (a control character or invalid UTF-8).",
			res.OrderID.Value)
	}
	tx, release, err := s.db.beginWrite(ctx)
	if err != nil {
		return res, err
	}
	defer release()
	defer rollback(tx)
	t, problem, err := findValidated(ctx, tx, s.db.dialect, merchantID, v)
	if err != nil {
		return res, err
	}
	if t != nil {
		// Every answer about a transaction that exists says its state.
		res.ID, res.OrderID, res.Status2 = afftrack.Some(t.id), afftrack.Some(t.orderID), t.status
	}
	switch {
	case v.Problem != "":
		return refuse("%s", v.Problem)
	case problem != "":
		return refuse("%s", problem)
	}
	// changed answers a row whose guarded UPDATE found the transaction
	// no longer Pending (another change won): nothing of it is applied,
	// and its Status2 is the one the winner left.
	changed := func() (afftrack.ValidationResult, error) {
		var status int64
		if err := tx.QueryRowContext(ctx, `SELECT status2 FROM transactions WHERE id = $1`, t.id).Scan(&status); err != nil {
			return res, err
		}
		res.Status2 = afftrack.TransactionStatus2(status)
		return refuse("The transaction changed meanwhile; validate it again.")
	}
	switch v.Action {
	case afftrack.ActionApprove, afftrack.ActionVoid, afftrack.ActionAmend:
	default:
		// Before the transaction's state: what the row asks comes first.
		return refuse("Action is required; use one of %s.", afftrack.ValidationActionNames())
	}
	if t.status != afftrack.Status2Pending {
		return refuse("The transaction is %s; only a Pending transaction can be validated.", t.status)
	}
	now := s.now()
	if v.Action != afftrack.ActionApprove && !now.Before(t.validation) {
		// It is Locked in all but the scheduled run's record: the
		// merchant's time to void or amend it is over, and the answer
		// says Locked, as its Error does, while the record catches up.
		// (An Approve is still applied: it records the lock itself.)
		res.Status2 = afftrack.Status2Locked
		return refuse("The transaction's ValidationDate has passed; it is Locked and can no longer be voided or amended.")
	}
	switch v.Action {
	case afftrack.ActionApprove:
		done, err := s.transition(ctx, tx, []int64{t.id}, afftrack.Status2Pending, afftrack.Status2Locked, actor,
			"approved by the merchant", now)
		if err != nil {
			return res, err
		}
		if len(done) == 0 {
			return changed()
		}
		res.Status2 = afftrack.Status2Locked
		if n, err := s.approvePrepaid(ctx, tx, done, now); err != nil {
			return res, err
		} else if n > 0 {
			res.Status2 = afftrack.Status2Approved
		}
	case afftrack.ActionVoid:
		if v.VoidReason == 0 {
			return refuse("VoidReason is required to void; use one of %s.", afftrack.VoidReasonNames())
		}
		applied, err := s.voidPending(ctx, tx, t, v.VoidReason, actor, now)
		if err != nil {
			return res, err
		}
		if !applied {
			return changed()
		}
		res.Status2 = afftrack.Status2Void
	case afftrack.ActionAmend:
		applied, problem, err := s.amend(ctx, tx, merchantID, t, v, actor, now)
		switch {
		case err != nil:
			return res, err
		case problem != "":
			return refuse("%s", problem)
		case !applied:
			return changed()
		}
	}
	if err := tx.Commit(); err != nil {
		return res, err
	}
	return res, nil
}

// validatedColumns reads what a validation needs of transactions t.
const validatedColumns = `SELECT t.id, t.affiliate_id, t.order_id, t.status2, t.customer_type, t.reported_currency_code,
		t.date_created, t.validation_date, t.sale_value, t.commission,
		(SELECT COUNT(*) FROM transaction_items i WHERE i.transaction_id = t.id)
	FROM transactions t `

// validatedByOrderID finds merchant $1's transactions of OrderId $2, the
// first two (two are an ambiguity the row is refused for), through the
// index of (merchant_id, order_id) on SQLite, of order_id on PostgreSQL
// (migration 0015).
const validatedByOrderID = validatedColumns + `WHERE t.merchant_id = $1 AND t.order_id = $2 ORDER BY t.id LIMIT 2`

// findValidated reads the transaction a row names, by Id or OrderId, or
// says why there is none to validate (with the transaction, if there is
// one but the row does not fit it).
//
// The row is locked for the transaction (dialect.forUpdate): two changes
// of one transaction at once run one after the other, the second reading
// what the first wrote. The guarded UPDATEs alone would let two Amends,
// which leave it Pending, both win, the second over the first unseen.
func findValidated(ctx context.Context, q queryer, d dialect, merchantID int64, v *afftrack.Validation) (*validated, string, error) {
	var rows *sql.Rows
	var err error
	switch {
	case v.ID.Valid:
		rows, err = q.QueryContext(ctx, validatedColumns+`WHERE t.id = $1 AND t.merchant_id = $2`+d.forUpdate(), v.ID.Value, merchantID)
	case v.OrderID.Valid:
		rows, err = q.QueryContext(ctx, validatedByOrderID+d.forUpdate(), merchantID, v.OrderID.Value)
	default:
		return nil, "Id or OrderId is required.", nil
	}
	if err != nil {
		return nil, "", err
	}
	defer rows.Close()
	var found []*validated
	for rows.Next() {
		t := &validated{}
		var status, ct, created, validation, sale, commission int64
		if err := rows.Scan(&t.id, &t.affiliateID, &t.orderID, &status, &ct, &t.currency, &created, &validation, &sale,
			&commission, &t.items); err != nil {
			return nil, "", err
		}
		t.status, t.customerType = afftrack.TransactionStatus2(status), afftrack.CustomerType(ct)
		t.created, t.validation = fromMillis(created), fromMillis(validation)
		t.sale, t.commission = afftrack.Money(sale), afftrack.Money(commission)
		found = append(found, t)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	switch {
	case len(found) == 0 && v.ID.Valid:
		return nil, fmt.Sprintf("No transaction of this merchant has Id %d.", v.ID.Value), nil
	case len(found) == 0:
		return nil, fmt.Sprintf("No transaction of this merchant has OrderId %q.", v.OrderID.Value), nil
	case len(found) > 1:
		return nil, fmt.Sprintf("Several transactions of this merchant have OrderId %q; give the Id.", v.OrderID.Value), nil
	case v.ID.Valid && v.OrderID.Valid && found[0].orderID != v.OrderID.Value:
		return found[0], fmt.Sprintf("Id %d is the transaction of OrderId %q, not %q.", v.ID.Value, found[0].orderID,
			v.OrderID.Value), nil
	}
	return found[0], "", nil
}

// voidPending voids a Pending transaction for its merchant, reporting
// false, with nothing written, when the guarded UPDATE finds it no longer
// Pending.
func (s *LifecycleService) voidPending(ctx context.Context, q queryer, t *validated, reason afftrack.VoidReason,
	actor afftrack.Actor, now time.Time) (bool, error) {
	res, err := q.ExecContext(ctx, `UPDATE transactions SET status2 = $1, void_reason = $2, date_modified = $3
	WHERE id = $4 AND status2 = $5`, int64(afftrack.Status2Void), int64(reason), toMillis(now), t.id,
		int64(afftrack.Status2Pending))
	if applied, err := oneRow(res, err); !applied || err != nil {
		return false, err
	}
	ev := afftrack.TransactionEvent{TransactionID: t.id, At: now, Actor: actor, From: afftrack.Status2Pending,
		To: afftrack.Status2Void, FromSaleValue: t.sale, ToSaleValue: t.sale, FromCommission: t.commission,
		ToCommission: t.commission, Reason: reason.String()}
	if err := insertEvents(ctx, q, s.db.dialect, []afftrack.TransactionEvent{ev}); err != nil {
		return false, err
	}
	return true, enqueueNotifications(ctx, q, s.db.dialect, []int64{t.id}, now)
}

// oneRow reports whether an UPDATE's result changed a row.
func oneRow(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// amend prices a Pending transaction anew (tracking.md section 4) from a
// new SaleValue and/or Items, at the rate of its creation day and the
// program's rules now, or says why it cannot; applied is false, with
// nothing written, when the guarded UPDATE finds it no longer Pending.
func (s *LifecycleService) amend(ctx context.Context, tx *sql.Tx, merchantID int64, t *validated,
	v *afftrack.Validation, actor afftrack.Actor, now time.Time) (applied bool, problem string, err error) {
	switch {
	case v.AmendedReason == 0:
		return false, fmt.Sprintf("AmendedReason is required to amend; use one of %s.", afftrack.AmendedReasonNames()), nil
	case !v.SaleValue.Valid && len(v.Items) == 0:
		return false, "Amend needs a new SaleValue or Items.", nil
	case len(v.Items) == 0 && t.items > 0:
		return false, "The transaction has Items: amend them (its SaleValue is their sum).", nil
	}
	c := &afftrack.Conversion{MerchantID: merchantID, OrderID: t.orderID, CurrencyCode: t.currency,
		CustomerType: t.customerType, Items: v.Items}
	var sum int64
	for _, it := range v.Items {
		sum += int64(it.SaleValue)
	}
	switch {
	case v.SaleValue.Valid && len(v.Items) > 0 && int64(v.SaleValue.Value) != sum*100:
		return false, fmt.Sprintf("SaleValue %s is not the sum of the Items' SaleValue (%s).", v.SaleValue.Value, afftrack.ItemMoney(sum)), nil
	case v.SaleValue.Valid && (v.SaleValue.Value <= 0 || v.SaleValue.Value > afftrack.MaxSaleValue):
		return false, fmt.Sprintf("SaleValue %s must be greater than 0 and at most %d.", v.SaleValue.Value,
			afftrack.MaxSaleValue/10_000), nil
	case v.SaleValue.Valid:
		c.SaleValue = v.SaleValue.Value
	case sum <= 0 || sum > int64(afftrack.MaxSaleValue)/100:
		return false, fmt.Sprintf("The Items' SaleValue add up to %s; a sale must be greater than 0 and at most %d.",
			afftrack.ItemMoney(sum), afftrack.MaxSaleValue/10_000), nil
	default:
		c.SaleValue = afftrack.Money(sum * 100)
	}
	p, _, err := loadProgramTerms(ctx, tx, merchantID)
	if err != nil {
		return false, "", err
	}
	if p == nil || !p.Commission.Pays() {
		return false, "The merchant has no commission terms to price the amendment with.", nil
	}
	sale := afftrack.Sale{Conversion: c, Program: p, Credit: afftrack.Credit{AffiliateID: t.affiliateID},
		NetworkCurrency: s.currency, Now: t.created}
	if t.currency != s.currency {
		rate, ok, err := latestRate(ctx, tx, t.currency, t.created)
		if err != nil {
			return false, "", err
		}
		if !ok {
			return false, fmt.Sprintf("There is no %s rate dated on or before the transaction's creation.", t.currency), nil
		}
		sale.Rate = rate
	}
	priced, err := sale.Transaction()
	if err != nil {
		return false, afftrack.ErrorMessage(err), nil
	}
	priced.ID = t.id
	var items, cacheVals []any
	for i := range priced.Items {
		row := itemArgs(nil, t.id, i+1, &priced.Items[i])
		items = append(items, row...)
		cacheVals = append(cacheVals, row[2:]...)
	}
	cache, err := appendItemsCache([]byte{}, cacheVals)
	if err != nil {
		return false, "", err
	}
	res, err := tx.ExecContext(ctx, `UPDATE transactions SET sale_value = $1, commission = $2, override_fee = $3,
		reported_sale_value = $4, amended_reason = $5, date_modified = $6, items_cache = $7
	WHERE id = $8 AND status2 = $9`, int64(priced.SaleValue), int64(priced.Commission), int64(priced.OverrideFee),
		int64(priced.ReportedSaleValue), int64(v.AmendedReason), toMillis(now), cache, t.id,
		int64(afftrack.Status2Pending))
	if applied, err := oneRow(res, err); !applied || err != nil {
		return false, "", err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM transaction_items WHERE transaction_id = $1`, t.id); err != nil {
		return false, "", err
	}
	if len(items) > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO transaction_items (`+itemColumnList+`) VALUES `+
			s.db.dialect.placeholders(len(priced.Items), itemColumns), items...); err != nil {
			return false, "", err
		}
	}
	ev := afftrack.TransactionEvent{TransactionID: t.id, At: now, Actor: actor, From: afftrack.Status2Pending,
		To: afftrack.Status2Pending, FromSaleValue: t.sale, ToSaleValue: priced.SaleValue,
		FromCommission: t.commission, ToCommission: priced.Commission, Reason: v.AmendedReason.String()}
	return true, "", insertEvents(ctx, tx, s.db.dialect, []afftrack.TransactionEvent{ev})
}
