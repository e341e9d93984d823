package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// runAccount administers accounts: create, show, suspend, close, reactivate.
func runAccount(ctx context.Context, env *cliEnv, args []string) error {
	const synopsis = `afftrack account create merchant  --name NAME [--id N] [--avatar-url URL] [--db URL]
afftrack account create affiliate --contact-name NAME [--business-name NAME] [--gst] [--id N] [--db URL]
afftrack account show|suspend|close|reactivate merchant|affiliate ID [--db URL]`
	if len(args) == 0 || isHelp(args[0]) {
		return env.help("account", args, synopsis)
	}
	verb, args := args[0], args[1:]
	switch verb {
	case "create", "show", "suspend", "close", "reactivate":
	default:
		return usageError("account", "unknown account command %q", verb)
	}
	fs := flag.NewFlagSet("account "+verb, flag.ContinueOnError)
	setUsage(fs, synopsis, "")
	dsn := dbFlag(fs)
	var m afftrack.Merchant
	var a afftrack.Affiliate
	var id int64
	if verb == "create" {
		intFlag(fs, &id, "id", 0, "the account's id, 1 or more (default: the next free one)")
		fs.StringVar(&m.Name, "name", "", "merchant: the business name")
		fs.StringVar(&m.AvatarURL, "avatar-url", "", "merchant: URL of the logo")
		fs.StringVar(&a.ContactName, "contact-name", "", "affiliate: the contact's name")
		fs.StringVar(&a.BusinessName, "business-name", "", "affiliate: the business name")
		fs.BoolVar(&a.GSTRegistered, "gst", false, "affiliate: registered for GST")
	}
	rest, err := env.parse(fs, args)
	if err != nil {
		return err
	}
	// Every argument is checked before the database is opened: a mistyped
	// call must not create or migrate one.
	var ref afftrack.AccountRef
	if verb == "create" {
		kind, err := checkNewAccount(fs, rest, &m, &a, id)
		if err != nil {
			return err
		}
		ref.Kind = kind
	} else if ref, err = parseAccountRef(fs.Name(), rest); err != nil {
		return err
	}
	accounts, done, err := openAccounts(ctx, *dsn, verb == "create")
	if err != nil {
		return err
	}
	defer done()

	switch verb {
	case "create":
		if ref.Kind == afftrack.KindMerchant {
			m.ID, m.Status = id, afftrack.AccountActive
			if err := accounts.CreateMerchant(ctx, &m); err != nil {
				return err
			}
			fmt.Fprintf(env.stdout, "created merchant %d %q\n", m.ID, m.Name)
			return nil
		}
		a.ID, a.Status = id, afftrack.AccountActive
		if err := accounts.CreateAffiliate(ctx, &a); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "created affiliate %d %q\n", a.ID, a.ContactName)
		return nil
	case "show", "suspend", "close", "reactivate":
		status := map[string]afftrack.AccountStatus{
			"suspend": afftrack.AccountSuspended, "close": afftrack.AccountClosed, "reactivate": afftrack.AccountActive,
		}[verb]
		if status != 0 {
			if err := accounts.SetAccountStatus(ctx, ref, status); err != nil {
				return accountError(ref, err)
			}
		}
		return accountError(ref, showAccount(ctx, env, accounts, ref))
	}
	return nil
}

// accountExists returns ENOTFOUND when the account does not exist.
func accountExists(ctx context.Context, accounts *sqlstore.AccountService, ref afftrack.AccountRef) error {
	if ref.Kind == afftrack.KindMerchant {
		_, err := accounts.FindMerchant(ctx, ref.ID)
		return err
	}
	_, err := accounts.FindAffiliate(ctx, ref.ID)
	return err
}

// accountError names the account when err says it does not exist: the
// store's message is the API's, which names nothing.
func accountError(ref afftrack.AccountRef, err error) error {
	if afftrack.ErrorCode(err) == afftrack.ENOTFOUND {
		return afftrack.Errorf(afftrack.ENOTFOUND, "%s %d not found", strings.ToLower(ref.Kind.String()), ref.ID)
	}
	return err
}

