package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/importfile"
	"github.com/afftrack/afftrack/internal/sqlstore"
)

const usage = `afftrack: an affiliate-network tracking service

Usage:
  afftrack serve   [--addr 127.0.0.1:8080] [--db sqlite:afftrack.db] [--public-url URL] [--demo] ...
  afftrack import  [--db URL] [--timezone ZONE] FILE|-
  afftrack migrate [--db URL]
  afftrack generate [--db URL] [--transactions 1000000] [--merchants 1000] [--affiliates 50000] [--seed 1] [--start 2024-01-01] [--days 366]
  afftrack account create merchant  --name NAME [--id N] [--avatar-url URL]
  afftrack account create affiliate --contact-name NAME [--business-name NAME] [--gst] [--id N]
  afftrack account show|suspend|close|reactivate merchant|affiliate ID
  afftrack key create merchant|affiliate ID [--label TEXT]
  afftrack key list   merchant|affiliate ID
  afftrack key revoke KEY_ID
  afftrack program show MERCHANT_ID | program set MERCHANT_ID FILE|-
  afftrack rates import FILE.csv|-
  afftrack validate --merchant ID FILE.csv|-
  afftrack transactions release --merchant ID [--up-to DATE] | void ID --reason REASON | history ID
  afftrack lifecycle run
  afftrack payouts run [--up-to DATE] [--minimum AMOUNT] [--invoice-prefix AT] [--gst-percent 10] [--csv FILE]
  afftrack version

Every flag can also be set in the environment as AFFTRACK_ and the flag's
name in upper case with _ for - (AFFTRACK_DB, AFFTRACK_RATE_PER_MINUTE); a
flag on the command line wins. Run "afftrack COMMAND --help" for a
command's flags.
`

// errUsage marks an error in how the command was called.
var errUsage = errors.New("usage")

// run executes the command line args. Its environment comes in through
// getenv and its output goes to stdout and stderr, so tests run it whole.
//
// A command whose standard output could not be written (a full disk, a
// closed pipe) fails, even when its work is done: what it printed, a new
// key's secret say, did not reach its reader, who must be told.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	out := &outputWriter{w: stdout}
	err := dispatch(ctx, args, &cliEnv{getenv: getenv, stdout: out, stderr: stderr})
	// serve's output is its start-up line, which a supervisor may not
	// keep; its clean stop is still a clean stop. A help text asked for
	// (flag.ErrHelp, exit 0), serve's too, fails as any other output does.
	helped := errors.Is(err, flag.ErrHelp)
	serving := len(args) > 0 && args[0] == "serve" && !helped
	if (err == nil || helped) && out.err != nil && !serving {
		return fmt.Errorf("writing the output: %w", out.err)
	}
	return err
}

// outputWriter writes to w and keeps the first error, after which it
// writes nothing more.
type outputWriter struct {
	w   io.Writer
	err error
}

func (o *outputWriter) Write(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	o.err = err
	return n, err
}

// dispatch runs the command args names.
func dispatch(ctx context.Context, args []string, env *cliEnv) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: a command is needed; run afftrack --help for the commands", errUsage)
	}
	stdout := env.stdout
	switch args[0] {
	case "serve":
		return runServe(ctx, env, args[1:])
	case "import":
		return runImport(ctx, env, args[1:])
	case "migrate":
		return runMigrate(ctx, env, args[1:])
	case "generate":
		return runGenerate(ctx, env, args[1:])
	case "account":
		return runAccount(ctx, env, args[1:])
	case "key":
		return runKey(ctx, env, args[1:])
	case "program":
		return runProgram(ctx, env, args[1:])
	case "rates":
		return runRates(ctx, env, args[1:])
	case "validate":
		return runValidate(ctx, env, args[1:])
	case "transactions":
		return runTransactions(ctx, env, args[1:])
	case "lifecycle":
		return runLifecycle(ctx, env, args[1:])
	case "payouts":
		return runPayouts(ctx, env, args[1:])
	case "version", "--version", "-version":
		return runVersion(env, args[1:])
	}
	if isHelp(args[0]) {
		fmt.Fprint(stdout, usage)
		return nil
	}
	return fmt.Errorf("%w: unknown command %q; run afftrack --help for the commands", errUsage, args[0])
}

