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
		{"a date not written as a day, whose refusal suggests no time", "Code,Date,Rate\nUSD,2024-1-1,1.5\n",
			`line 2.Date: "2024-1-1" is not a day; use YYYY-MM-DD`},
		{"a day of year 0, whose refusal suggests no time", "Code,Date,Rate\nUSD,0000-01-01,1.5\n",
			`line 2.Date: "0000-01-01" is not a day; use YYYY-MM-DD`},
		{"a bad rate on the third line", "Code,Date,Rate\n\"USD\",2024-01-01,1.5\nEUR,\"2024-01-01\",x\n", "line 3: Rate \"x\" is not a number"},
		{"a row of the wrong width", "Code,Date,Rate\nUSD,2024-01-01,1.5\nEUR,2024-01-01\n", "line 3: wrong number of fields"},
		{"the same code and day twice", "Code,Date,Rate\nUSD,2024-01-01,1.5\n\nusd,2024-01-01,1.6\n", "line 4: USD 2024-01-01 is also on line 2"},
		{"a date with a time, even midnight", "Code,Date,Rate\nUSD,2024-01-01T00:00,1.5\n",
			`line 2.Date: "2024-01-01T00:00" must be a day (YYYY-MM-DD), without a time`},
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

// TestHugeValuesAreRefusedAsTheyAreRead: a rates line or an import value
// far beyond any field's bound is an error naming its place, found
// before it is held whole.
func TestHugeValuesAreRefusedAsTheyAreRead(t *testing.T) {
	t.Run("a rates line longer than 4096 bytes", func(t *testing.T) {
		csv := "Code,Date,Rate\nUSD,2024-01-01,1.5\nUSD,2024-01-02," + strings.Repeat("9", 5000) + "\n"
		_, err := importfile.ParseRatesCSV(strings.NewReader(csv))
		if got := afftrack.ErrorMessage(err); got != "line 3: a record longer than 4096 bytes" {
			t.Errorf("error %q, want the line named", got)
		}
	})
	t.Run("a rates record of many short lines in a quoted field", func(t *testing.T) {
		csv := "Code,Date,Rate\nUSD,2024-01-01,\"" + strings.Repeat("9\n", 3000) + "\"\n"
		_, err := importfile.ParseRatesCSV(strings.NewReader(csv))
		if got := afftrack.ErrorMessage(err); !strings.Contains(got, "a record longer than 4096 bytes") {
			t.Errorf("error %q, want the record refused", got)
		}
	})
	t.Run("an import record of 17 MB of small values", func(t *testing.T) {
		file := `{"Transactions": [{"Id": 1, "Items": [` + strings.Repeat("{},", 6_000_000) + `{}]}]}`
		_, err := importfile.Parse(strings.NewReader(file), time.UTC)
		if got := afftrack.ErrorMessage(err); !strings.Contains(got, "the record at byte 18 is longer than 16777216 bytes") {
			t.Errorf("error %q, want the record's place and the bound", got)
		}
	})
	for _, tt := range []struct{ name, value string }{
		{"a string of 2 MB", `"` + strings.Repeat("a", 2<<20) + `"`},
		{"a string of escapes of 2 MB", `"` + strings.Repeat(`\u00e9`, 400_000) + `"`},
		{"a number of 2 MB", strings.Repeat("9", 2<<20)},
	} {
		t.Run("an import value: "+tt.name, func(t *testing.T) {
			file := `{"Merchants": [{"Id": 1, "Name": ` + tt.value + `}]}`
			_, err := importfile.Parse(strings.NewReader(file), time.UTC)
			if got := afftrack.ErrorMessage(err); !strings.Contains(got, "is longer than 1048576 bytes") ||
				!strings.Contains(got, "at byte 33") {
				t.Errorf("error %q, want the value's place and the bound", got)
			}
		})
	}
}

// FuzzParseRatesCSV: any file is rates or an error the command can show
// (EINVALID), never a panic; every rate read is one the import accepts.
func FuzzParseRatesCSV(f *testing.F) {
	f.Add("Code,Date,Rate\nUSD,2024-01-01,1.5\n")
	f.Add("\ufeffrate,CODE,date\n1.23456789,eur,2024-02-29\n")
	f.Add("Code,Date,Rate\n\"USD\n\",2024-01-01,1e9\nUSD,2024-01-01,-1\n")
	f.Add("Code,Date,Rate,Rate\n")
	f.Fuzz(func(t *testing.T, file string) {
		rates, err := importfile.ParseRatesCSV(strings.NewReader(file))
		if err != nil {
			if code := afftrack.ErrorCode(err); code != afftrack.EINVALID {
				t.Fatalf("ParseRatesCSV(%q): error %v of code %q, want EINVALID", file, err, code)
			}
			return
		}
		for _, r := range rates {
			if _, ok := afftrack.CurrencyName(r.Code); !ok || r.Rate <= 0 {
				t.Fatalf("ParseRatesCSV(%q) read rate %+v, which the import refuses", file, r)
			}
		}
	})
}

