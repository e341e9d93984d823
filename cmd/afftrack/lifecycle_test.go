package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/afftrack/afftrack/internal/sqlstore"
)

// table returns the lines of a printed table with each run of spaces
// made one, so columns compare without their padding.
func table(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	return lines
}

// exitCodeOf returns the exit code of a finished command's error.
func exitCodeOf(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// writeImport writes an import file of merchant 30's Pending transactions
// by affiliate 40 with the given ids, whose validation date has passed.
func writeImport(t *testing.T, first, n int) string {
	t.Helper()
	orders := make([]string, n)
	for i := range orders {
		orders[i] = fmt.Sprintf("IMP-%d", first+i)
	}
	return writeImportOrders(t, first, "2024-03-11T09:00:00", orders...)
}

// writeImportOrders is writeImport with the transactions' validation
// date and OrderIds, one transaction each, their ids counting from first.
func writeImportOrders(t *testing.T, first int, validation string, orders ...string) string {
	t.Helper()
	type tx struct {
		Id, MerchantId, AffiliateId                      int
		DateCreated, ValidationDate                      string
		TrafficType, CreativeType, CustomerType, OrderId string
		TrackingMethod, ReportedCurrencyCode, Status2    string
		SaleValue, Commission, ReportedSaleValue         float64
		TrafficSourceApproved                            bool
	}
	var file struct{ Transactions []tx }
	for i, order := range orders {
		file.Transactions = append(file.Transactions, tx{Id: first + i, MerchantId: 30, AffiliateId: 40,
			DateCreated: "2024-03-01T09:00:00", ValidationDate: validation, TrafficType: "Website",
			CreativeType: "Text Link", CustomerType: "New", OrderId: order,
			TrackingMethod: "Cookie", ReportedCurrencyCode: "AUD", Status2: "Pending",
			SaleValue: 40, Commission: 4, ReportedSaleValue: 40, TrafficSourceApproved: true})
	}
	b, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), fmt.Sprintf("due-%d.json", first))
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// historyLine matches a line of `transactions history` (spaces made one):
// when, who, from, to, sale value, commission, why.
func historyLine(who, from, to, sale, commission, why string) *regexp.Regexp {
	return regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} ` + who + ` ` + regexp.QuoteMeta(from+" "+to+" "+
		sale+" "+commission+" "+why) + `$`)
}

func TestValidationAndLifecycleFromTheCommandLine(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "lifecycle.db")
	importTracking(t, dsn)
	s := serve(t, "--db", dsn, "--lifecycle-interval", "0")
	ids := map[string]int64{}
	for _, c := range []struct{ order, sale string }{{"CLI-1", "100"}, {"CLI-2", "50"}} {
		// ADA15 is affiliate 40's exclusive coupon: it credits without a click.
		status, _, body := s.post(t, "/V1/Merchant/Conversions",
			fmt.Sprintf(`{"OrderId": %q, "SaleValue": %s, "CouponCode": "ADA15"}`, c.order, c.sale), "X-Api-Key", merchantKey)
		if status != 201 {
			t.Fatalf("conversion %s: %d %s", c.order, status, body)
		}
		var tx struct{ Id int64 }
		if err := json.Unmarshal([]byte(body), &tx); err != nil {
			t.Fatal(err)
		}
		ids[c.order] = tx.Id
	}
	s.stop(t)
	id1, id2 := strconv.FormatInt(ids["CLI-1"], 10), strconv.FormatInt(ids["CLI-2"], 10)
	db := openDB(t, dsn)
	statusOf := func(id string) int {
		return count(t, db, `SELECT status2 FROM transactions WHERE id = `+id)
	}

	t.Run("validate applies a CSV row by row and exits 1 when a row was not applied", func(t *testing.T) {
		csvPath := filepath.Join(t.TempDir(), "validations.csv")
		csv := "OrderId,Action,Reason,SaleValue\nCLI-1,Approve,,\nCLI-2,Void,Cancelled Order,\nNOPE,Approve,,\n"
		if err := os.WriteFile(csvPath, []byte(csv), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := afftrack(t, nil, "validate", "--db", dsn, "--merchant", "30", csvPath)
		if code := exitCodeOf(err); code != 1 {
			t.Errorf("exit code %d (%v), want 1\n%s", code, err, out)
		}
		want := []string{
			"LINE ORDER ID ID STATUS2 ERROR",
			`2 "CLI-1" ` + id1 + " Locked",
			`3 "CLI-2" ` + id2 + " Void",
			`4 "NOPE" No transaction of this merchant has OrderId "NOPE".`,
		}
		lines := table(out)
		if len(lines) < len(want) {
			t.Fatalf("output\n%s\nwant the table and the error", out)
		}
		if diff := cmp.Diff(want, lines[:len(want)]); diff != "" {
			t.Errorf("table (-want +got):\n%s", diff)
		}
		if !strings.Contains(out, "1 of 3 rows were not applied") {
			t.Errorf("output lacks %q:\n%s", "1 of 3 rows were not applied", out)
		}
		if got := []int{statusOf(id1), statusOf(id2)}; !cmp.Equal(got, []int{2, 5}) {
			t.Errorf("statuses %v, want [2 5] (Locked, Void)", got)
		}
	})
	t.Run("validate shows a file's line breaks and escapes escaped, never as lines of its own", func(t *testing.T) {
		csvPath := writeFile(t, "validations.csv", "OrderId,Action,Reason,SaleValue\n\"X\n\nall 1 rows applied\r\x1b[8m\",Approve,,\n")
		out, _ := afftrack(t, nil, "validate", "--db", dsn, "--merchant", "30", csvPath)
		if strings.Contains(out, "\nall 1 rows applied") || strings.ContainsAny(out, "\r\x1b") ||
			!strings.Contains(out, `X\n\nall 1 rows applied\r`) {
			t.Errorf("output:\n%q", out)
		}
	})
	t.Run("validate reports each row at the line it is on, blank lines and quoted breaks counted", func(t *testing.T) {
		csvPath := writeFile(t, "validations.csv",
			"OrderId,Action,Reason,SaleValue\n\n\nNOPE-1,Approve,,\n\"NOPE\n2\",Approve,,\nNOPE-3,Approve,,\n")
		out, _ := afftrack(t, nil, "validate", "--db", dsn, "--merchant", "30", csvPath)
		var got []string
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 1 && strings.HasPrefix(f[1], `"NOPE`) {
				got = append(got, f[0])
			}
		}
		if diff := cmp.Diff([]string{"4", "5", "7"}, got); diff != "" {
			t.Errorf("lines (-want +got):\n%s\n%s", diff, out)
		}
		bad := writeFile(t, "bad.csv", "OrderId,Action\n\nA,Approve\n\"B,Approve\n")
		if out, err := afftrack(t, nil, "validate", "--db", dsn, "--merchant", "30", bad); err == nil || !strings.Contains(out, "line 4:") {
			t.Errorf("a quote left open on line 4: %v\n%s", err, out)
		}
	})
	t.Run("validate refuses a header that names a column twice", func(t *testing.T) {
		twice := writeFile(t, "twice.csv", "OrderId,Action,Reason,reason\nCLI-1,Void,Cancelled Order,Fraud\n")
		if out, err := afftrack(t, nil, "validate", "--db", dsn, "--merchant", "30", twice); err == nil ||
			!strings.Contains(out, "line 1: column Reason is given twice") {
			t.Errorf("a header naming Reason twice: %v\n%s", err, out)
		}
	})
	t.Run("validate for a merchant that does not exist says so and applies nothing", func(t *testing.T) {
		csvPath := writeFile(t, "validations.csv", "OrderId,Action,Reason,SaleValue\nCLI-1,Approve,,\n")
		out, err := afftrack(t, nil, "validate", "--db", dsn, "--merchant", "999", csvPath)
		if code := exitCodeOf(err); code != 1 || !strings.Contains(out, "afftrack: merchant 999 not found") {
			t.Errorf("exit code %d (%v), want 1 naming the merchant\n%s", code, err, out)
		}
	})
	t.Run("transactions history prints the creation and the change by the operator", func(t *testing.T) {
		out, err := afftrack(t, nil, "transactions", "history", id1, "--db", dsn)
		if err != nil {
			t.Fatalf("history: %v\n%s", err, out)
		}
		lines := table(out)
		want := []*regexp.Regexp{
			regexp.MustCompile(`^WHEN WHO FROM TO SALE VALUE COMMISSION WHY$`),
			historyLine(`merchant:30 key \S+`, "(created)", "Pending", "100.0000", "10.0000", "conversion Clickless"),
			historyLine("operator", "Pending", "Locked", "100.0000", "10.0000", "approved by the merchant"),
		}
		if len(lines) != len(want) {
			t.Fatalf("history has %d lines, want %d:\n%s", len(lines), len(want), out)
		}
		for i, re := range want {
			if !re.MatchString(lines[i]) {
				t.Errorf("line %d %q does not match %s", i+1, lines[i], re)
			}
		}
	})
	t.Run("transactions release approves the merchant's Locked transactions", func(t *testing.T) {
		out, err := afftrack(t, nil, "transactions", "release", "--merchant", "30", "--db", dsn)
		if err != nil || out != "approved 1 transactions of merchant 30\n" {
			t.Errorf("release: %v\n%q, want %q", err, out, "approved 1 transactions of merchant 30\n")
		}
		if got := statusOf(id1); got != 3 {
			t.Errorf("CLI-1's status is %d, want 3 (Approved)", got)
		}
		out, err = afftrack(t, nil, "transactions", "release", "--merchant", "30", "--db", dsn)
		if err != nil || out != "approved 0 transactions of merchant 30\n" {
			t.Errorf("release again: %v\n%q", err, out)
		}
		// 030 is decimal, as every integer flag is: 30, not octal 24.
		out, err = afftrack(t, nil, "transactions", "release", "--merchant", "030", "--db", dsn)
		if err != nil || out != "approved 0 transactions of merchant 30\n" {
			t.Errorf("release --merchant 030: %v\n%q", err, out)
		}
		out, err = afftrack(t, nil, "transactions", "release", "--merchant", "31", "--db", dsn)
		if code := exitCodeOf(err); code != 1 {
			t.Errorf("release of an unknown merchant: exit %d, want 1\n%s", code, out)
		}
	})
	t.Run("transactions void voids an Approved transaction with the reason", func(t *testing.T) {
		out, err := afftrack(t, nil, "transactions", "void", id1, "--reason", "Cancelled Order", "--db", dsn)
		if want := "transaction " + id1 + " voided: Cancelled Order\n"; err != nil || out != want {
			t.Errorf("void: %v\n%q, want %q", err, out, want)
		}
		if got := count(t, db, `SELECT COALESCE(void_reason, 0) FROM transactions WHERE id = `+id1); statusOf(id1) != 5 || got != 2 {
			t.Errorf("CLI-1: status %d, void reason %d; want 5 (Void), 2 (Cancelled Order)", statusOf(id1), got)
		}
		out, err = afftrack(t, nil, "transactions", "history", id1, "--db", dsn)
		if err != nil {
			t.Fatal(err)
		}
		lines := table(out)
		tail := []*regexp.Regexp{
			historyLine("operator", "Locked", "Approved", "100.0000", "10.0000", "released: the network has the merchant's money"),
			historyLine("operator", "Approved", "Void", "100.0000", "10.0000", "Cancelled Order"),
		}
		if len(lines) != 5 {
			t.Fatalf("history has %d lines, want 5:\n%s", len(lines), out)
		}
		for i, re := range tail {
			if !re.MatchString(lines[3+i]) {
				t.Errorf("line %d %q does not match %s", 4+i, lines[3+i], re)
			}
		}
	})
	t.Run("transactions void refuses a Void transaction, an unknown one and a bad reason", func(t *testing.T) {
		for _, tt := range []struct {
			name string
			args []string
			code int
		}{
			{"already Void", []string{id2, "--reason", "Cancelled Order"}, 1},
			{"unknown", []string{"987654", "--reason", "Cancelled Order"}, 1},
			{"a reason not of the enum", []string{id1, "--reason", "Bored"}, 2},
			{"no reason", []string{id1}, 2},
		} {
			out, err := afftrack(t, nil, append([]string{"transactions", "void", "--db", dsn}, tt.args...)...)
			if code := exitCodeOf(err); code != tt.code {
				t.Errorf("%s: exit %d, want %d\n%s", tt.name, code, tt.code, out)
			}
		}
	})
	t.Run("lifecycle run locks a transaction whose validation date has passed, once", func(t *testing.T) {
		if out, err := afftrack(t, nil, "import", "--db", dsn, writeImport(t, 9001, 1)); err != nil {
			t.Fatalf("import: %v\n%s", err, out)
		}
		out, err := afftrack(t, nil, "lifecycle", "run", "--db", dsn)
		const approvedNone = "approved 0 more Locked transactions of prepaid programs\n"
		if err != nil || out != "locked 1 transactions (a prepaid program's approved at once)\n"+approvedNone {
			t.Errorf("lifecycle run: %v\n%q, want %q", err, out, "locked 1 transactions (a prepaid program's approved at once)\n"+approvedNone)
		}
		if got := statusOf("9001"); got != 2 {
			t.Errorf("transaction 9001's status is %d, want 2 (Locked)", got)
		}
		out, err = afftrack(t, nil, "lifecycle", "run", "--db", dsn)
		if err != nil || out != "locked 0 transactions (a prepaid program's approved at once)\n"+approvedNone {
			t.Errorf("lifecycle run again: %v\n%q, want %q", err, out, "locked 0 transactions (a prepaid program's approved at once)\n"+approvedNone)
		}
		out, err = afftrack(t, nil, "transactions", "history", "9001", "--db", dsn)
		if err != nil {
			t.Fatal(err)
		}
		lines := table(out)
		want := historyLine("lifecycle", "Pending", "Locked", "40.0000", "4.0000", "validation date reached")
		if len(lines) != 2 || !want.MatchString(lines[1]) {
			t.Errorf("history of 9001:\n%s\nwant one line matching %s", out, want)
		}
	})
}

