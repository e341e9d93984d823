package main_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestBigImportStaysInBoundedMemory imports a generated file of about
// AFFTRACK_TEST_BIG_IMPORT megabytes (1000 for the documented 1 GB run)
// into SQLite and checks the process's peak RSS stays under 200 MiB. It is
// skipped unless the variable is set: the file and the load take minutes.
func TestBigImportStaysInBoundedMemory(t *testing.T) {
	mb, _ := strconv.Atoi(os.Getenv("AFFTRACK_TEST_BIG_IMPORT"))
	if mb <= 0 {
		t.Skip("set AFFTRACK_TEST_BIG_IMPORT to a size in MB (1000 for 1 GB) to run it")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "big.json")
	size := writeBigImport(t, file, int64(mb)<<20)

	start := time.Now()
	cmd := exec.Command(binary, "import", "--db", "sqlite:"+filepath.Join(dir, "big.db"), file)
	cmd.Env = append(os.Environ(), "AFFTRACK_DB=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KiB on Linux
	t.Logf("imported %d MB in %v, peak RSS %d MiB: %s", size>>20, time.Since(start).Round(time.Second), peak>>20, out)
	if peak > 200<<20 {
		t.Errorf("peak RSS %d MiB, want under 200 MiB", peak>>20)
	}
}

// writeBigImport writes an import file of at least size bytes: a merchant,
// an affiliate and as many transactions with two items as it takes.
func writeBigImport(t *testing.T, path string, size int64) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	n, _ := fmt.Fprint(w, `{"Merchants": [{"Id": 1, "Name": "Big Merchant"}],
"Affiliates": [{"Id": 1, "ContactName": "Big Affiliate"}],
"Transactions": [`)
	written := int64(n)
	for id := 1; written < size; id++ {
		if id > 1 {
			w.WriteByte(',')
			written++
		}
		n, _ := fmt.Fprintf(w, `{"Id": %d, "MerchantId": 1, "AffiliateId": 1, "DateCreated": "2024-03-%02dT10:%02d:00",
"TrafficType": "Website", "TrafficSource": "example.com", "CreativeType": "Banner", "CreativeId": 7,
"CreativeName": "Spring banner", "CustomerCountryCode": "AU", "CustomerCountryName": "Australia",
"CustomerIpAddress": "0123456789abcdef0123456789abcdef", "CustomerType": "New", "OrderId": "ORD-%d",
"TrackingMethod": "Cookie", "SaleValue": 120.5, "Commission": 12.05, "ReportedCurrencyCode": "AUD",
"ReportedCurrencyName": "Australian Dollar", "ReportedSaleValue": 120.5, "TrafficSourceApproved": true,
"Status2": "Pending", "Items": [{"Sku": "SKU-1", "Quantity": 1, "ReportedSaleValue": 100.5, "SaleValue": 100.5,
"Commission": 10.05, "Name": "Garden hose", "Brand": "Acme", "Category": "Garden"}, {"Sku": "SKU-2",
"Quantity": 2, "ReportedSaleValue": 10, "SaleValue": 10, "Commission": 1, "Name": "Nozzle", "Brand": "Acme",
"Category": "Garden"}]}`, id, id%28+1, id%60, id)
		written += int64(n)
	}
	fmt.Fprint(w, "]}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return written
}
