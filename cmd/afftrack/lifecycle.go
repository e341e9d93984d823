package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/importfile"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// lifecycleFlags are the flags every lifecycle command shares.
type lifecycleFlags struct {
	cmd                 string // the command, for its usage errors
	fs                  *flag.FlagSet
	dsn, zone, currency *string
}

func addLifecycleFlags(fs *flag.FlagSet) lifecycleFlags {
	return lifecycleFlags{
		cmd:      fs.Name(),
		fs:       fs,
		dsn:      dbFlag(fs),
		zone:     fs.String("timezone", "UTC", "the network's time zone; left out, the one the database recorded"),
		currency: fs.String("currency", "AUD", "the network's currency; left out, the one the database recorded"),
	}
}

// open opens the store and the lifecycle service, and returns the
// network's clock. The flags are checked before the database is opened,
// so a mistyped one creates none. The zone and currency the database
// recorded are the network's: a flag given (on the command line or in
// the environment) must agree with them, and one left out takes them.
// Nothing is recorded here but by serve and import, so a command run
// first (from cron, on a database just imported) cannot fix the network
// to its defaults.
func (f lifecycleFlags) open(ctx context.Context) (*sqlstore.DB, *sqlstore.LifecycleService, func() time.Time, error) {
	loc, err := networkZone(f.cmd, *f.zone)
	if err != nil {
		return nil, nil, nil, err
	}
	cur := strings.ToUpper(*f.currency)
	if _, ok := afftrack.CurrencyName(cur); !ok {
		return nil, nil, nil, usageError(f.cmd, "--currency %q is not an ISO 4217 currency code", *f.currency)
	}
	db, err := openExistingStore(ctx, *f.dsn)
	if err != nil {
		return nil, nil, nil, err
	}
	if loc, cur, err = f.recorded(ctx, db, loc, cur); err != nil {
		db.Close()
		return nil, nil, nil, err
	}
	now := func() time.Time { return afftrack.WallClock(time.Now(), loc) }
	return db, sqlstore.NewLifecycleService(db, cur, now), now, nil
}

// recorded returns the network's zone and currency: those the database
// recorded, else loc and cur. A flag given that disagrees with the
// record is an error naming both, as serve's.
func (f lifecycleFlags) recorded(ctx context.Context, db *sqlstore.DB, loc *time.Location, cur string) (*time.Location, string, error) {
	given := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { given[fl.Name] = true })
	zone, err := db.NetworkTimeZone(ctx, loc.String(), given["timezone"])
	if err != nil {
		return nil, "", err
	}
	if zone != loc.String() {
		if loc, err = time.LoadLocation(zone); err != nil {
			return nil, "", fmt.Errorf("the database's time zone %q: %w", zone, err)
		}
	}
	if cur, err = db.NetworkCurrency(ctx, cur, given["currency"]); err != nil {
		return nil, "", err
	}
	return loc, cur, nil
}

// runLifecycle runs the scheduled work once: for a cron job, or when
// serve's own schedule is off.
func runLifecycle(ctx context.Context, env *cliEnv, args []string) error {
	const synopsis = "afftrack lifecycle run [--db URL] [--timezone ZONE] [--currency CODE]"
	if len(args) == 0 || isHelp(args[0]) {
		return env.help("lifecycle", args, synopsis)
	}
	if args[0] != "run" {
		return usageError("lifecycle", "unknown lifecycle command %q", args[0])
	}
	fs := flag.NewFlagSet("lifecycle run", flag.ContinueOnError)
	setUsage(fs, synopsis, `Locks every Pending transaction whose validation date has come, and approves
at once those of prepaid programs, with every other Locked transaction of a
prepaid program (imported, or locked before its program became prepaid).
serve does the same every --lifecycle-interval; several runs at once change
each transaction once.`)
	f := addLifecycleFlags(fs)
	if rest, err := env.parse(fs, args[1:]); err != nil {
		return err
	} else if len(rest) > 0 {
		return usageError("lifecycle run", "lifecycle run takes no arguments, got %q", rest)
	}
	db, lc, now, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	n, err := lc.LockDue(ctx, now())
	if err != nil {
		return err
	}
	// A prepaid program's transactions are approved as they are locked,
	// within that count; the second line counts the Locked ones left from
	// before (imported, or locked before the program became prepaid).
	fmt.Fprintf(env.stdout, "locked %d transactions (a prepaid program's approved at once)\n", n)
	if n, err = lc.ReleasePrepaid(ctx, now()); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "approved %d more Locked transactions of prepaid programs\n", n)
	return nil
}