// FuzzParseProgram: any program file is a program or an error the
// command can show (EINVALID), never a panic; a program read has a
// ClickAppend the tracker can use.
func FuzzParseProgram(f *testing.F) {
	f.Add(`{"TargetUrl": "https://shop.example/", "CookieDays": 30, "Commission": {"Percent": 10}}`)
	f.Add(`{"ClickAppend": "a=[ClickId]&b=[UniqueId4]", "Rules": [{"Category": "Shoes", "Flat": 1.5}], "Prepaid": true}`)
	f.Add(`{"AllowedDomains": ["*.shop.example", "xn--e1afmkfd.example"], "CommissionType": "Dollar per Lead"}`)
	f.Add(`{"TargetUrl": "javascript:alert(1)", "targeturl": "x"}`)
	f.Fuzz(func(t *testing.T, file string) {
		p, err := importfile.ParseProgram(strings.NewReader(file), 1)
		if err != nil {
			if code := afftrack.ErrorCode(err); code != afftrack.EINVALID {
				t.Fatalf("ParseProgram(%q): error %v of code %q, want EINVALID", file, err, code)
			}
			return
		}
		if err := afftrack.ValidClickAppend(p.ClickAppend); err != nil {
			t.Fatalf("ParseProgram(%q) took ClickAppend %q: %v", file, p.ClickAppend, err)
		}
	})
}

// TestParseProgramReadsTheFileAsTheImportDoes: a program file is read as
// the import reads its file: a byte order mark before it is skipped, and
// a file that is not one JSON value is refused saying what is wrong with
// it, not that it is no object.
func TestParseProgramReadsTheFileAsTheImportDoes(t *testing.T) {
	const program = `{"TargetUrl": "https://shop.example/", "Commission": {"Percent": 10}}`
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	tests := []struct {
		name, file, want string
	}{
		{"a byte order mark before the object is skipped", "\uFEFF" + program, ""},
		{"a value nested 100,000 deep is refused as nested too deeply", deep,
			"the program file must be one JSON object: invalid JSON at byte 10001: a value is nested too deeply"},
		{"a field nested 100,000 deep is refused as nested too deeply", `{"TargetUrl": ` + deep + `}`,
			"the program file must be one JSON object: invalid JSON at byte 10014: a value is nested too deeply"},
		{"a value missing is refused as invalid JSON", `{"TargetUrl": }`,
			"the program file must be one JSON object: invalid JSON at byte 15: invalid character '}'"},
		{"a second object is refused", program + `{"Bogus": 1}`, "the program file must be one JSON object: there is more after the object's end"},
		{"two byte order marks are refused", "\uFEFF\uFEFF" + program, "the program file must be one JSON object: invalid JSON at byte 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := importfile.ParseProgram(strings.NewReader(tt.file), 1)
			switch {
			case tt.want == "" && (err != nil || p.TargetURL != "https://shop.example/"):
				t.Errorf("program %+v, error %v; want the program", p, err)
			case tt.want != "" && !strings.HasPrefix(afftrack.ErrorMessage(err), tt.want):
				t.Errorf("error %q, want it to begin %q", afftrack.ErrorMessage(err), tt.want)
			}
		})
	}
}

func TestParseProgramRefusesRulesThatCouldNeverApply(t *testing.T) {
	const terms = `"TargetUrl": "https://shop.example/", "Commission": {"Percent": 10}`
	tests := []struct {
		name, rules, want string
	}{
		{"a negative AffiliateId", `[{"AffiliateId": -3, "Percent": 2}]`,
			"Program.Rules[0].AffiliateId: -3 is not a valid id; ids are from 1 to 9007199254740991"},
		{"an AffiliateId beyond 2^53 - 1", `[{"Percent": 2}, {"AffiliateId": 99999999999999999, "Percent": 3}]`,
			"Program.Rules[1].AffiliateId: 99999999999999999 is not a valid id"},
		{"an empty Category", `[{"Category": "", "Flat": 1}]`,
			"Program.Rules[0].Category: must not be empty; leave it out for a rule of every category"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused, naming the rule", func(t *testing.T) {
			_, err := importfile.ParseProgram(strings.NewReader(`{`+terms+`, "Rules": `+tt.rules+`}`), 1)
			if msg := afftrack.ErrorMessage(err); !strings.HasPrefix(msg, tt.want) {
				t.Errorf("error %q, want it to begin %q", msg, tt.want)
			}
		})
	}
	t.Run("a rule of no condition, and one of a blank category, are kept", func(t *testing.T) {
		p, err := importfile.ParseProgram(strings.NewReader(`{`+terms+`, "Rules": [{"Percent": 5}, {"Category": " ", "Percent": 6}]}`), 1)
		if err != nil || len(p.Rules) != 2 {
			t.Errorf("program %+v, error %v; want two rules", p, err)
		}
	})
}
