package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestHelpTouchesNoDatabase(t *testing.T) {
	for _, args := range [][]string{
		{"--help"}, {"help"}, {"serve", "--help"}, {"serve", "--help=true"}, {"serve", "-h"}, {"import", "--help"},
		{"migrate", "--help"}, {"generate", "--help"}, {"account", "--help"}, {"account", "-h"}, {"account", "--help=true"},
		{"account", "create", "--help"}, {"account", "show", "--help"}, {"key", "--help"}, {"key", "create", "--help"},
		{"key", "revoke", "-h"}, {"version", "--help"}, {"payouts", "run", "--help=true"},
	} {
		t.Run(strings.Join(args, " ")+" prints usage on standard output, exits 0 and creates no file", func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(binary, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "AFFTRACK_DB=")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("exit: %v\n%s%s", err, out, stderr.String())
			}
			if !strings.Contains(string(out), "Usage") {
				t.Errorf("no usage on standard output:\n%s", out)
			}
			if stderr.Len() > 0 {
				t.Errorf("standard error is not empty:\n%s", stderr.String())
			}
			if files, _ := os.ReadDir(dir); len(files) > 0 {
				t.Errorf("created %v", files)
			}
		})
	}
	t.Run("import --help explains FILE and points to docs/import.md", func(t *testing.T) {
		out, err := afftrack(t, nil, "import", "--help")
		if err != nil || !strings.Contains(out, "FILE, a JSON import file") || !strings.Contains(out, "docs/import.md") {
			t.Errorf("%v\n%s", err, out)
		}
	})
}

func TestVersion(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		out, err := afftrack(t, nil, arg)
		if err != nil || !strings.HasPrefix(out, "afftrack ") || !strings.Contains(out, " go1.") {
			t.Errorf("%s: %v\n%s", arg, err, out)
		}
	}
}