// showAccount prints an account's state and its keys.
func showAccount(ctx context.Context, env *cliEnv, accounts *sqlstore.AccountService, ref afftrack.AccountRef) error {
	if ref.Kind == afftrack.KindMerchant {
		m, err := accounts.FindMerchant(ctx, ref.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "merchant %d %q status=%s avatar=%q\n", m.ID, m.Name, m.Status, m.AvatarURL)
	} else {
		a, err := accounts.FindAffiliate(ctx, ref.ID)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "affiliate %d %q business=%q status=%s gst=%v\n", a.ID, a.ContactName, a.BusinessName, a.Status, a.GSTRegistered)
	}
	return printKeys(ctx, env, accounts, ref)
}

// runKey administers API keys: create (the secret is shown once), list, revoke.
func runKey(ctx context.Context, env *cliEnv, args []string) error {
	const synopsis = `afftrack key create merchant|affiliate ID [--label TEXT] [--db URL]
afftrack key list   merchant|affiliate ID [--db URL]
afftrack key revoke KEY_ID [--db URL]`
	if len(args) == 0 || isHelp(args[0]) {
		return env.help("key", args, synopsis)
	}
	verb, args := args[0], args[1:]
	switch verb {
	case "create", "list", "revoke":
	default:
		return usageError("key", "unknown key command %q", verb)
	}
	fs := flag.NewFlagSet("key "+verb, flag.ContinueOnError)
	setUsage(fs, synopsis, "")
	dsn := dbFlag(fs)
	label := new(string)
	if verb == "create" { // the only command with a flag of its own
		label = fs.String("label", "", "a note saying what the key is for")
	}
	rest, err := env.parse(fs, args)
	if err != nil {
		return err
	}
	// The arguments are checked before the database is opened.
	var ref afftrack.AccountRef
	if verb == "revoke" {
		if len(rest) != 1 {
			return usageError(fs.Name(), "want key revoke KEY_ID")
		}
	} else if ref, err = parseAccountRef(fs.Name(), rest); err != nil {
		return err
	}
	if problem := textProblem("--label", *label, false); problem != "" {
		return usageError(fs.Name(), "%s", problem)
	}
	accounts, done, err := openAccounts(ctx, *dsn, false)
	if err != nil {
		return err
	}
	defer done()

	switch verb {
	case "create":
		secret, id, err := afftrack.GenerateKey()
		if err != nil {
			return err
		}
		now, err := accounts.NetworkNow(ctx)
		if err != nil {
			return err
		}
		k := &afftrack.Key{ID: id, Account: ref, Label: *label, Created: now}
		if err := accounts.CreateKey(ctx, k, afftrack.HashKey(secret)); err != nil {
			return accountError(ref, err)
		}
		fmt.Fprintf(env.stdout, "key %s for %s %d\n%s\nThe key is shown only now; store it safely.\n", id, ref.Kind, ref.ID, secret)
		if out, ok := env.stdout.(*outputWriter); ok && out.err != nil {
			return fmt.Errorf("key %s was made but its secret could not be written (%w); revoke it: afftrack key revoke %s",
				id, out.err, id)
		}
		return nil
	case "list":
		if err := accountExists(ctx, accounts, ref); err != nil {
			return accountError(ref, err)
		}
		return printKeys(ctx, env, accounts, ref)
	case "revoke":
		now, err := accounts.NetworkNow(ctx)
		if err != nil {
			return err
		}
		if err := accounts.RevokeKey(ctx, rest[0], now); err != nil {
			if afftrack.ErrorCode(err) == afftrack.ENOTFOUND {
				return afftrack.Errorf(afftrack.ENOTFOUND, "key %s not found", rest[0])
			}
			return err
		}
		fmt.Fprintf(env.stdout, "revoked key %s\n", rest[0])
	}
	return nil
}

func printKeys(ctx context.Context, env *cliEnv, accounts *sqlstore.AccountService, ref afftrack.AccountRef) error {
	keys, err := accounts.ListKeys(ctx, ref)
	if err != nil {
		return err
	}
	for _, k := range keys {
		state := "active"
		if k.Revoked.Valid {
			state = "revoked " + k.Revoked.Value.Format("2006-01-02T15:04:05")
		}
		// The label is quoted, as account names are: it may hold a line
		// break, which printed as it is would show a key line of its own.
		fmt.Fprintf(env.stdout, "  %s  created %s  %s  %q\n", k.ID, k.Created.Format("2006-01-02T15:04:05"), state, k.Label)
	}
	return nil
}

