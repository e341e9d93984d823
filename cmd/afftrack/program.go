package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/importfile"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// runProgram shows or sets a merchant's program (its tracking terms).
func runProgram(ctx context.Context, env *cliEnv, args []string) error {
	const synopsis = `afftrack program show MERCHANT_ID [--db URL]
afftrack program set  MERCHANT_ID FILE|- [--db URL]`
	if len(args) == 0 || isHelp(args[0]) {
		return env.help("program", args, synopsis)
	}
	verb, args := args[0], args[1:]
	if verb != "show" && verb != "set" {
		return usageError("program", "unknown program command %q", verb)
	}
	fs := flag.NewFlagSet("program "+verb, flag.ContinueOnError)
	setUsage(fs, synopsis, `FILE is one JSON object, the Program of a merchant as the import file has it
(docs/import.md); set replaces the merchant's program whole. show prints it
in the same form.`)
	dsn := dbFlag(fs)
	rest, err := env.parse(fs, args)
	if err != nil {
		return err
	}
	want := map[string]int{"show": 1, "set": 2}[verb]
	if len(rest) != want {
		return usageError(fs.Name(), "want %s", map[string]string{"show": "program show MERCHANT_ID",
			"set": "program set MERCHANT_ID FILE|-"}[verb])
	}
	id, err := strconv.ParseInt(rest[0], 10, 64)
	if err != nil || id < 1 {
		return usageError(fs.Name(), "%q is not a merchant id", rest[0])
	}
	var p *afftrack.Program
	if verb == "set" {
		// The file is read and checked before the database is opened.
		if p, err = readProgram(ctx, rest[1], id); err != nil {
			return err
		}
	}
	db, err := openExistingStore(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	programs := sqlstore.NewProgramService(db)
	if verb == "set" {
		if err := programs.SetProgram(ctx, p); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "program of merchant %d set\n", id)
		return nil
	}
	if p, err = programs.FindProgram(ctx, id); err != nil {
		return err
	}
	// Printed as a program file is written, so it can be edited and set
	// again: "&" in a ClickAppend stays "&", not "\u0026".
	enc := json.NewEncoder(env.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(programJSON(p))
}

// readProgram reads a program file, or standard input for "-".
func readProgram(ctx context.Context, name string, merchantID int64) (*afftrack.Program, error) {
	var p *afftrack.Program
	err := readInput(ctx, name, "a program file", func(r io.Reader) (err error) {
		p, err = importfile.ParseProgram(r, merchantID)
		return err
	})
	return p, err
}

// programJSON is a program in the import file's form. Amounts and
// percents are json.Number so they print exactly as stored.
func programJSON(p *afftrack.Program) map[string]any {
	rule := func(r afftrack.CommissionRule) map[string]any {
		m := map[string]any{}
		if r.Percent.Valid {
			m["Percent"] = json.Number(r.Percent.Value.String())
		}
		if r.Flat.Valid {
			m["Flat"] = json.Number(r.Flat.Value.String())
		}
		if r.AffiliateID.Valid {
			m["AffiliateId"] = r.AffiliateID.Value
		}
		if r.Category.Valid {
			m["Category"] = r.Category.Value
		}
		if r.CustomerType != 0 {
			m["CustomerType"] = r.CustomerType.String()
		}
		return m
	}
	rules := []map[string]any{}
	for _, r := range p.Rules {
		rules = append(rules, rule(r))
	}
	domains := p.AllowedDomains
	if domains == nil {
		domains = []string{}
	}
	out := map[string]any{
		"TargetUrl": p.TargetURL, "AllowedDomains": domains, "CookieDays": p.CookieDays,
		"ValidationDays": p.ValidationDays, "Prepaid": p.Prepaid, "ClickAppend": p.ClickAppend,
		"Rules": rules, "OverrideFeePercent": json.Number(p.OverrideFeePercent.String()), "Listed": p.Listed,
	}
	if p.Commission.Pays() {
		out["Commission"] = rule(p.Commission)
	}
	if p.CommissionType != 0 { // else derived from Commission
		out["CommissionType"] = p.CommissionType.String()
	}
	return out
}

// runRates imports currency rates from a CSV file.
func runRates(ctx context.Context, env *cliEnv, args []string) error {
	const synopsis = `afftrack rates import FILE.csv|- [--db URL]`
	if len(args) == 0 || isHelp(args[0]) {
		return env.help("rates", args, synopsis)
	}
	if args[0] != "import" {
		return usageError("rates", "unknown rates command %q", args[0])
	}
	fs := flag.NewFlagSet("rates import", flag.ContinueOnError)
	setUsage(fs, synopsis, `FILE is CSV with the header Code,Date,Rate: an ISO 4217 code, a day
(YYYY-MM-DD) and how many units of the network's currency one unit of Code
buys, up to 8 fractional digits. A conversion uses the latest rate dated on
or before its day. Every rate is written or, at the first bad line, none;
a file holds at most 1,000,000 rates.`)
	dsn := dbFlag(fs)
	rest, err := env.parse(fs, args[1:])
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError("rates import", "rates import takes one FILE.csv, or - for standard input")
	}
	// Up to a million rates are held before they are written; the soft
	// limit keeps the collector from letting garbage grow as large again.
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(importMemoryLimit))
	}
	var rates []afftrack.CurrencyRate
	if err := readInput(ctx, rest[0], "a CSV file", func(r io.Reader) (err error) {
		rates, err = importfile.ParseRatesCSV(r)
		return err
	}); err != nil {
		return err
	}
	db, err := openExistingStore(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := sqlstore.NewCurrencyRateService(db).SetRates(ctx, rates); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "imported %d rates\n", len(rates))
	return nil
}
