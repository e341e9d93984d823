package main

import (
	"context"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

// runPayouts pays affiliates their Approved commissions by invoice.
func runPayouts(ctx context.Context, env *cliEnv, args []string) error {
	const synopsis = `afftrack payouts run [--up-to YYYY-MM-DD] [--minimum AMOUNT] [--invoice-prefix AT] [--gst-percent 10] [--csv FILE] [--db URL]`
	if len(args) == 0 || isHelp(args[0]) {
		return env.help("payouts", args, synopsis)
	}
	if args[0] != "run" {
		return usageError("payouts", "unknown payouts command %q", args[0])
	}
	fs := flag.NewFlagSet("payouts run", flag.ContinueOnError)
	setUsage(fs, synopsis, `Makes one invoice per affiliate whose Approved, unpaid commission created up to
the end of --up-to reaches --minimum, and marks those transactions Paid with
its InvoiceId, all at once. Running it again, or twice at the same moment,
pays nothing twice. It prints what it paid; --csv also writes it as CSV for
the bank transfer.`)
	f := addLifecycleFlags(fs)
	upTo := fs.String("up-to", "", "the last day of creation to pay (default: today, in the network's zone)")
	minimum := fs.String("minimum", "0", "the least commission an affiliate is paid now; less waits for a later run")
	prefix := fs.String("invoice-prefix", "AT", "the start of each invoice Number: PREFIX-AFFILIATE-0001")
	gst := fs.String("gst-percent", "10", "GST added for GST-registered affiliates, in percent")
	csvFile := fs.String("csv", "", "also write the payouts to this CSV file")
	rest, err := env.parse(fs, args[1:])
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError("payouts run", "payouts run takes no arguments, got %q", rest)
	}
	min, err := afftrack.ParseMoney(*minimum)
	if err != nil || min < 0 {
		return usageError("payouts run", "--minimum %q is not an amount of 0 or more with at most 4 decimals", *minimum)
	}
	gstValue, err := afftrack.ParseDecimal(*gst, afftrack.PercentScale)
	if err != nil || gstValue < 0 || gstValue > 100*10_000 {
		return usageError("payouts run", "--gst-percent %q is not a percent from 0 to 100", *gst)
	}
	if !validInvoicePrefix(*prefix) {
		return usageError("payouts run", "--invoice-prefix must be 1 to 32 printable characters (UTF-8), got %q", *prefix)
	}
	var upToDay time.Time
	if *upTo != "" {
		if upToDay, err = time.Parse(time.DateOnly, *upTo); err != nil {
			return usageError("payouts run", "--up-to %q is not a date (YYYY-MM-DD)", *upTo)
		}
	}
	// The CSV's file is opened before anything is paid, so a path that
	// cannot be written stops the run instead of leaving payouts made
	// with no file for the transfer.
	var csvOut *payoutsFile
	if *csvFile != "" {
		if csvOut, err = openPayoutsFile(*csvFile, env.stdout, env.stderr); err != nil {
			return fmt.Errorf("--csv: %w", err)
		}
		defer csvOut.abandon()
	}
	db, _, now, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	run := afftrack.PayoutRun{Minimum: min, InvoicePrefix: *prefix, GSTPercent: afftrack.Percent(gstValue),
		Now: now(), Actor: afftrack.ActorOperator, UpTo: upToDay}
	if *upTo == "" {
		run.UpTo = time.Date(run.Now.Year(), run.Now.Month(), run.Now.Day(), 0, 0, 0, 0, time.UTC)
	}
	payouts, err := sqlstore.NewPayoutService(db).RunPayouts(ctx, run)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "INVOICE\tNUMBER\tAFFILIATE\tTRANSACTIONS\tSUBTOTAL\tGST\tTOTAL\t")
	var total afftrack.Money
	totalFits := true
	for _, p := range payouts {
		inv := p.Invoice
		gst := "-"
		if inv.GST.Valid {
			gst = inv.GST.Value.String()
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\t%s\t%s\t\n", inv.ID, inv.Number, inv.AffiliateID, p.Transactions,
			inv.SubTotal, gst, inv.Total)
		if totalFits {
			total, totalFits = total.Add(inv.Total)
		}
	}
	tw.Flush()
	all := total.String()
	if !totalFits {
		all = "beyond " + afftrack.Money(math.MaxInt64).String()
	}
	fmt.Fprintf(env.stdout, "paid %d affiliates %s in all, commissions up to %s\n", len(payouts), all,
		run.UpTo.Format(time.DateOnly))
	if csvOut == nil {
		return nil
	}
	if err := writePayoutsCSV(csvOut.w, payouts); err != nil {
		return fmt.Errorf("--csv: the payouts above are made, but their file could not be written (%w); "+
			"their invoices are listed by GET /V1/Affiliate/Invoices", err)
	}
	if err := csvOut.finish(); err != nil {
		return fmt.Errorf("--csv: the payouts above are made and written to %s, but %w", csvOut.name, err)
	}
	return nil
}

// validInvoicePrefix reports whether prefix may begin invoice Numbers,
// which every client shows and the transfer's CSV carries: 1 to 32
// characters of valid UTF-8, none a control or other invisible one.
func validInvoicePrefix(prefix string) bool {
	if prefix == "" || !utf8.ValidString(prefix) || utf8.RuneCountInString(prefix) > 32 {
		return false
	}
	for _, r := range prefix {
		if !unicode.IsGraphic(r) {
			return false
		}
	}
	return true
}

