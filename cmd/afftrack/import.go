package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/afftrack/afftrack/internal/importfile"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// importMemoryLimit is the import's soft memory limit (runtime/debug).
const importMemoryLimit = 128 << 20

// runImport loads an import file (contract §11): all of it or, on the
// first invalid record, nothing.
func runImport(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	setUsage(fs, "afftrack import [--db URL] [--timezone ZONE] FILE", `Loads FILE, a JSON import file (or - for standard input), into the database:
every record or, at the first invalid one, nothing. FILE is one JSON object
with the collections Merchants (each with an optional Program), Affiliates,
Memberships, Transactions, BannerGroups, Banners, Invoices, Coupons,
Promotions, CurrencyRates and Clicks; docs/import.md describes every field
and rule.`)
	dsn := dbFlag(fs)
	zone := fs.String("timezone", "UTC", "the network's time zone; zoned datetimes in the file are converted to it")
	rest, err := env.parse(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return usageError("import", "import takes one FILE, or - for standard input")
	}
	loc, err := networkZone("import", *zone)
	if err != nil {
		return err
	}
	// A directory is refused here, before the database is made.
	r, closeInput, err := openInput(rest[0], "an import file")
	if err != nil {
		return err
	}
	defer closeInput()
	db, err := openStore(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if v := db.NewerSchema(); v != 0 {
		// A newer release may guard what an import replaces (as 0013's
		// release refuses to replace tracked sales) where this one cannot.
		return fmt.Errorf("the database was migrated by a newer afftrack release (migration %d); import with that release", v)
	}
	// The file is read a chunk at a time while the store writes the chunks
	// in one database transaction: all or nothing, in bounded memory. The
	// live heap of a large import is mostly the ids seen so far; without a
	// limit the collector lets garbage grow as large again, so a soft one
	// keeps the process small unless GOMEMLIMIT says otherwise. That is
	// the runtime's own setting, read from the process's environment, not
	// from getenv; the limit is put back when the import is done.
	if os.Getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(importMemoryLimit))
	}
	rd := importfile.NewReader(ctx, r, importfile.Options{Location: loc})
	defer rd.Close()
	svc := sqlstore.NewImportService(db)
	svc.TimeZone = loc.String()
	n, err := svc.ImportChunks(ctx, rd.Next)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "imported %d merchants (%d programs), %d affiliates, %d memberships, %d transactions, "+
		"%d banner groups (%d more made for banners), %d banners, %d invoices, %d coupons, %d promotions, "+
		"%d currency rates, %d clicks, %d new keys\n",
		n.Merchants, n.Programs, n.Affiliates, n.Memberships, n.Transactions, n.BannerGroups, n.NewBannerGroups,
		n.Banners, n.Invoices, n.Coupons, n.Promotions, n.CurrencyRates, n.Clicks, n.Keys)
	return nil
}

// runMigrate applies pending schema migrations and nothing else.
func runMigrate(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	setUsage(fs, "afftrack migrate [--db URL]", "Applies the pending schema migrations, and nothing else.")
	dsn := dbFlag(fs)
	if rest, err := env.parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usageError("migrate", "migrate takes no arguments, got %q", rest)
	}
	db, err := openStore(ctx, *dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if applied := db.Applied(); len(applied) > 0 {
		fmt.Fprintf(env.stdout, "applied %d migrations (%d to %d)\n", len(applied), applied[0], applied[len(applied)-1])
	}
	if v := db.NewerSchema(); v != 0 {
		fmt.Fprintf(env.stdout, "schema is up to date; the database also has migration %d, of a newer afftrack release\n", v)
		return nil
	}
	fmt.Fprintln(env.stdout, "schema is up to date")
	return nil
}