// isHelp reports whether arg asks for help: help, or -h and -help with
// one dash or two and any value (--help=true), as the flag package takes
// them after a subcommand.
func isHelp(arg string) bool {
	if arg == "help" {
		return true
	}
	if !strings.HasPrefix(arg, "-") {
		return false
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-"), "=")
	return name == "h" || name == "help"
}

// help answers a command group (account, key) called with no subcommand
// or with --help: its synopsis on standard output for --help (exit 0);
// without a subcommand, a mistake like any other, one line (exit 2).
func (e *cliEnv) help(group string, args []string, synopsis string) error {
	if len(args) > 0 {
		fmt.Fprintf(e.stdout, "Usage:\n%s\n\nRun a command with --help for its flags.\n", indent(synopsis))
		return flag.ErrHelp
	}
	return usageError(group, "%s needs a subcommand", group)
}

// usageError is a mistake in how the command cmd ("serve", "account
// create") was called. docs/cli.md promises one line that names the
// mistake and says where to read the right call, and exit status 2: the
// flag package's own answer, its error and then every flag's usage, buries
// the one line that matters in sixty.
func usageError(cmd, format string, args ...any) error {
	return fmt.Errorf("%w: %s; see afftrack %s --help", errUsage, fmt.Sprintf(format, args...), cmd)
}

// runVersion prints which afftrack this is. It takes no arguments, so a
// mistyped call is reported rather than answered as if it were right.
func runVersion(env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	setUsage(fs, "afftrack version", "Prints the version, the source revision when the binary recorded one, and the Go version.")
	if rest, err := env.parse(fs, args); err != nil {
		return err
	} else if len(rest) > 0 {
		return usageError("version", "version takes no arguments, got %q", rest)
	}
	fmt.Fprintln(env.stdout, versionText())
	return nil
}

// setUsage makes fs's --help print synopsis, then details if any, then its
// flags.
func setUsage(fs *flag.FlagSet, synopsis, details string) {
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage:\n%s\n\n", indent(synopsis))
		if details != "" {
			fmt.Fprintf(w, "%s\n\n", details)
		}
		fmt.Fprintln(w, "Flags (each also AFFTRACK_ and its name in upper case, - as _):")
		fmt.Fprint(w, flagDefaults(fs))
	}
}

// flagDefaults is fs.PrintDefaults's text, with an integer flag of
// intFlag shown as "-id int" rather than the "-id value" the flag package
// gives every type it does not know.
func flagDefaults(fs *flag.FlagSet) string {
	var b strings.Builder
	w := fs.Output()
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(w)
	text := "\n" + b.String()
	fs.VisitAll(func(f *flag.Flag) {
		if d, ok := f.Value.(interface{ typeName() string }); ok {
			text = strings.Replace(text, "\n  -"+f.Name+" value\n", "\n  -"+f.Name+" "+d.typeName()+"\n", 1)
		}
	})
	return text[1:]
}

// indent puts two spaces before every line of s.
func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// versionText says which afftrack this is: the module's version when it
// was built from a release, "(devel)" from a checkout, with the VCS
// revision when the build recorded one, and the Go version.
func versionText() string {
	v, rev, goVersion := "(devel)", "", runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				rev = " " + s.Value
			}
		}
	}
	return "afftrack " + v + rev + " " + goVersion
}

// cliEnv is what every subcommand gets from the process.
type cliEnv struct {
	getenv         func(string) string
	stdout, stderr io.Writer
}

// parse parses fs from args, allowing flags after positional arguments
// (`key create merchant 1 --label x`), then fills every flag not given on
// the command line from its AFFTRACK_ environment variable. It returns the
// positional arguments.
//
// --help (-h, --help=true) prints fs's usage on standard output: it was
// asked for. A mistake (an unknown flag, a value that does not parse) is
// a usageError naming fs's command, and nothing else is printed: the flag
// package would print its error and every flag's usage on fs's output,
// which is why that output is discarded until help is asked for.
func (e *cliEnv) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(e.stdout)
				fs.Usage()
				return nil, err
			}
			return nil, usageError(fs.Name(), "%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		name := "AFFTRACK_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := e.getenv(name); v != "" && !given[f.Name] && err == nil {
			if serr := fs.Set(f.Name, v); serr != nil {
				err = usageError(fs.Name(), "%s=%q: %v", name, v, serr)
			}
		}
	})
	// A database URL of no kind is checked here, with the other flags,
	// rather than by a flag.Value: the flag package's error would quote
	// the URL, password and all.
	if f := fs.Lookup("db"); f != nil && err == nil {
		if cerr := sqlstore.CheckURL(f.Value.String()); cerr != nil {
			err = usageError(fs.Name(), "--db: %v", cerr)
		}
	}
	return positional, err
}

// errorText is what the user reads for err: a domain error's message as is,
// anything else in full.
func errorText(err error) string {
	var e *afftrack.Error
	if errors.As(err, &e) {
		return oneLine(e.Message)
	}
	return oneLine(err.Error())
}

// maxErrorText bounds the error line the command prints.
const maxErrorText = 1000

