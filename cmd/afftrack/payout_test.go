package main_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afftrack/afftrack/internal/sqlstore/storetest"
)

// TestASaleIsPaidOnce takes conversions through validation, release and a
// payout, then pays again, on each database: one invoice, whose subtotal
// is the sum of its transactions' commissions, listed for the affiliate.
func TestASaleIsPaidOnce(t *testing.T) {
	for name, dsn := range trackingDBs(t) {
		t.Run(name, func(t *testing.T) {
			importTracking(t, dsn)
			s := serve(t, "--db", dsn)
			var orders []string
			for i, sale := range []string{"80", "19.99", "250.5"} {
				order := fmt.Sprintf("P-%d", i)
				orders = append(orders, order)
				body := `{"OrderId": "` + order + `", "SaleValue": ` + sale + `, "CouponCode": "ADA15"}`
				if status, _, got := s.post(t, "/V1/Merchant/Conversions", body, "X-Api-Key", merchantKey); status != 201 {
					t.Fatalf("conversion %s: %d %s", order, status, got)
				}
			}
			rows := `[{"OrderId": "P-0", "Action": "Approve"}, {"OrderId": "P-1", "Action": "Approve"},
				{"OrderId": "P-2", "Action": "Void", "VoidReason": "Cancelled Order"}]`
			if status, _, got := s.post(t, "/V1/Merchant/Validations", rows, "X-Api-Key", merchantKey); status != 200 ||
				strings.Count(got, `"Error":null`) != 3 {
				t.Fatalf("validations: %d %s", status, got)
			}
			if out, err := afftrack(t, nil, "transactions", "release", "--merchant", "30", "--db", dsn); err != nil ||
				!strings.Contains(out, "approved 2 transactions") {
				t.Fatalf("release: %v\n%s", err, out)
			}
			// A CSV that cannot be written stops the run before it pays.
			missing := filepath.Join(t.TempDir(), "no-such-dir", "payouts.csv")
			if out, err := afftrack(t, nil, "payouts", "run", "--db", dsn, "--csv", missing); err == nil ||
				!strings.Contains(out, "afftrack: --csv: ") || strings.Contains(out, "AT-40") {
				t.Fatalf("payouts run with an unwritable --csv: %v\n%s", err, out)
			}
			if out, err := afftrack(t, nil, "payouts", "run", "--db", dsn, "--csv", t.TempDir()); err == nil ||
				!strings.Contains(out, "is a directory") || strings.Contains(out, "AT-40") {
				t.Fatalf("payouts run with a directory for --csv: %v\n%s", err, out)
			}
			// Through a symbolic link, the file it names is written.
			dir := t.TempDir()
			csvPath := filepath.Join(dir, "payouts.csv")
			link := filepath.Join(dir, "latest.csv")
			if err := os.Symlink(csvPath, link); err != nil {
				t.Fatal(err)
			}
			out, err := afftrack(t, nil, "payouts", "run", "--db", dsn, "--csv", link)
			// 10% of 80 and of 19.99: 8.0000 + 1.9990.
			if err != nil || !strings.Contains(out, "AT-40-0001") || !strings.Contains(out, "paid 1 affiliates 9.9990 in all") {
				t.Fatalf("payouts run: %v\n%s", err, out)
			}
			csv, err := os.ReadFile(csvPath)
			if err != nil || !strings.Contains(string(csv), "AT-40-0001,40,Walks Blog,Ada Walker,9.9990,,9.9990") {
				t.Errorf("payouts CSV: %v\n%s", err, csv)
			}
			if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
				t.Errorf("the link to the CSV: %v, %v; want it still a link", fi, err)
			}
			if fi, err := os.Stat(csvPath); err != nil || fi.Mode().Perm() != 0o644 {
				t.Errorf("the CSV's mode: %v, %v; want 0644", fi, err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".payouts-*")); len(left) > 0 {
				t.Errorf("temporary files left: %v", left)
			}
			if out, err := afftrack(t, nil, "payouts", "run", "--db", dsn); err != nil || !strings.Contains(out, "paid 0 affiliates") {
				t.Errorf("a second run: %v\n%s", err, out)
			}
			today := time.Now().UTC().Format(time.DateOnly)
			status, _, list := s.get(t, "/V1/Affiliate/Invoices?apiKey=e2e-affiliate-40-secret-k&fromDate="+today+"&toDate="+today)
			if status != 200 || strings.Count(list, `"Number":"AT-40-0001"`) != 1 || !strings.Contains(list, `"SubTotal":9.9990,"GST":null,"Total":9.9990`) {
				t.Errorf("invoices: %d %s", status, list)
			}
			for _, order := range orders[:2] {
				if status, _, got := s.get(t, "/V1/Merchant/Transactions?apiKey="+merchantKey+"&fromDate="+today+"&toDate="+today+
					"&status2=Paid&orderId="+order); status != 200 || !strings.Contains(got, `"InvoiceId":1`) {
					t.Errorf("%s after the payout: %d %s", order, status, got)
				}
			}
		})
	}
}

