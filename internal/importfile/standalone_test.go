package importfile_test

import (
	"strings"
	"testing"
	"time"

	"github.com/afftrack/afftrack"
	"github.com/afftrack/afftrack/internal/importfile"
)

func TestParseRatesCSVNamesTheFilesLine(t *testing.T) {
	tests := []struct {
		name, csv, want string
	}{
		{"a bad date after blank lines", "Code,Date,Rate\n\n\nUSD,2024-13-01,1.6\n", "line 4.Date: "},
		{"a bad rate on the third line", "Code,Date,Rate\n\"USD\",2024-01-01,1.5\nEUR,\"2024-01-01\",x\n", "line 3: Rate \"x\" is not a number"},
		{"a row of the wrong width", "Code,Date,Rate\nUSD,2024-01-01,1.5\nEUR,2024-01-01\n", "line 3: wrong number of fields"},
		{"the same code and day twice", "Code,Date,Rate\nUSD,2024-01-01,1.5\n\nusd,2024-01-01,1.6\n", "line 4: USD 2024-01-01 is also on line 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" names the line of the file", func(t *testing.T) {
			_, err := importfile.ParseRatesCSV(strings.NewReader(tt.csv))
			if msg := afftrack.ErrorMessage(err); !strings.HasPrefix(msg, tt.want) {
				t.Errorf("error %q, want it to begin %q", msg, tt.want)
			}
		})
	}
	t.Run("spaces around a code and a day are trimmed", func(t *testing.T) {
		rates, err := importfile.ParseRatesCSV(strings.NewReader("Code, Date ,Rate\n USD , 2024-01-01 , 1.5 \n"))
		if err != nil || len(rates) != 1 || rates[0].Code != "USD" {
			t.Errorf("rates %+v, error %v; want one USD rate", rates, err)
		}
	})
}

func TestParseSkipsAByteOrderMark(t *testing.T) {
	d, err := importfile.Parse(strings.NewReader("\uFEFF"+`{"Merchants": [{"Id": 1, "Name": "x"}]}`), time.UTC)
	if err != nil || len(d.Merchants) != 1 {
		t.Errorf("Parse of a file that begins with a BOM: %v", err)
	}
}