// TestTheSpreadsheetMatchesOrderIdsExactly validates by OrderIds that
// differ by a space only: each row acts on the transaction whose OrderId
// is the cell as written, as a row of the API does (tracking.md: OrderId
// is matched exactly, case and spaces included).
func TestTheSpreadsheetMatchesOrderIdsExactly(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "orders.db")
	importTracking(t, dsn)
	if out, err := afftrack(t, nil, "import", "--db", dsn, writeImportOrders(t, 101, "2099-01-01T00:00:00", "X-1", "X-1 ", " Y-2", "Y-2")); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	file := writeFile(t, "v.csv", "OrderId,Action,Reason,SaleValue\n\"X-1 \",Void,Cancelled Order,\n Y-2, Void , Cancelled Order ,\n")
	out, err := afftrack(t, nil, "validate", "--db", dsn, "--merchant", "30", file)
	if err != nil {
		t.Fatalf("validate: %v\n%s", err, out)
	}
	db := openDB(t, dsn)
	var got []int
	for _, id := range []string{"101", "102", "103", "104"} {
		got = append(got, count(t, db, `SELECT status2 FROM transactions WHERE id = `+id))
	}
	// 1 is Pending, 5 Void.
	if diff := cmp.Diff([]int{1, 5, 5, 1}, got); diff != "" {
		t.Errorf("statuses of 101 (X-1), 102 (X-1 ), 103 ( Y-2), 104 (Y-2) (-want +got):\n%s\n%s", diff, out)
	}
}