// TestUsageErrors calls each command wrongly in an empty directory: each
// mistake is one line on standard error that names it and the command's
// --help, exit status 2, and no database is created or migrated (the
// default --db is sqlite:afftrack.db in the working directory).
func TestUsageErrors(t *testing.T) {
	long := strings.Repeat("n", 5000)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "a command is needed; run afftrack --help"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"; run afftrack --help`},
		{[]string{"account", "frobnicate"}, `unknown account command "frobnicate"; see afftrack account --help`},
		{[]string{"account"}, "account needs a subcommand; see afftrack account --help"},
		{[]string{"key"}, "key needs a subcommand; see afftrack key --help"},
		{[]string{"serve", "--no-such-flag"}, "flag provided but not defined: -no-such-flag; see afftrack serve --help"},
		{[]string{"serve", "--bogus"}, "-bogus; see afftrack serve --help"},
		{[]string{"serve", "--rate-per-minute", "abc"},
			`invalid value "abc" for flag -rate-per-minute: must be decimal digits with an optional sign; see afftrack serve --help`},
		// An --addr that cannot listen, so serve would stop, not serve, if
		// the number were taken.
		{[]string{"serve", "--rate-per-minute", "0x10", "--addr", "nowhere"},
			`invalid value "0x10" for flag -rate-per-minute: must be decimal digits`},
		{[]string{"serve", "--click-buffer", "1_000", "--addr", "nowhere"}, `invalid value "1_000" for flag -click-buffer: must be decimal digits`},
		{[]string{"serve", "--notify-first-retry", "0", "--addr", "nowhere"}, "--notify-first-retry must be positive"},
		{[]string{"serve", "--notify-first-retry", "-1s", "--addr", "nowhere"}, "--notify-first-retry must be positive"},
		{[]string{"account", "create", "affiliate", "--contact-name", "x", "--id", "0x10"},
			`invalid value "0x10" for flag -id: must be decimal digits with an optional sign; see afftrack account create --help`},
		{[]string{"account", "create", "affiliate", "--contact-name", "x", "--id", "0b111"}, `invalid value "0b111" for flag -id`},
		{[]string{"account", "create", "affiliate", "--contact-name", "x", "--id", "1_000"}, `invalid value "1_000" for flag -id`},
		{[]string{"account", "create", "affiliate", "--contact-name", "x", "--id", "0o7"}, `invalid value "0o7" for flag -id`},
		{[]string{"transactions", "release", "--merchant", "0x10"}, `invalid value "0x10" for flag -merchant: must be decimal digits`},
		{[]string{"validate", "--merchant", "0x10", "v.csv"}, `invalid value "0x10" for flag -merchant: must be decimal digits`},
		{[]string{"generate", "--transactions", "0x10"}, `invalid value "0x10" for flag -transactions: must be decimal digits`},
		{[]string{"generate", "--seed", "-1"}, `invalid value "-1" for flag -seed: must be decimal digits; see afftrack generate --help`},
		{[]string{"account", "show", "affiliate", "0x10"}, `"0x10" is not an account id`},
		{[]string{"serve", "--public-url", "api.example.net"}, "--public-url must be an absolute http or https URL"},
		{[]string{"serve", "--public-url", "javascript:alert(1)"}, "--public-url must be an absolute http or https URL"},
		{[]string{"serve", "--public-url", "not a url"}, "--public-url must be an absolute http or https URL"},
		{[]string{"serve", "--public-url", "https://user:pw@api.example.net"}, "--public-url must be an absolute http or https URL"},
		{[]string{"serve", "--public-url", "https://api.example.net/?a=1"}, "--public-url must be an absolute http or https URL"},
		{[]string{"serve", "--public-url", "https://api.example.net/#top"}, "--public-url must be an absolute http or https URL"},
		{[]string{"serve", "--tracking-url", "javascript:x"}, "--tracking-url must be an absolute http or https URL"},
		{[]string{"serve", "--redis", "redis://:pw@host:badport/0"}, "--redis <unparsable redis URL>"},
		{[]string{"import", "--bogus", "x.json"}, "-bogus; see afftrack import --help"},
		{[]string{"import", "--db", "postgress://u:secret@h/db", "x.json"},
			`--db: the URL must start with "sqlite:", "postgres://" or "postgresql://"; see afftrack import --help`},
		{[]string{"key", "list", "--db", "foo:bar"}, `--db: the URL must start with "sqlite:"`},
		{[]string{"migrate", "extra"}, `migrate takes no arguments, got ["extra"]; see afftrack migrate --help`},
		{[]string{"version", "--bogus"}, "-bogus; see afftrack version --help"},
		{[]string{"version", "extra"}, `version takes no arguments, got ["extra"]; see afftrack version --help`},
		{[]string{"account", "show", "merchant"}, "want account show merchant|affiliate ID; see afftrack account show --help"},
		{[]string{"account", "show", "shop", "1"}, `"shop" is not merchant or affiliate; see afftrack account show --help`},
		{[]string{"account", "create"}, "want account create merchant|affiliate [flags]; see afftrack account create --help"},
		{[]string{"account", "create", "merchant"}, "--name is required"},
		{[]string{"account", "create", "merchant", "--name", "x", "--id", "99999999999999999999"},
			`invalid value "99999999999999999999" for flag -id: value out of range; see afftrack account create --help`},
		{[]string{"account", "create", "merchant", "--name", "x", "--id", "-3"}, "--id -3 is not an account id"},
		{[]string{"account", "create", "merchant", "--name", "x", "--gst"}, "--gst is not a flag of a new merchant"},
		{[]string{"account", "create", "affiliate", "--contact-name", "x", "--avatar-url", "javascript:x"},
			"--avatar-url is not a flag of a new affiliate"},
		{[]string{"account", "create", "merchant", "--name", "x", "--id", "0"}, "--id 0 is not an account id"},
		{[]string{"account", "create", "merchant", "--name", "   "}, "--name is required and must not be only spaces"},
		{[]string{"account", "create", "merchant", "--name", "a\x01b"}, "--name has a character text cannot hold at byte 1"},
		{[]string{"account", "create", "merchant", "--name", long}, "--name is 5000 bytes long; text is at most 4096 bytes"},
		{[]string{"account", "create", "merchant", "--name", "x", "--avatar-url", "javascript:alert(1)"},
			`--avatar-url "javascript:alert(1)" is not an absolute http or https URL without user information`},
		{[]string{"account", "create", "merchant", "--name", "x", "--avatar-url", "http://u:p@h/"},
			"is not an absolute http or https URL without user information"},
		{[]string{"account", "create", "merchant", "--name", "x", "--avatar-url", "https://h/" + strings.Repeat("a", 2048)},
			"--avatar-url is 2058 bytes long; a URL is at most 2048 bytes"},
		{[]string{"account", "create", "affiliate"}, "--contact-name is required"},
		{[]string{"account", "create", "affiliate", "--contact-name", "x", "--business-name", "a\x07"},
			"--business-name has a character text cannot hold at byte 1"},
		{[]string{"key", "create", "merchant", "abc"}, `"abc" is not an account id; see afftrack key create --help`},
		{[]string{"serve", "--addr", "127.0.0.1:99999"}, `--addr "127.0.0.1:99999"`},
		{[]string{"serve", "--metrics-addr", "nowhere"}, `--metrics-addr "nowhere"`},
		{[]string{"serve", "--db-max-conns", "1"}, "--db-max-conns must be 0 (the default) or at least 2"},
		{[]string{"serve", "--public-url", "http://x//"}, `--public-url's path "//" must be segments of letters, digits`},
		{[]string{"serve", "--public-url", "http://x/api/./v"}, `--public-url's path "/api/./v" must be segments`},
		{[]string{"serve", "--tracking-url", "http://x/a/../t"}, `--tracking-url's path "/a/../t" must be segments`},
		{[]string{"serve", "--tracking-url", "http://x/{id}"}, `--tracking-url's path "/%7Bid%7D" must be segments`},
		{[]string{"key", "create", "merchant", "1", "--label", "x\x01y"}, `--label has a character text cannot hold at byte 1`},
		{[]string{"key", "list"}, "want key list merchant|affiliate ID; see afftrack key list --help"},
		{[]string{"key", "revoke"}, "want key revoke KEY_ID; see afftrack key revoke --help"},
		{[]string{"program", "show", "x"}, `"x" is not a merchant id; see afftrack program show --help`},
		{[]string{"transactions", "frob", "--bogus"}, `unknown transactions command "frob"; see afftrack transactions --help`},
		{[]string{"key", "list", "merchant", "1", "--label", "x"}, "flag provided but not defined: -label; see afftrack key list --help"},
		{[]string{"transactions", "history", "1", "--merchant", "5"},
			"flag provided but not defined: -merchant; see afftrack transactions history --help"},
		{[]string{"transactions", "void", "1", "--reason", "Cancelled Order", "--up-to", "2024-01-01"},
			"flag provided but not defined: -up-to; see afftrack transactions void --help"},
		{[]string{"transactions", "release", "--merchant", "1", "--reason", "Cancelled Order"},
			"flag provided but not defined: -reason; see afftrack transactions release --help"},
		{[]string{"transactions", "release", "--merchant", "1", "--up-to", "xx"}, `--up-to "xx" is not a date`},
		{[]string{"lifecycle", "run", "--currency", "XYZ"}, `--currency "XYZ" is not an ISO 4217 currency code; see afftrack lifecycle run --help`},
		{[]string{"payouts", "run", "--up-to", "xx"}, `--up-to "xx" is not a date (YYYY-MM-DD); see afftrack payouts run --help`},
	} {
		t.Run(commandLine(tc.args)+" is one line and exit 2, and opens no database", func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(binary, tc.args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "AFFTRACK_DB=")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if code := exitCodeOf(err); code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n"); len(lines) != 1 {
				t.Errorf("%d lines on standard error, want 1:\n%s", len(lines), stderr.String())
			}
			if !strings.HasPrefix(stderr.String(), "afftrack: ") || !strings.Contains(stderr.String(), tc.want) ||
				!strings.Contains(stderr.String(), "--help") {
				t.Errorf("standard error lacks %q or a hint to --help:\n%s", tc.want, stderr.String())
			}
			if stdout.Len() > 0 {
				t.Errorf("standard output is not empty:\n%s", stdout.String())
			}
			if strings.Contains(stderr.String(), "secret") {
				t.Errorf("standard error shows a password:\n%s", stderr.String())
			}
			if files, _ := os.ReadDir(dir); len(files) > 0 {
				t.Errorf("created %v", files)
			}
		})
	}
}