// openAccounts opens the database for an administration command; only
// create (account create) may make it.
func openAccounts(ctx context.Context, dsn string, create bool) (*sqlstore.AccountService, func(), error) {
	open := openExistingStore
	if create {
		open = func(ctx context.Context, dsn string) (*sqlstore.DB, error) { return openStore(ctx, dsn) }
	}
	db, err := open(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	return sqlstore.NewAccountService(db), func() { db.Close() }, nil
}

// parseAccountRef reads "merchant|affiliate ID", the arguments of cmd.
func parseAccountRef(cmd string, args []string) (afftrack.AccountRef, error) {
	if len(args) != 2 {
		return afftrack.AccountRef{}, usageError(cmd, "want %s merchant|affiliate ID", cmd)
	}
	kind, ok := afftrack.ParseAccountKind(args[0])
	if !ok {
		return afftrack.AccountRef{}, usageError(cmd, "%q is not merchant or affiliate", args[0])
	}
	id, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || id < 1 {
		return afftrack.AccountRef{}, usageError(cmd, "%q is not an account id", args[1])
	}
	return afftrack.AccountRef{Kind: kind, ID: id}, nil
}

// checkNewAccount checks an account create call: its one argument, the
// kind, and the flags that kind takes, by the rules the import applies to
// a Merchants or Affiliates record. --id must be 1 or more when given
// (ids are positive; 0 would silently mean the next free one).
func checkNewAccount(fs *flag.FlagSet, rest []string, m *afftrack.Merchant, a *afftrack.Affiliate, id int64) (afftrack.AccountKind, error) {
	cmd := fs.Name()
	if len(rest) != 1 {
		return 0, usageError(cmd, "want account create merchant|affiliate [flags]")
	}
	kind, ok := afftrack.ParseAccountKind(rest[0])
	if !ok {
		return 0, usageError(cmd, "%q is not merchant or affiliate", rest[0])
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["id"] && (id < 1 || id > afftrack.MaxID) {
		return 0, usageError(cmd, "--id %d is not an account id; ids are from 1 to %d", id, afftrack.MaxID)
	}
	// A flag of the other kind of account would be dropped unsaid.
	others := []string{"contact-name", "business-name", "gst"}
	if kind == afftrack.KindAffiliate {
		others = []string{"name", "avatar-url"}
	}
	for _, f := range others {
		if given[f] {
			return 0, usageError(cmd, "--%s is not a flag of a new %s", f, strings.ToLower(kind.String()))
		}
	}
	var problem string
	if kind == afftrack.KindMerchant {
		problem = textProblem("--name", m.Name, true)
		if problem == "" {
			problem = urlProblem("--avatar-url", m.AvatarURL)
		}
	} else {
		problem = textProblem("--contact-name", a.ContactName, true)
		if problem == "" {
			problem = textProblem("--business-name", a.BusinessName, false)
		}
	}
	if problem != "" {
		return 0, usageError(cmd, "%s", problem)
	}
	return kind, nil
}

// textProblem says what is wrong with the text flag name's value s, or
// "": the import's rule for a text field, at most afftrack.MaxText bytes with no
// character afftrack.TextProblem finds, and for a required one (a name)
// something besides spaces.
func textProblem(name, s string, required bool) string {
	switch {
	case required && strings.TrimSpace(s) == "":
		return name + " is required and must not be only spaces"
	case len(s) > afftrack.MaxText:
		return fmt.Sprintf("%s is %d bytes long; text is at most %d bytes", name, len(s), afftrack.MaxText)
	}
	if i := afftrack.TextProblem(s); i >= 0 {
		return fmt.Sprintf("%s has a character text cannot hold at byte %d (a control character other than tab, CR and LF, U+FFFE, U+FFFF or invalid UTF-8)", name, i)
	}
	return ""
}

// urlProblem says what is wrong with the URL flag name's value s, or "":
// empty, or the import's rule (afftrack.WebURLProblem).
func urlProblem(name, s string) string {
	if s == "" {
		return ""
	}
	if problem := afftrack.WebURLProblem(s); problem != "" {
		return name + " " + problem
	}
	return ""
}