// TestLifecycleRunsAtOnce starts two `afftrack lifecycle run` at the same
// moment on one database over 1,000 due transactions: together they lock
// each exactly once.
func TestLifecycleRunsAtOnce(t *testing.T) {
	const due = 1000
	for name, dsn := range trackingDBs(t) {
		t.Run(name, func(t *testing.T) {
			importTracking(t, dsn)
			if out, err := afftrack(t, nil, "import", "--db", dsn, writeImport(t, 5000, due)); err != nil {
				t.Fatalf("import: %v\n%s", err, out)
			}
			var cmds [2]*exec.Cmd
			var outs [2]bytes.Buffer
			for i := range cmds {
				cmds[i] = exec.Command(binary, "lifecycle", "run", "--db", dsn)
				cmds[i].Env = append(os.Environ(), "AFFTRACK_DB=")
				cmds[i].Stdout, cmds[i].Stderr = &outs[i], &outs[i]
			}
			for _, c := range cmds {
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
			}
			total := 0
			for i, c := range cmds {
				err := c.Wait()
				out := outs[i].String()
				var n int
				if _, scanErr := fmt.Sscanf(out, "locked %d transactions (a prepaid program's approved at once)\n", &n); err != nil || scanErr != nil {
					t.Errorf("run %d: %v\n%s", i, err, out)
				}
				total += n
			}
			t.Logf("the runs printed %q and %q", strings.TrimSpace(outs[0].String()), strings.TrimSpace(outs[1].String()))
			if total != due {
				t.Errorf("the runs locked %d in all, want %d", total, due)
			}
			db := openDB(t, dsn)
			if n := count(t, db, `SELECT COUNT(*) FROM (SELECT transaction_id FROM transaction_events
				WHERE from_status = 1 AND to_status = 2 AND transaction_id >= 5000 AND transaction_id < 6000
				GROUP BY transaction_id HAVING COUNT(*) = 1) once`); n != due {
				t.Errorf("%d transactions have exactly one lock event, want %d", n, due)
			}
			if n := count(t, db, `SELECT COUNT(*) FROM transaction_events WHERE from_status = 1 AND to_status = 2`); n != due {
				t.Errorf("%d lock events, want %d", n, due)
			}
			if n := count(t, db, `SELECT COUNT(*) FROM transactions WHERE status2 = 2`); n != due {
				t.Errorf("%d transactions Locked, want %d", n, due)
			}
		})
	}
}