// runTransactions is the network's own work on transactions: release,
// void, history.
func runTransactions(ctx context.Context, env *cliEnv, args []string) error {
	const synopsis = `afftrack transactions release --merchant ID [--up-to YYYY-MM-DD] [--db URL]
afftrack transactions void ID --reason REASON [--db URL]
afftrack transactions history ID [--db URL]`
	if len(args) == 0 || isHelp(args[0]) {
		return env.help("transactions", args, synopsis)
	}
	verb := args[0]
	switch verb {
	case "release", "void", "history":
	default:
		return usageError("transactions", "unknown transactions command %q", verb)
	}
	fs := flag.NewFlagSet("transactions "+verb, flag.ContinueOnError)
	setUsage(fs, synopsis, `release approves a merchant's Locked transactions created up to the end of
--up-to (all without it): the network has the merchant's money for them.
void voids a Pending, Locked or Approved transaction with one of the
VoidReasons. history prints every change of a transaction.`)
	f := addLifecycleFlags(fs)
	// Each command has only its own flags, so one given to another (a
	// --reason to release) is a usage error rather than ignored.
	merchant, upTo, reason := new(int64), new(string), new(string)
	switch verb {
	case "release":
		intFlag(fs, merchant, "merchant", 0, "the merchant")
		upTo = fs.String("up-to", "", "the last day of creation to release (default: all)")
	case "void":
		reason = fs.String("reason", "", "the VoidReason, e.g. \"Cancelled Order\"")
	}
	rest, err := env.parse(fs, args[1:])
	if err != nil {
		return err
	}
	switch verb {
	case "release":
		if *merchant < 1 || len(rest) > 0 {
			return usageError(fs.Name(), "want transactions release --merchant ID [--up-to DATE]")
		}
	case "void", "history":
		if len(rest) != 1 {
			return usageError(fs.Name(), "want transactions %s ID", verb)
		}
	}
	var until afftrack.Null[time.Time]
	if *upTo != "" {
		d, err := time.Parse(time.DateOnly, *upTo)
		if err != nil {
			return usageError(fs.Name(), "--up-to %q is not a date (YYYY-MM-DD)", *upTo)
		}
		until = afftrack.Some(d.AddDate(0, 0, 1))
	}
	var id int64
	if len(rest) == 1 {
		if id, err = strconv.ParseInt(rest[0], 10, 64); err != nil || id < 1 {
			return usageError(fs.Name(), "%q is not a transaction id", rest[0])
		}
	}
	var voidReason afftrack.VoidReason
	if verb == "void" {
		var ok bool
		if voidReason, ok = afftrack.ParseVoidReason(*reason); !ok {
			return usageError(fs.Name(), "--reason %q is not one of %s", *reason, afftrack.VoidReasonNames())
		}
	}
	db, lc, now, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	switch verb {
	case "release":
		n, err := lc.Release(ctx, *merchant, until, afftrack.ActorOperator, now())
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "approved %d transactions of merchant %d\n", n, *merchant)
	case "void":
		if err := lc.Void(ctx, id, voidReason, afftrack.ActorOperator, now()); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "transaction %d voided: %s\n", id, voidReason)
	case "history":
		events, err := lc.History(ctx, id)
		if err != nil {
			return err
		}
		printHistory(env.stdout, events)
	}
	return nil
}

// printHistory prints a transaction's events as a table.
func printHistory(w io.Writer, events []afftrack.TransactionEvent) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WHEN\tWHO\tFROM\tTO\tSALE VALUE\tCOMMISSION\tWHY")
	for _, e := range events {
		from := "(created)"
		if e.From != 0 {
			from = e.From.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.At.Format("2006-01-02 15:04:05.000"), e.Actor, from, e.To,
			amountChange(e.FromSaleValue, e.ToSaleValue, e.From == 0), amountChange(e.FromCommission, e.ToCommission, e.From == 0),
			e.Reason)
	}
	tw.Flush()
}

// amountChange shows an amount, or its change "old -> new".
func amountChange(from, to afftrack.Money, created bool) string {
	if created || from == to {
		return to.String()
	}
	return from.String() + " -> " + to.String()
}

// runValidate applies a merchant's validation spreadsheet: CSV with the
// columns OrderId, Action, Reason, SaleValue.
func runValidate(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	setUsage(fs, "afftrack validate --merchant ID FILE.csv|- [--db URL]", `Applies a merchant's validations from CSV with the header
OrderId,Action,Reason,SaleValue (any order and case): Action is Approve,
Void or Amend; Reason a VoidReason for Void, an AmendedReason for Amend;
SaleValue the new amount for Amend. Each row is applied on its own, as by
POST /V1/Merchant/Validations, and its result printed.`)
	f := addLifecycleFlags(fs)
	merchant := new(int64)
	intFlag(fs, merchant, "merchant", 0, "the merchant whose transactions these are")
	rest, err := env.parse(fs, args)
	if err != nil {
		return err
	}
	if *merchant < 1 || len(rest) != 1 {
		return usageError("validate", "want validate --merchant ID FILE.csv")
	}
	var rows []afftrack.Validation
	var lines []int
	if err := readInput(ctx, rest[0], "a CSV file", func(r io.Reader) (err error) {
		rows, lines, err = readValidationCSV(r)
		return err
	}); err != nil {
		return err
	}
	db, lc, _, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	results, err := lc.Validate(ctx, *merchant, afftrack.ActorOperator, rows)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "LINE\tORDER ID\tID\tSTATUS2\tERROR")
	failed := 0
	for i, res := range results {
		id, status, problem := "", "", ""
		if res.ID.Valid {
			id = strconv.FormatInt(res.ID.Value, 10)
		}
		if res.Status2 != 0 {
			status = res.Status2.String()
		}
		if res.Error.Valid {
			problem = res.Error.Value
			failed++
		}
		// The file's text is shown escaped, so none of it can print a line
		// of its own or drive the terminal, and the OrderId quoted, as it
		// is matched spaces included: "X-1 " is not "X-1".
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\n", lines[i], oneLine(strconv.Quote(res.OrderID.Value)), id, status, oneLine(problem))
	}
	tw.Flush()
	if failed > 0 {
		return fmt.Errorf("%d of %d rows were not applied", failed, len(results))
	}
	return nil
}

