package afftrack

import (
	"context"
	"time"
)

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

	// ReleasePrepaid approves the Locked transactions of prepaid programs
	// that LockDue did not lock itself (imported, or locked before their
	// program became prepaid). Like LockDue it is safe to run from several
	// replicas at once. It returns how many were approved.
	ReleasePrepaid(ctx context.Context, now time.Time) (int, error)

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
