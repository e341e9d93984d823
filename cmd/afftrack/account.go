package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// runAccount administers accounts: create, show, suspend, close, reactivate.
func runAccount(ctx context.Context, env *cliEnv, args []string) error {
	const synopsis = `afftrack account create merchant  --name NAME [--id N] [--avatar-url URL] [--db URL]
afftrack account create affiliate --contact-name NAME [--business-name NAME] [--gst] [--id N] [--db URL]
afftrack account show|suspend|close|reactivate merchant|affiliate ID [--db URL]`
	if len(args) == 0 || isHelp(args[0]) {
		return env.help(args, synopsis)
	}
	verb, args := args[0], args[1:]
	switch verb {
	case "create", "show", "suspend", "close", "reactivate":
	default:
		return fmt.Errorf("%w: unknown account command %q; see afftrack account --help", errUsage, verb)
	}
	fs := flag.NewFlagSet("account "+verb, flag.ContinueOnError)
	setUsage(fs, synopsis, "")
	dsn := dbFlag(fs)
	var m afftrack.Merchant
	var a afftrack.Affiliate
	var id int64
	if verb == "create" {
		fs.Int64Var(&id, "id", 0, "the account's id (default: the next free one)")
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
	accounts, done, err := openAccounts(ctx, *dsn)
	if err != nil {
		return err
	}
	defer done()

	switch verb {
	case "create":
		if len(rest) != 1 {
			return fmt.Errorf("%w: account create merchant|affiliate [flags]", errUsage)
		}
		kind, ok := afftrack.ParseAccountKind(rest[0])
		if !ok {
			return fmt.Errorf("%w: %q is not merchant or affiliate", errUsage, rest[0])
		}
		if kind == afftrack.KindMerchant {
			if m.Name == "" {
				return fmt.Errorf("%w: a merchant needs --name", errUsage)
			}
			m.ID, m.Status = id, afftrack.AccountActive
			if err := accounts.CreateMerchant(ctx, &m); err != nil {
				return err
			}
			fmt.Fprintf(env.stdout, "created merchant %d %q\n", m.ID, m.Name)
			return nil
		}
		if a.ContactName == "" {
			return fmt.Errorf("%w: an affiliate needs --contact-name", errUsage)
		}
		a.ID, a.Status = id, afftrack.AccountActive
		if err := accounts.CreateAffiliate(ctx, &a); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "created affiliate %d %q\n", a.ID, a.ContactName)
		return nil
	case "show", "suspend", "close", "reactivate":
		ref, err := parseAccountRef(rest)
		if err != nil {
			return err
		}
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
		return env.help(args, synopsis)
	}
	verb, args := args[0], args[1:]
	switch verb {
	case "create", "list", "revoke":
	default:
		return fmt.Errorf("%w: unknown key command %q; see afftrack key --help", errUsage, verb)
	}
	fs := flag.NewFlagSet("key "+verb, flag.ContinueOnError)
	setUsage(fs, synopsis, "")
	dsn := dbFlag(fs)
	label := fs.String("label", "", "create: a note saying what the key is for")
	rest, err := env.parse(fs, args)
	if err != nil {
		return err
	}
	accounts, done, err := openAccounts(ctx, *dsn)
	if err != nil {
		return err
	}
	defer done()

	switch verb {
	case "create":
		ref, err := parseAccountRef(rest)
		if err != nil {
			return err
		}
		secret, id, err := afftrack.GenerateKey()
		if err != nil {
			return err
		}
		k := &afftrack.Key{ID: id, Account: ref, Label: *label, Created: afftrack.WallClock(time.Now(), time.UTC)}
		if err := accounts.CreateKey(ctx, k, afftrack.HashKey(secret)); err != nil {
			return accountError(ref, err)
		}
		fmt.Fprintf(env.stdout, "key %s for %s %d\n%s\nThe key is shown only now; store it safely.\n", id, ref.Kind, ref.ID, secret)
		return nil
	case "list":
		ref, err := parseAccountRef(rest)
		if err != nil {
			return err
		}
		if err := accountExists(ctx, accounts, ref); err != nil {
			return accountError(ref, err)
		}
		return printKeys(ctx, env, accounts, ref)
	case "revoke":
		if len(rest) != 1 {
			return fmt.Errorf("%w: key revoke KEY_ID", errUsage)
		}
		if err := accounts.RevokeKey(ctx, rest[0], afftrack.WallClock(time.Now(), time.UTC)); err != nil {
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
		fmt.Fprintf(env.stdout, "  %s  created %s  %s  %s\n", k.ID, k.Created.Format("2006-01-02T15:04:05"), state, k.Label)
	}
	return nil
}

// openAccounts opens the database for an administration command.
func openAccounts(ctx context.Context, dsn string) (*sqlstore.AccountService, func(), error) {
	db, err := openStore(ctx, dsn)
	if err != nil {
		return nil, nil, err
	}
	return sqlstore.NewAccountService(db), func() { db.Close() }, nil
}

// parseAccountRef reads "merchant|affiliate ID".
func parseAccountRef(args []string) (afftrack.AccountRef, error) {
	if len(args) != 2 {
		return afftrack.AccountRef{}, fmt.Errorf("%w: want merchant|affiliate ID", errUsage)
	}
	kind, ok := afftrack.ParseAccountKind(args[0])
	if !ok {
		return afftrack.AccountRef{}, fmt.Errorf("%w: %q is not merchant or affiliate", errUsage, args[0])
	}
	id, err := strconv.ParseInt(args[1], 10, 64)
	if err != nil || id < 1 {
		return afftrack.AccountRef{}, fmt.Errorf("%w: %q is not an account id", errUsage, args[1])
	}
	return afftrack.AccountRef{Kind: kind, ID: id}, nil
}