// payoutsFile is where --csv writes. A regular file (new or not) is
// written as a temporary file beside it, which takes its name once
// complete, so a run that fails leaves whatever was there. The command's
// standard output or error (/dev/stdout, /dev/fd/2) is written where it
// points, as the shell opened it, and anything else (a pipe, a terminal)
// is written as it is.
type payoutsFile struct {
	w      io.Writer
	f      *os.File // the file opened for w; nil when w is a descriptor the command was given
	name   string   // what the file is called in messages
	target string   // the name the temporary file takes; "" when f is the target itself
	done   bool
}

// openPayoutsFile opens name for the CSV, following symbolic links to
// the file they name, made if it is not there. stdout and stderr are the
// command's, for a name that reaches descriptor 1 or 2.
func openPayoutsFile(name string, stdout, stderr io.Writer) (*payoutsFile, error) {
	target, fd := followLinks(name)
	switch fd {
	case -1:
	case 1:
		return &payoutsFile{w: stdout, name: name}, nil
	case 2:
		return &payoutsFile{w: stderr, name: name}, nil
	default:
		// Which other descriptor the shell opened cannot be told from the
		// ones the process opens itself (the runtime's, the database's),
		// and writing into one of those would corrupt it.
		return nil, fmt.Errorf("%s names descriptor %d; give a file's path, /dev/stdout or /dev/stderr", name, fd)
	}
	if fi, err := os.Stat(target); err == nil {
		switch {
		case fi.IsDir():
			return nil, fmt.Errorf("%s is a directory", name)
		case !fi.Mode().IsRegular(): // a pipe, a terminal, /dev/null
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return nil, err
			}
			return &payoutsFile{w: f, f: f, name: name}, nil
		}
	}
	f, err := os.CreateTemp(filepath.Dir(target), ".payouts-*.csv")
	if err != nil {
		return nil, err
	}
	return &payoutsFile{w: f, f: f, name: f.Name(), target: target}, nil
}

// descriptorLink matches the names under which Linux shows a process its
// own open descriptors. Reading such a link gives the name of the file
// behind the descriptor, but that file is not where the descriptor
// writes: a shell's `>> log` appends to it, and replacing the file would
// lose the log; so the walk stops at the descriptor.
var descriptorLink = regexp.MustCompile(`^/(?:dev/fd|proc/self/fd|proc/thread-self/fd)/([0-9]{1,9})$`)

// followLinks follows the symbolic links from name to the file they
// lead to, made or not, and returns it; or, when the way passes through
// one of the process's own descriptors (/dev/stdout is a link to
// /proc/self/fd/1), that descriptor, with fd -1 otherwise.
func followLinks(name string) (target string, fd int) {
	target = name
	for range 40 { // as many links as the kernel follows
		if m := descriptorLink.FindStringSubmatch(filepath.Clean(target)); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				return target, n
			}
		}
		fi, err := os.Lstat(target)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			break
		}
		dest, err := os.Readlink(target)
		if err != nil {
			break
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(target), dest)
		}
		target = dest
	}
	return target, -1
}

// finish gives a temporary file its name, readable as a new file would
// be (0644 less the umask is not known here; 0644 is what os.Create
// gives under the usual umask), and synced first so the name never
// points at a file half on disk.
func (p *payoutsFile) finish() error {
	p.done = true
	if p.f == nil {
		return nil
	}
	if p.target == "" {
		return p.f.Close()
	}
	if err := p.f.Chmod(0o644); err != nil {
		return fmt.Errorf("it could not be made readable: %w", err)
	}
	if err := p.f.Sync(); err != nil {
		return fmt.Errorf("it could not be synced: %w", err)
	}
	if err := p.f.Close(); err != nil {
		return fmt.Errorf("it could not be closed: %w", err)
	}
	if err := os.Rename(p.f.Name(), p.target); err != nil {
		return fmt.Errorf("it could not be named %s: %w", p.target, err)
	}
	return nil
}

// abandon closes the file, and removes a temporary one that finish did
// not reach; one finish failed to name is kept, since it holds payouts
// already made.
func (p *payoutsFile) abandon() {
	if p.f == nil {
		return
	}
	p.f.Close()
	if p.target != "" && !p.done {
		os.Remove(p.f.Name())
	}
}

// writePayoutsCSV writes one line per invoice to f, for the bank
// transfer.
func writePayoutsCSV(out io.Writer, payouts []afftrack.Payout) error {
	w := csv.NewWriter(out)
	w.Write([]string{"InvoiceId", "Number", "AffiliateId", "BusinessName", "ContactName", "SubTotal", "GST", "Total"})
	for _, p := range payouts {
		inv := p.Invoice
		gst := ""
		if inv.GST.Valid {
			gst = inv.GST.Value.String()
		}
		w.Write([]string{strconv.FormatInt(inv.ID, 10), inv.Number, strconv.FormatInt(inv.AffiliateID, 10),
			inertCell(p.BusinessName), inertCell(p.ContactName), inv.SubTotal.String(), gst, inv.Total.String()})
	}
	w.Flush()
	return w.Error()
}

// inertCell is a name an affiliate chose, made safe to open in a
// spreadsheet: one that begins as a formula would (=, +, -, @, a tab or a
// carriage return) gets a leading apostrophe, which spreadsheets read as
// "text" and do not show.
func inertCell(s string) string {
	if s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0 {
		return "'" + s
	}
	return s
}