// oneLine makes msg one line of text a terminal shows as it is: an error
// may quote a file's field names and values, and a name holding a line
// break or an escape sequence must not print a second line (a forged
// summary) or drive the terminal. Control characters and bytes that are
// not UTF-8 are written as Go escapes (\n, \x1b), and a long message is
// cut, saying how much was left out.
func oneLine(msg string) string {
	var b strings.Builder
	for i, r := range msg {
		if b.Len() >= maxErrorText {
			return b.String() + fmt.Sprintf("… (%d more bytes)", len(msg)-i)
		}
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(msg[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, msg[i])
		case unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// exitCode is 2 for a usage error, 0 for --help, 1 for anything else.
func exitCode(err error) int {
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	return 1
}

// networkZone loads the zone a --timezone flag names. The zone's name is
// what the database records and what later commands are checked against,
// so "Local" is taken as this machine's zone by its IANA name
// (machineZone): Go names that zone "Local", or after TZ's file, and falls
// back to UTC for a TZ it cannot read (a POSIX rule such as
// "CET-1CEST,M3.5.0,M10.5.0/3", a typo); recorded so, it would shift every
// datetime, or load on no other machine.
func networkZone(cmd, name string) (*time.Location, error) {
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, usageError(cmd, "--timezone: %v", err)
	}
	if name != "Local" {
		return loc, nil
	}
	tz, set := os.LookupEnv("TZ") // what the runtime read for time.Local
	if loc, err = machineZone(tz, set, "/etc/localtime"); err != nil {
		return nil, usageError(cmd, "--timezone Local: %v; give a zone's IANA name, such as Australia/Sydney", err)
	}
	return loc, nil
}

// machineZone returns this machine's zone by its IANA name: TZ's (a name,
// or a path into a zoneinfo directory, after an optional ':'), else, with
// TZ unset, that of the file link, the system's localtime, links to. An
// empty TZ is UTC, as the C library and Go read it.
func machineZone(tz string, set bool, link string) (*time.Location, error) {
	if !set {
		return localZone(link)
	}
	tz = strings.TrimPrefix(tz, ":")
	switch {
	case tz == "":
		return time.UTC, nil
	case tz == link:
		return localZone(link)
	case strings.HasPrefix(tz, "/"):
		return zoneOfFile(tz)
	}
	loc, err := zoneNamed(tz)
	if err != nil {
		return nil, fmt.Errorf("TZ=%q is not an IANA zone name", tz)
	}
	return loc, nil
}

// localZone returns the zone link, the system's localtime, is a symbolic
// link to, by the IANA name after "zoneinfo/" in its target.
func localZone(link string) (*time.Location, error) {
	target, err := os.Readlink(link)
	if err != nil {
		return nil, fmt.Errorf("%s is not a link into a zoneinfo directory", link)
	}
	return zoneOfFile(target)
}

// zoneOfFile returns the zone of a zoneinfo file by the IANA name after
// "zoneinfo/" in its path.
func zoneOfFile(path string) (*time.Location, error) {
	_, zone, ok := strings.Cut(path, "zoneinfo/")
	if !ok {
		return nil, fmt.Errorf("%s is not in a zoneinfo directory", path)
	}
	loc, err := zoneNamed(zone)
	if err != nil {
		return nil, fmt.Errorf("%s is not an IANA zone's file", path)
	}
	return loc, nil
}

// zoneNamed loads the zone of an IANA name as it is recorded: the
// "posix/" copies of the zones under their own names; "right/" zones
// (which count leap seconds) and "localtime" (each machine's own) are no
// zone to record.
func zoneNamed(zone string) (*time.Location, error) {
	zone = strings.TrimPrefix(zone, "posix/")
	if zone == "localtime" || strings.HasPrefix(zone, "right/") {
		return nil, errors.New("not a zone to record")
	}
	loc, err := time.LoadLocation(zone)
	if err != nil || loc.String() != zone {
		return nil, errors.New("not an IANA zone")
	}
	return loc, nil
}

// openInput opens the file name a command reads, or standard input for
// "-", and returns it with what closes it. A directory opens, and would
// fail only once read, with a message about its content (the rates
// file's "a header Code,Date,Rate is needed") or after the database was
// made: it is refused here as "name is a directory, not what".
func openInput(name, what string) (io.Reader, func(), error) {
	if name == "-" {
		return os.Stdin, func() {}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is a directory, not %s", name, what)
	}
	return f, func() { f.Close() }, nil
}

// readInput opens the file name a command reads (openInput) and hands it
// to read, so that a signal (ctx done) stops a read that waits for its
// input (standard input, a pipe), which the system would otherwise
// restart. An error of read once ctx is done is reported as the signal
// that stopped it: read's own complaint (a header missing, a file cut
// short) would blame the file. The import has a Reader that does both.
func readInput(ctx context.Context, name, what string, read func(io.Reader) error) error {
	f, closeInput, err := openInput(name, what)
	if err != nil {
		return err
	}
	defer closeInput()
	r, stop := importfile.StopOnDone(ctx, f)
	defer stop()
	if err := read(r); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted (%v) while reading the input: nothing was written", context.Cause(ctx))
		}
		return err
	}
	return nil
}