// writeFile writes text to a new file of that name and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestMaintenanceCommandsTakeTheNetworksZoneAndCurrency: a command run
// from cron without --timezone or --currency works in the zone and the
// currency the database recorded, and records neither itself, so run
// first it cannot fix a network to its defaults; a flag given that
// disagrees with the record is still refused.
func TestMaintenanceCommandsTakeTheNetworksZoneAndCurrency(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "net.db")
	network := writeFile(t, "net.json", `{"Merchants":[{"Id":1,"Name":"Shop"}]}`)
	if out, err := afftrack(t, nil, "import", "--db", dsn, "--timezone", "Australia/Sydney", network); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a read without flags works in the recorded zone", []string{"transactions", "history", "1"}, 1,
			"afftrack: transaction 1 not found"},
		{"the scheduled work without flags runs", []string{"lifecycle", "run"}, 0, "locked 0 transactions"},
		{"a currency not recorded yet is not fixed by the runs before", []string{"lifecycle", "run", "--currency", "USD"}, 0,
			"locked 0 transactions"},
		{"a zone given that is not the recorded one is refused", []string{"lifecycle", "run", "--timezone", "UTC"}, 1,
			"created for time zone Australia/Sydney; --timezone UTC would shift every datetime"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := afftrack(t, nil, append(tt.args, "--db", dsn)...)
			if code := exitCodeOf(err); code != tt.code || !strings.Contains(out, tt.want) {
				t.Errorf("afftrack %s: exit %d\n%s\nwant exit %d and %q", strings.Join(tt.args, " "), code, out, tt.code, tt.want)
			}
		})
	}
	t.Run("no currency is recorded by them, for serve to record its own", func(t *testing.T) {
		db, err := sqlstore.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if cur, err := db.RecordedCurrency(context.Background()); err != nil || cur != "" {
			t.Errorf("recorded currency %q, %v; want none recorded by the maintenance commands", cur, err)
		}
	})
}