// commandLine is args as a subtest's name: afftrack and the arguments,
// each cut to 40 bytes.
func commandLine(args []string) string {
	words := []string{"afftrack"}
	for _, a := range args {
		if len(a) > 40 {
			a = a[:40] + "..."
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

func TestVersionTakesNothing(t *testing.T) {
	for _, args := range [][]string{{"version", "extra"}, {"version", "--bogus"}, {"--version", "extra"}} {
		t.Run(strings.Join(args, " ")+" exits 2", func(t *testing.T) {
			out, err := afftrack(t, nil, args...)
			if code := exitCodeOf(err); code != 2 || strings.Contains(out, "go1.") {
				t.Errorf("exit %d, want 2, and no version:\n%s", code, out)
			}
		})
	}
}

func TestAdministrationNamesTheMissingRecord(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "a.db")
	if out, err := afftrack(t, nil, "migrate", "--db", dsn); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"account", "show", "merchant", "999"}, "afftrack: merchant 999 not found"},
		{[]string{"account", "suspend", "affiliate", "998"}, "afftrack: affiliate 998 not found"},
		{[]string{"key", "create", "merchant", "999"}, "afftrack: merchant 999 not found"},
		{[]string{"key", "list", "affiliate", "7"}, "afftrack: affiliate 7 not found"},
		{[]string{"key", "revoke", "nokey"}, "afftrack: key nokey not found"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, err := afftrack(t, nil, append(tc.args, "--db", dsn)...)
			if err == nil || strings.TrimSpace(out) != tc.want {
				t.Errorf("got %v:\n%s\nwant %q", err, out, tc.want)
			}
		})
	}
}

