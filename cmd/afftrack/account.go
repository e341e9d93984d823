package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// runAccount administers accounts: create, show, suspend, close, reactivate.
func runAccount(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: account create|show|suspend|close|reactivate merchant|affiliate ARGS", errUsage)
	}
	verb, args := args[0], args[1:]
	fs := flag.NewFlagSet("account "+verb, flag.ContinueOnError)
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
				return err
			}
		}
		return showAccount(ctx, env, accounts, ref)
	}
	return fmt.Errorf("%w: unknown account command %q", errUsage, verb)
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
	if len(args) == 0 {
		return fmt.Errorf("%w: key create|list|revoke ARGS", errUsage)
	}
	verb, args := args[0], args[1:]
	fs := flag.NewFlagSet("key "+verb, flag.ContinueOnError)
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
			return err
		}
		fmt.Fprintf(env.stdout, "key %s for %s %d\n%s\nThe key is shown only now; store it safely.\n", id, ref.Kind, ref.ID, secret)
		return nil
	case "list":
		ref, err := parseAccountRef(rest)
		if err != nil {
			return err
		}
		return printKeys(ctx, env, accounts, ref)
	case "revoke":
		if len(rest) != 1 {
			return fmt.Errorf("%w: key revoke KEY_ID", errUsage)
		}
		if err := accounts.RevokeKey(ctx, rest[0], afftrack.WallClock(time.Now(), time.UTC)); err != nil {
			return err
		}
		fmt.Fprintf(env.stdout, "revoked key %s\n", rest[0])
		return nil
	}
	return fmt.Errorf("%w: unknown key command %q", errUsage, verb)
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