// TestPayoutRunsAtOnceOnPostgres starts two payout runs at the same moment
// on one PostgreSQL database: one pays, the other finds nothing left.
func TestPayoutRunsAtOnceOnPostgres(t *testing.T) {
	if os.Getenv("AFFTRACK_TEST_POSTGRES_URL") == "" {
		t.Skip("set AFFTRACK_TEST_POSTGRES_URL to run it")
	}
	dsn := storetest.URL(t, "postgres")
	importTracking(t, dsn)
	var b strings.Builder
	b.WriteString(`{"Transactions": [`)
	for i := range 300 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"Id": %d, "MerchantId": 30, "AffiliateId": 40, "DateCreated": "2024-03-05", "TrafficType": "Search",
			"CreativeType": "Text Link", "CustomerType": "New", "TrackingMethod": "Server", "Status2": "Approved",
			"SaleValue": 10, "Commission": 1.25}`, 1000+i)
	}
	b.WriteString(`]}`)
	if out, err := afftrack(t, strings.NewReader(b.String()), "import", "--db", dsn, "-"); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	outs := make([]string, 2)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := afftrack(t, nil, "payouts", "run", "--db", dsn, "--up-to", "2024-12-31")
			if err != nil {
				t.Errorf("run %d: %v\n%s", i, err, out)
			}
			outs[i] = out
		}()
	}
	wg.Wait()
	all := outs[0] + outs[1]
	if strings.Count(all, "paid 1 affiliates 375.0000 in all") != 1 || strings.Count(all, "paid 0 affiliates") != 1 {
		t.Errorf("two runs at once:\n%s\n%s", outs[0], outs[1])
	}
}

// TestPayoutsCSVToTheCommandsOwnDescriptors runs payouts with --csv
// naming the command's own output, as a cron line appending to a log
// does: the CSV goes where the descriptor writes, after what was there,
// and the log file is neither replaced nor cut.
func TestPayoutsCSVToTheCommandsOwnDescriptors(t *testing.T) {
	for _, tc := range []struct{ name, csv string }{
		{"standard output", "/dev/stdout"},
		{"standard output by number", "/dev/fd/1"},
	} {
		t.Run("--csv "+tc.name+" appends to the log it is redirected to", func(t *testing.T) {
			dsn := oneCommissionDue(t)
			logPath := filepath.Join(t.TempDir(), "cron.log")
			if err := os.WriteFile(logPath, []byte("an earlier run\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			before, _ := os.Stat(logPath)
			log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(binary, "payouts", "run", "--db", dsn, "--up-to", "2024-12-31", "--csv", tc.csv)
			cmd.Env = append(os.Environ(), "AFFTRACK_DB=")
			cmd.Stdout, cmd.Stderr = log, log
			err = cmd.Run()
			log.Close()
			got, _ := os.ReadFile(logPath)
			if err != nil {
				t.Fatalf("payouts run: %v\n%s", err, got)
			}
			if after, _ := os.Stat(logPath); !os.SameFile(before, after) {
				t.Errorf("the log was replaced by another file")
			}
			text := string(got)
			if !strings.HasPrefix(text, "an earlier run\n") || !strings.Contains(text, "paid 1 affiliates 1.2500 in all") ||
				!strings.Contains(text, "AT-40-0001,40,Walks Blog,Ada Walker,1.2500,,1.2500") {
				t.Errorf("the log after the run:\n%s", text)
			}
		})
	}
}

// TestPayoutsRefuseAnInvoicePrefixNoClientCanShow: the prefix begins every
// Number, shown by every client and carried by the CSV, so control
// characters and bytes that are not UTF-8 are a usage error before the
// database is opened.
func TestPayoutsRefuseAnInvoicePrefixNoClientCanShow(t *testing.T) {
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "never-made.db")
	for _, tt := range []struct{ name, prefix string }{
		{"an empty prefix", ""},
		{"a control character", "X\x01"},
		{"DEL", "X\x7f"},
		{"a byte that is not UTF-8", "X\xff"},
		{"a line break", "A\nB"},
		{"33 characters", strings.Repeat("é", 33)},
	} {
		out, err := afftrack(t, nil, "payouts", "run", "--db", dsn, "--invoice-prefix", tt.prefix)
		if code := exitCodeOf(err); code != 2 || !strings.Contains(out, "--invoice-prefix must be") {
			t.Errorf("%s: exit %d, want 2\n%s", tt.name, code, out)
		}
	}
	// 32 characters pass the flags and meet the missing database.
	if out, err := afftrack(t, nil, "payouts", "run", "--db", dsn, "--invoice-prefix", strings.Repeat("é", 32)); exitCodeOf(err) != 1 ||
		!strings.Contains(out, "no database at") {
		t.Errorf("32 characters: %v\n%s", err, out)
	}
}

// TestPayoutsRefuseAnotherDescriptor: a descriptor other than standard
// output or error may be one the process opened itself (the database), so
// naming one stops the run before anything is paid.
func TestPayoutsRefuseAnotherDescriptor(t *testing.T) {
	dsn := oneCommissionDue(t)
	for _, name := range []string{"/dev/fd/3", "/dev/fd/5", "/proc/self/fd/7", "/dev/stdin"} {
		out, err := afftrack(t, nil, "payouts", "run", "--db", dsn, "--up-to", "2024-12-31", "--csv", name)
		if err == nil || !strings.Contains(out, "names descriptor") || strings.Contains(out, "AT-40") {
			t.Errorf("--csv %s: %v\n%s", name, err, out)
		}
	}
	if out, err := afftrack(t, nil, "payouts", "run", "--db", dsn, "--up-to", "2024-12-31"); err != nil ||
		!strings.Contains(out, "paid 1 affiliates 1.2500 in all") {
		t.Errorf("the run after the refusals: %v\n%s", err, out)
	}
}

// oneCommissionDue returns the URL of a new SQLite database holding the
// tracking network and one Approved commission of affiliate 40, 1.25,
// due to any run up to 2024-12-31.
func oneCommissionDue(t *testing.T) string {
	t.Helper()
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "payouts.db")
	importTracking(t, dsn)
	approved := `{"Transactions": [{"Id": 900, "MerchantId": 30, "AffiliateId": 40, "DateCreated": "2024-03-05",
		"TrafficType": "Search", "CreativeType": "Text Link", "CustomerType": "New", "TrackingMethod": "Server",
		"Status2": "Approved", "SaleValue": 10, "Commission": 1.25}]}`
	if out, err := afftrack(t, strings.NewReader(approved), "import", "--db", dsn, "-"); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	return dsn
}
