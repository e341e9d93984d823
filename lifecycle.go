package afftrack

import (
	"context"
	"time"
)

// ValidationAction is what a merchant does with one of its Pending
// transactions.
type ValidationAction uint8

// ValidationAction values.
const (
	ActionApprove ValidationAction = iota + 1 // Pending to Locked
	ActionVoid                                // Pending to Void, with a VoidReason
	ActionAmend                               // stays Pending, with an AmendedReason and new amounts
)

var validationActionNames = []string{"", "Approve", "Void", "Amend"}

// String returns the action's name.
func (a ValidationAction) String() string { return enumName(validationActionNames, a) }

// ParseValidationAction returns the action named s, ignoring case.
func ParseValidationAction(s string) (ValidationAction, bool) {
	return parseEnum[ValidationAction](validationActionNames, s)
}

// ValidationActionNames lists the actions, for messages.
func ValidationActionNames() string { return enumList(validationActionNames) }

// MaxValidations bounds the rows of one validation call.
const MaxValidations = 1000

// Validation is one row of a merchant's validation: the transaction by Id
// or OrderId, and what to do with it.
type Validation struct {
	ID            Null[int64]
	OrderID       Null[string]
	Action        ValidationAction
	VoidReason    VoidReason
	AmendedReason AmendedReason
	SaleValue     Null[Money] // Amend: the new reported amount
	Items         []ConversionItem
	// Problem, if set, is why the row cannot be applied, found while it
	// was read; the row changes nothing and reports it.
	Problem string
}

// ValidationResult is the outcome of one row, in the row's place.
type ValidationResult struct {
	ID      Null[int64]
	OrderID Null[string]
	Status2 TransactionStatus2 // 0: null (the row named no transaction of the merchant)
	Error   Null[string]
}

// Actor says who changed a transaction, for its history: an account and
// the key it used ("merchant:3 key k_1a2b"), an operator at the command
// line ("operator"), or the scheduled work ("lifecycle").
type Actor string

// Actors that are not accounts.
const (
	ActorOperator  Actor = "operator"
	ActorLifecycle Actor = "lifecycle"
)

// AccountActor is the Actor of a call made with an account's key.
func AccountActor(a *Account) Actor {
	s := a.Ref.String()
	if a.KeyID != "" {
		s += " key " + a.KeyID
	}
	return Actor(s)
}

// TransactionEvent is one entry of a transaction's history: a change of
// its status or amounts, who made it, when, and why.
type TransactionEvent struct {
	TransactionID  int64
	At             time.Time
	Actor          Actor
	From, To       TransactionStatus2 // From 0: the transaction was created
	FromSaleValue  Money
	ToSaleValue    Money
	FromCommission Money
	ToCommission   Money
	Reason         string
}

// LifecycleService moves transactions through their states (tracking.md
// section 6). Every change sets DateModified, is recorded in the history,
// and tells the affiliate (its notification outbox) in the same database
// transaction.
type LifecycleService interface {
	// Validate applies a merchant's rows, each atomically on its own, and
	// returns a result per row in order. Only Pending transactions of the
	// merchant may be validated; a row that cannot be applied gets its
	// Error and changes nothing.
	Validate(ctx context.Context, merchantID int64, actor Actor, rows []Validation) ([]ValidationResult, error)

	// LockDue locks every Pending transaction whose ValidationDate is at
	// or before now, and approves at once those of prepaid programs. It
	// is safe to run from several replicas at the same moment: each
	// transaction changes once. It returns how many were locked.
	LockDue(ctx context.Context, now time.Time) (int, error)

	// Release approves the merchant's Locked transactions created before
	// until (all, when until is null): the network has the merchant's
	// money for them. It returns how many were approved.
	Release(ctx context.Context, merchantID int64, until Null[time.Time], actor Actor, now time.Time) (int, error)

	// Void voids a Pending, Locked or Approved transaction for the
	// network, with a reason.
	Void(ctx context.Context, id int64, reason VoidReason, actor Actor, now time.Time) error

	// History returns a transaction's events, oldest first, or ENOTFOUND.
	History(ctx context.Context, id int64) ([]TransactionEvent, error)
}