// readValidationCSV reads the validation spreadsheet: its rows, and the
// line each begins on (blank lines and quoted line breaks counted), for
// the report.
func readValidationCSV(r io.Reader) ([]afftrack.Validation, []int, error) {
	cr := csv.NewReader(importfile.BoundCSVRecords(r))
	// A spreadsheet drops a row's empty cells at its end; a row that
	// long or shorter is read, one longer gets a Problem of its own.
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("line 1: a header OrderId,Action,Reason,SaleValue is needed")
	}
	col := map[string]int{}
	for i, name := range header {
		name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))
		known := ""
		for _, k := range []string{"OrderId", "Action", "Reason", "SaleValue"} {
			if strings.EqualFold(k, name) {
				known = k
			}
		}
		if known == "" {
			return nil, nil, fmt.Errorf("line 1: column %q is not one of OrderId, Action, Reason, SaleValue", name)
		}
		if _, twice := col[known]; twice {
			return nil, nil, fmt.Errorf("line 1: column %s is given twice", known)
		}
		col[known] = i
	}
	if _, ok := col["OrderId"]; !ok {
		return nil, nil, errors.New("line 1: the OrderId column is needed")
	}
	if _, ok := col["Action"]; !ok {
		return nil, nil, errors.New("line 1: the Action column is needed")
	}
	var rows []afftrack.Validation
	var lines []int
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rows, lines, nil
		}
		if err != nil {
			return nil, nil, errors.New(importfile.CSVProblem(err))
		}
		line, _ := cr.FieldPos(0)
		if len(rows) == afftrack.MaxValidations*100 {
			return nil, nil, fmt.Errorf("line %d: a file holds at most %d rows", line, afftrack.MaxValidations*100)
		}
		lines = append(lines, line)
		get := func(name string) string {
			if i, ok := col[name]; ok && i < len(rec) {
				return rec[i]
			}
			return ""
		}
		// OrderId is matched exactly, spaces included (tracking.md), so
		// "X-1 " names another transaction than "X-1", as it does in the
		// API. The other cells are names and an amount that no space can
		// make mean anything else: a space around them is dropped.
		v := validationRow(get("OrderId"), strings.TrimSpace(get("Action")), strings.TrimSpace(get("Reason")),
			strings.TrimSpace(get("SaleValue")))
		if len(rec) > len(header) {
			v.Problem = fmt.Sprintf("The row has %d fields; the header names %d (a comma in an unquoted Reason?).",
				len(rec), len(header))
		}
		rows = append(rows, v)
	}
}

// validationRow makes one row from the spreadsheet's text; what is wrong
// becomes the row's Problem, reported in its place.
func validationRow(orderID, action, reason, saleValue string) afftrack.Validation {
	v := afftrack.Validation{OrderID: afftrack.Some(orderID)}
	if orderID == "" {
		v.OrderID, v.Problem = afftrack.Null[string]{}, "OrderId is required."
		return v
	}
	a, ok := afftrack.ParseValidationAction(action)
	if !ok {
		v.Problem = fmt.Sprintf("Action %q is not one of %s.", action, afftrack.ValidationActionNames())
		return v
	}
	v.Action = a
	// A cell the row's Action does not take is refused, as the API's
	// field is: an Approve with a SaleValue may have meant a new amount.
	switch {
	case a == afftrack.ActionApprove && reason != "":
		v.Problem = "Reason: applies only to Void and Amend"
		return v
	case a != afftrack.ActionAmend && saleValue != "":
		v.Problem = "SaleValue: applies only to Amend"
		return v
	}
	switch a {
	case afftrack.ActionVoid:
		if v.VoidReason, ok = afftrack.ParseVoidReason(reason); !ok {
			v.Problem = fmt.Sprintf("Reason %q is not a VoidReason: %s.", reason, afftrack.VoidReasonNames())
		}
	case afftrack.ActionAmend:
		if v.AmendedReason, ok = afftrack.ParseAmendedReason(reason); !ok {
			v.Problem = fmt.Sprintf("Reason %q is not an AmendedReason: %s.", reason, afftrack.AmendedReasonNames())
		}
		if saleValue != "" {
			m, err := afftrack.ParseMoney(saleValue)
			if err != nil || m <= 0 {
				v.Problem = fmt.Sprintf("SaleValue %q is not an amount above 0 with at most 4 decimals.", saleValue)
			}
			v.SaleValue = afftrack.Some(m)
		}
	}
	return v
}