// TestAFailedImportLeavesTheZoneOpen: an operator whose first import fails
// (here under the default zone) corrects the file and the zone, and the
// second import is not refused for a zone the first recorded.
func TestAFailedImportLeavesTheZoneOpen(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "net.db")
	broken := writeFile(t, "broken.json", `{"Merchants":[{"Id":1,"Name":"Shop"}],"Memberships":[{"AffiliateId":9,"MerchantId":1}]}`)
	if out, err := afftrack(t, nil, "import", "--db", dsn, broken); exitCodeOf(err) != 1 {
		t.Fatalf("import of a membership of an affiliate that does not exist: %v\n%s", err, out)
	}
	fixed := writeFile(t, "fixed.json", `{"Merchants":[{"Id":1,"Name":"Shop"}]}`)
	if out, err := afftrack(t, nil, "import", "--db", dsn, "--timezone", "Australia/Sydney", fixed); err != nil {
		t.Fatalf("import under the corrected zone: %v\n%s", err, out)
	}
	out, err := afftrack(t, nil, "import", "--db", dsn, fixed)
	if code := exitCodeOf(err); code != 1 || !strings.Contains(out, "created for time zone Australia/Sydney; --timezone UTC") {
		t.Errorf("a third import under UTC: exit %d\n%s\nwant exit 1 naming both zones", code, out)
	}
}

// TestADatabaseOfANewerReleaseIsNotImportedInto: an older binary (say
// after a rollback) does not bulk-write a database a newer release
// migrated, whose checks it lacks; migrate says what it found.
func TestADatabaseOfANewerReleaseIsNotImportedInto(t *testing.T) {
	path := filepath.Join(t.TempDir(), "net.db")
	dsn := "sqlite:" + path
	network := writeFile(t, "net.json", `{"Merchants":[{"Id":1,"Name":"Shop"}]}`)
	if out, err := afftrack(t, nil, "import", "--db", dsn, network); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	db, err := sqlstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.SQL().Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (9999, 0)`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, err := afftrack(t, nil, "import", "--db", dsn, network)
	if code := exitCodeOf(err); code != 1 || !strings.Contains(out, "migrated by a newer afftrack release (migration 9999)") {
		t.Errorf("import: exit %d\n%s\nwant exit 1 naming the newer migration", code, out)
	}
	out, err = afftrack(t, nil, "migrate", "--db", dsn)
	if err != nil || !strings.Contains(out, "the database also has migration 9999, of a newer afftrack release") {
		t.Errorf("migrate: %v\n%s\nwant it to name the newer migration", err, out)
	}
}
