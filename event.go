package afftrack

import "time"

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
