package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack"
)

func TestErrorTextIsOneLineATerminalShowsAsItIs(t *testing.T) {
	for _, tt := range []struct{ name, err, want string }{
		{"plain text is unchanged", "merchant 999 not found", "merchant 999 not found"},
		{"text beyond ASCII is unchanged", "Nom: « é » \uFFFD", "Nom: « é » \uFFFD"},
		{"a line break cannot forge a second line", "Nmae\r\nimported 3 merchants", `Nmae\r\nimported 3 merchants`},
		{"an escape sequence is shown, not run", "x\x1b[8my", `x\x1b[8my`},
		{"a C1 control is shown", "x\u0085y", `x\u0085y`},
		{"a byte that is not UTF-8 is shown", "x\xffy", `x\xffy`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := errorText(errors.New(tt.err)); got != tt.want {
				t.Errorf("errorText(%q) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
	t.Run("a long message is cut, saying how much was left", func(t *testing.T) {
		got := errorText(errors.New("Rate " + strings.Repeat("9", 10_000_000)))
		if len(got) > maxErrorText+40 || !strings.HasSuffix(got, "… (9999005 more bytes)") {
			t.Errorf("errorText of 10 MB = %d bytes ending %q", len(got), got[len(got)-30:])
		}
	})
}

// fullWriter fails every write, as standard output on a full disk does.
type fullWriter struct{}

func (fullWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

func TestACommandWhoseOutputIsLostFails(t *testing.T) {
	db := "sqlite:" + t.TempDir() + "/out.db"
	getenv := func(string) string { return "" }
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"version", []string{"version"}, "writing the output: no space left on device"},
		{"a command's help", []string{"serve", "--help"}, "writing the output: no space left on device"},
		{"a subcommand's help", []string{"key", "create", "--help"}, "writing the output: no space left on device"},
		{"a command group's help", []string{"key", "--help"}, "writing the output: no space left on device"},
		{"a new key, whose secret is shown only once", []string{"key", "create", "merchant", "1", "--db", db},
			"its secret could not be written (no space left on device); revoke it: afftrack key revoke k_"},
	} {
		t.Run(tt.name+" fails when its output cannot be written", func(t *testing.T) {
			if err := run(context.Background(), []string{"account", "create", "merchant", "--name", "Shop", "--id", "1",
				"--db", db}, getenv, io.Discard, io.Discard); err != nil && !strings.Contains(err.Error(), "exists") {
				t.Fatal(err)
			}
			err := run(context.Background(), tt.args, getenv, fullWriter{}, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run(%q) = %v, want an error saying the output was not written", tt.args, err)
			}
		})
	}
}

func TestAValidationsFileWithRowsOfOtherLengths(t *testing.T) {
	file := "OrderId,Action,Reason,SaleValue\nG-5,Approve\nG-6,Void,Cancelled Order,,extra\nG-7,Amend,Cart Items Edited,40.00\n"
	rows, lines, err := readValidationCSV(strings.NewReader(file))
	if err != nil {
		t.Fatalf("readValidationCSV: %v", err)
	}
	got := make([]string, len(rows))
	for i, r := range rows {
		got[i] = fmt.Sprintf("line %d %s %v %q", lines[i], r.OrderID.Value, r.Action, r.Problem)
	}
	want := []string{
		`line 2 G-5 Approve ""`,
		`line 3 G-6 Void "The row has 5 fields; the header names 4 (a comma in an unquoted Reason?)."`,
		`line 4 G-7 Amend ""`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// FuzzReadValidationCSV: any validations file is rows or an error naming
// its line, never a panic; each row read keeps the line it came from.
func FuzzReadValidationCSV(f *testing.F) {
	f.Add("OrderId,Action,Reason,SaleValue\nA-1,Approve,,\nA-2,Void,Cancelled Order,\nA-3,Amend,Cart Items Edited,40.00\n")
	f.Add("\ufefforderid,ACTION\n\"A\n1\",approve\n\n")
	f.Add("OrderId,Action,Reason,Reason\n")
	f.Add("Action,OrderId\n\"unclosed,Approve\n")
	f.Fuzz(func(t *testing.T, file string) {
		rows, lines, err := readValidationCSV(strings.NewReader(file))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line ") {
				t.Fatalf("readValidationCSV(%q): error %q names no line", file, err)
			}
			return
		}
		if len(rows) != len(lines) {
			t.Fatalf("readValidationCSV(%q): %d rows, %d lines", file, len(rows), len(lines))
		}
		for _, l := range lines {
			if l < 2 || l > strings.Count(file, "\n")+1 {
				t.Fatalf("readValidationCSV(%q): a row of line %d, which the file does not have", file, l)
			}
		}
	})
}

func TestThePayoutsFileKeepsNamesFromRunningAsFormulas(t *testing.T) {
	payouts := []afftrack.Payout{
		{Invoice: afftrack.Invoice{ID: 1, Number: "AT-2-0001", AffiliateID: 2, SubTotal: 10000, Total: 10000},
			BusinessName: `=cmd|' /C calc'!A0`, ContactName: "@SUM(A1)"},
		{Invoice: afftrack.Invoice{ID: 2, Number: "AT-3-0001", AffiliateID: 3, SubTotal: 10000, Total: 10000},
			BusinessName: "Shop-Co", ContactName: "-1+1"},
	}
	var b strings.Builder
	if err := writePayoutsCSV(&b, payouts); err != nil {
		t.Fatal(err)
	}
	want := "InvoiceId,Number,AffiliateId,BusinessName,ContactName,SubTotal,GST,Total\n" +
		"1,AT-2-0001,2,'=cmd|' /C calc'!A0,'@SUM(A1),1.0000,,1.0000\n" +
		"2,AT-3-0001,3,Shop-Co,'-1+1,1.0000,,1.0000\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("payouts file (-want +got):\n%s", diff)
	}
}

func TestLocalTimeIsRecordedByItsIANAName(t *testing.T) {
	dir := t.TempDir()
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	paris := link("paris", "/usr/share/zoneinfo/Europe/Paris")
	for _, tt := range []struct {
		name, tz string
		set      bool
		link     string
		want     string // "" for an error
	}{
		{"TZ unset takes the zone localtime links to", "", false, paris, "Europe/Paris"},
		{"TZ unset with a link elsewhere is refused", "", false, link("elsewhere", "/tmp/somewhere"), ""},
		{"TZ unset with a link to no zone is refused", "", false, link("nozone", "/usr/share/zoneinfo/Nowhere/Atlantis"), ""},
		{"TZ unset with no link at all is refused", "", false, filepath.Join(dir, "missing"), ""},
		{"TZ a name is that zone", "Asia/Tokyo", true, paris, "Asia/Tokyo"},
		{"TZ a name after a colon is that zone", ":Asia/Tokyo", true, paris, "Asia/Tokyo"},
		{"TZ a path into zoneinfo is the zone it names", "/usr/share/zoneinfo/Asia/Tokyo", true, paris, "Asia/Tokyo"},
		{"TZ the localtime link is the zone it links to", paris, true, paris, "Europe/Paris"},
		{"TZ a posix/ copy is recorded by the zone's own name", "posix/Asia/Tokyo", true, paris, "Asia/Tokyo"},
		{"TZ empty is UTC", "", true, paris, "UTC"},
		{"TZ a POSIX rule is refused, not taken as UTC", "CET-1CEST,M3.5.0,M10.5.0/3", true, paris, ""},
		{"TZ a misspelt name is refused, not taken as UTC", "Europe/Pariss", true, paris, ""},
		{"TZ localtime is refused", "/usr/share/zoneinfo/localtime", true, paris, ""},
		{"TZ a right/ zone is refused", "right/Europe/Paris", true, paris, ""},
		{"TZ a file outside zoneinfo is refused", "/etc/my-zone", true, paris, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			loc, err := machineZone(tt.tz, tt.set, tt.link)
			switch {
			case tt.want == "" && err == nil:
				t.Errorf("machineZone = %v, want an error", loc)
			case tt.want != "" && (err != nil || loc.String() != tt.want):
				t.Errorf("machineZone = %v, %v; want %s", loc, err, tt.want)
			}
		})
	}
	t.Run("--timezone Local is never recorded as Local", func(t *testing.T) {
		loc, err := networkZone("import", "Local")
		if err == nil && loc.String() == "Local" {
			t.Error(`networkZone("Local") = Local, want the machine's zone by name or an error`)
		}
	})
}
