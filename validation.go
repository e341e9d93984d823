package afftrack

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

// MaxSaleValue bounds a sale, reported or amended: a trillion in any
// currency, so every product of the pricing stays far inside 64 bits.
const MaxSaleValue = Money(1_000_000_000_000 * 10_000)

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