// TestAMistypedDatabaseIsNotMade gives the commands that read or change
// a network a SQLite path where there is no database: each says so, and
// none makes one there.
func TestAMistypedDatabaseIsNotMade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typo.db")
	for _, args := range [][]string{
		{"account", "show", "merchant", "1"}, {"key", "list", "merchant", "1"}, {"key", "revoke", "k_1"},
		{"program", "show", "1"}, {"transactions", "history", "1"}, {"lifecycle", "run"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, err := afftrack(t, nil, append(args, "--db", "sqlite:"+path)...)
			if err == nil || !strings.Contains(out, "no database at "+path) {
				t.Errorf("got %v:\n%s\nwant an error saying there is no database", err, out)
			}
			if _, err := os.Stat(path); err == nil {
				t.Fatalf("%s was made", path)
			}
		})
	}
}

func TestServeDerivesThePublicURLFromTheAddress(t *testing.T) {
	s := serve(t, "--demo")
	port := s.base[strings.LastIndexByte(s.base, ':')+1:]
	_, _, body := s.get(t, "/V1/Merchant/Transactions/1?apiKey=demo-merchant-1-key", "Accept", "application/xml")
	if want := `xmlns="http://localhost:` + port + `/V1/Merchant"`; !strings.Contains(body, want) {
		t.Errorf("body lacks %s:\n%s", want, body)
	}
}

// TestProgramSetTakesOneObject gives program set a file with more after
// its object, or an object never closed: each is refused, as the import
// refuses such a file, and the program stays as it was.
func TestProgramSetTakesOneObject(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "program.db")
	if out, err := afftrack(t, nil, "account", "create", "merchant", "--name", "Shop", "--id", "2", "--db", dsn); err != nil {
		t.Fatalf("account create: %v\n%s", err, out)
	}
	const first = `{"TargetUrl":"https://first.example/","Commission":{"Percent":5}}`
	if out, err := afftrack(t, strings.NewReader(first+"\n"), "program", "set", "2", "-", "--db", dsn); err != nil {
		t.Fatalf("program set: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		name, file, want string
	}{
		{"a second object", `{"TargetUrl":"https://second.example/"}{"Bogus":1}`, "there is more after the object's end"},
		{"text after the object", `{"TargetUrl":"https://second.example/"} garbage`, "there is more after the object's end"},
		{"an object never closed", `{"TargetUrl":"https://second.example/"`, "the file ends too early"},
		{"a value nested 100,000 deep", strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000), "a value is nested too deeply"},
	} {
		t.Run("program set refuses "+tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.json")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := afftrack(t, nil, "program", "set", "2", path, "--db", dsn)
			if code := exitCodeOf(err); code != 1 || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d:\n%s\nwant exit 1 and %q", code, out, tc.want)
			}
			if out, err := afftrack(t, nil, "program", "show", "2", "--db", dsn); err != nil ||
				!strings.Contains(out, "https://first.example/") {
				t.Errorf("the program changed: %v\n%s", err, out)
			}
		})
	}
}

// TestProgramSetSkipsAByteOrderMark: a program file saved with a byte
// order mark, as some editors on Windows write UTF-8, is set, as the
// import takes such a file.
func TestProgramSetSkipsAByteOrderMark(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "bom.db")
	if out, err := afftrack(t, nil, "account", "create", "merchant", "--name", "Shop", "--id", "2", "--db", dsn); err != nil {
		t.Fatalf("account create: %v\n%s", err, out)
	}
	file := "\uFEFF" + `{"TargetUrl":"https://bom.example/","Commission":{"Percent":5}}`
	if out, err := afftrack(t, strings.NewReader(file), "program", "set", "2", "-", "--db", dsn); err != nil {
		t.Fatalf("program set: %v\n%s", err, out)
	}
	if out, err := afftrack(t, nil, "program", "show", "2", "--db", dsn); err != nil || !strings.Contains(out, "https://bom.example/") {
		t.Errorf("program show: %v\n%s", err, out)
	}
}

// TestADirectoryIsNoInputFile gives each command that reads a file a
// directory: each says so, rather than what the file's content lacks (a
// rates file's header), and makes no database.
func TestADirectoryIsNoInputFile(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"rates", "import", "."}, ". is a directory, not a CSV file"},
		{[]string{"validate", "--merchant", "1", "."}, ". is a directory, not a CSV file"},
		{[]string{"program", "set", "1", "."}, ". is a directory, not a program file"},
		{[]string{"import", "."}, ". is a directory, not an import file"},
	} {
		t.Run(commandLine(tc.args)+" says the path is a directory", func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(binary, append(tc.args, "--db", "sqlite:"+filepath.Join(dir, "a.db"))...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			if code := exitCodeOf(err); code != 1 || strings.TrimSpace(string(out)) != "afftrack: "+tc.want {
				t.Errorf("exit %d:\n%s\nwant exit 1 and %q", code, out, tc.want)
			}
			if files, _ := os.ReadDir(dir); len(files) > 0 {
				t.Errorf("created %v", files)
			}
		})
	}
}

// TestAccountCreateTakesWhatTheImportTakes creates accounts at the edges
// of the import's rules that account create now applies: they are
// accepted, and shown back as given.
func TestAccountCreateTakesWhatTheImportTakes(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "accounts.db")
	name := strings.Repeat("n", 4096)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"a name of 4,096 bytes with an avatar URL", []string{"merchant", "--id", "1", "--name", name, "--avatar-url", "https://shop.example/logo.png"},
			`avatar="https://shop.example/logo.png"`},
		{"a name with a tab", []string{"merchant", "--id", "2", "--name", "Tab\tShop"}, `"Tab\tShop"`},
		{"a contact and a business name", []string{"affiliate", "--id", "1", "--contact-name", "Zoë Park", "--business-name", "Park Media"},
			`"Zoë Park" business="Park Media"`},
		{"an id with a leading zero, in decimal, as a positional id is", []string{"affiliate", "--id", "010", "--contact-name", "Ten"},
			`affiliate 10 "Ten"`},
	} {
		t.Run("account create takes "+tc.name, func(t *testing.T) {
			if out, err := afftrack(t, nil, append([]string{"account", "create", "--db", dsn}, tc.args...)...); err != nil {
				t.Fatalf("account create: %v\n%s", err, out)
			}
			out, err := afftrack(t, nil, "account", "show", tc.args[0], tc.args[2], "--db", dsn)
			if err != nil || !strings.Contains(out, tc.want) {
				t.Errorf("account show: %v\n%s\nwant %s", err, out, tc.want)
			}
		})
	}
}

// TestAMissingGeoIPFileOpensNoDatabase: the country database is opened
// before the store, so a wrong --geoip path creates and migrates nothing,
// with --demo or without.
func TestAMissingGeoIPFileOpensNoDatabase(t *testing.T) {
	for _, args := range [][]string{
		{"serve", "--addr", "127.0.0.1:0", "--geoip", "missing.mmdb"},
		{"serve", "--demo", "--db", "sqlite:demo.db", "--addr", "127.0.0.1:0", "--geoip", "missing.mmdb"},
	} {
		t.Run(commandLine(args)+" fails and creates no file", func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(binary, args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "AFFTRACK_DB=")
			out, err := cmd.CombinedOutput()
			if code := exitCodeOf(err); code != 1 || !strings.Contains(string(out), "--geoip") {
				t.Errorf("exit %d, want 1 and an error naming --geoip:\n%s", code, out)
			}
			if files, _ := os.ReadDir(dir); len(files) > 0 {
				t.Errorf("created %v", files)
			}
		})
	}
}

// TestAClosedPipeIsAnErrorNotASilentDeath: a command whose standard output
// is a pipe nobody reads (afftrack key create ... | true) is not killed by
// SIGPIPE without a word: it exits 1 and names the key it made, whose
// secret nobody saw, for revoking.
func TestAClosedPipeIsAnErrorNotASilentDeath(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "pipe.db")
	if out, err := afftrack(t, nil, "account", "create", "merchant", "--name", "Pipe", "--db", dsn); err != nil {
		t.Fatalf("account create: %v\n%s", err, out)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	defer w.Close()
	var stderr strings.Builder
	cmd := exec.Command(binary, "key", "create", "merchant", "1", "--db", dsn)
	cmd.Env = append(os.Environ(), "AFFTRACK_DB=")
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	if code := exitCodeOf(err); code != 1 || !strings.Contains(stderr.String(), "revoke it: afftrack key revoke k_") {
		t.Errorf("exit %d (%v), stderr %q; want exit 1 naming the key to revoke", code, err, stderr.String())
	}
}

// TestMigrateSaysWhatItApplied: migrate on a new database says how many
// migrations it applied, and on one up to date only that it is.
func TestMigrateSaysWhatItApplied(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "m.db")
	out, err := afftrack(t, nil, "migrate", "--db", dsn)
	if err != nil || !strings.HasPrefix(out, "applied ") || !strings.Contains(out, " migrations (1 to ") ||
		!strings.HasSuffix(out, "schema is up to date\n") {
		t.Errorf("first migrate: %v\n%s\nwant the migrations applied, then up to date", err, out)
	}
	out, err = afftrack(t, nil, "migrate", "--db", dsn)
	if err != nil || out != "schema is up to date\n" {
		t.Errorf("second migrate: %v\n%q\nwant only that the schema is up to date", err, out)
	}
}

// TestASignalStopsACommandWaitingOnStandardInput: a command reading
// standard input that sends nothing (a stalled pipe, a terminal) stops at
// SIGINT, saying it was interrupted, not blaming the file it never got.
func TestASignalStopsACommandWaitingOnStandardInput(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "stdin.db")
	if out, err := afftrack(t, nil, "migrate", "--db", dsn); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"rates", "import", "-"}, {"program", "set", "1", "-"}, {"validate", "--merchant", "1", "-"}, {"import", "-"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close() // never written: the command waits
			var out strings.Builder
			cmd := exec.Command(binary, append(args, "--db", dsn)...)
			cmd.Env = append(os.Environ(), "AFFTRACK_DB=")
			cmd.Stdin, cmd.Stdout, cmd.Stderr = r, &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(300 * time.Millisecond)
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if code := exitCodeOf(err); code != 1 || !strings.Contains(out.String(), "interrupted") {
					t.Errorf("exit %d, output %q; want 1 saying it was interrupted", code, out.String())
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				t.Fatal("the command did not stop at SIGINT while waiting on standard input")
			}
		})
	}
}
