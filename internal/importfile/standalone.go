package importfile

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/afftrack/afftrack"
)

// maxProgramFile bounds a program file: a program is a few kilobytes.
const maxProgramFile = 1 << 20

// ParseProgram reads one Program object, as a merchant's Program in the
// import file, for the merchant given: the command line's way to set a
// program without a whole import file.
func ParseProgram(r io.Reader, merchantID int64) (*afftrack.Program, error) {
	raw, err := io.ReadAll(io.LimitReader(r, maxProgramFile+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxProgramFile {
		return nil, afftrack.Errorf(afftrack.EINVALID, "the program file is larger than %d bytes", maxProgramFile)
	}
	// A byte order mark, which some editors on Windows write before
	// UTF-8, is skipped, as the import file's is.
	raw = bytes.TrimPrefix(raw, []byte("\uFEFF"))
	if err := oneValue(raw); err != nil {
		return nil, err
	}
	rec := newRecord("Program", raw, &Options{})
	p := programFrom(rec, merchantID)
	if err := rec.done(); err != nil {
		return nil, err
	}
	return p, nil
}

// oneValue checks that raw is one JSON value and nothing after it but
// white space, as the import checks its file: a second object would
// otherwise be ignored, and a file that is not JSON (cut short, nested
// too deeply) would be refused as "not a JSON object", which does not
// say what to fix.
func oneValue(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		return afftrack.Errorf(afftrack.EINVALID, "the program file must be one JSON object: %s", tokenProblem(err, ""))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return afftrack.Errorf(afftrack.EINVALID, "the program file must be one JSON object: there is more after the object's end")
	}
	return nil
}

// maxRates bounds the rows of a rates file.
const maxRates = 1_000_000

// ParseRatesCSV reads currency rates from CSV with a header naming the
// columns Code, Date and Rate (in any order and case; other columns are an
// error, so a misspelt one is not ignored): one rate per row, checked as
// the import file's CurrencyRates are. Errors name the line.
func ParseRatesCSV(r io.Reader) ([]afftrack.CurrencyRate, error) {
	cr := csv.NewReader(BoundCSVRecords(r))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, afftrack.Errorf(afftrack.EINVALID, "line 1: a header Code,Date,Rate is needed")
	}
	col := map[string]int{}
	for i, name := range header {
		name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))
		var known string
		for _, k := range []string{"Code", "Date", "Rate"} {
			if strings.EqualFold(k, name) {
				known = k
			}
		}
		if known == "" {
			return nil, afftrack.Errorf(afftrack.EINVALID, "line 1: column %q is not one of Code, Date, Rate", name)
		}
		if _, dup := col[known]; dup {
			return nil, afftrack.Errorf(afftrack.EINVALID, "line 1: column %s is given twice", known)
		}
		col[known] = i
	}
	if len(col) != 3 {
		return nil, afftrack.Errorf(afftrack.EINVALID, "line 1: the header must name Code, Date and Rate")
	}
	var rates []afftrack.CurrencyRate
	seen := map[rateKey]int32{} // its line; a fixed size key, as a million may be read
	for {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return rates, nil
		}
		if err != nil {
			return nil, afftrack.Errorf(afftrack.EINVALID, "%s", CSVProblem(err))
		}
		// The file's line, which blank lines and quoted line breaks
		// make differ from the record's number.
		line, _ := cr.FieldPos(0)
		if len(rates) == maxRates {
			return nil, afftrack.Errorf(afftrack.EINVALID, "line %d: a rates file holds at most %d rates", line, maxRates)
		}
		rateText := strings.TrimSpace(row[col["Rate"]])
		if !isJSONNumber(rateText) {
			return nil, afftrack.Errorf(afftrack.EINVALID, "line %d: Rate %q is not a number", line, rateText)
		}
		obj, _ := json.Marshal(map[string]string{"Code": strings.TrimSpace(row[col["Code"]]),
			"Date": strings.TrimSpace(row[col["Date"]])})
		// The rate goes in as a JSON number, as the import file has it.
		obj = append(obj[:len(obj)-1], `,"Rate":`+rateText+`}`...)
		rec := newRecord(fmt.Sprintf("line %d", line), obj, &Options{})
		rate := parseCurrencyRate(rec)
		if err := rec.done(); err != nil {
			return nil, err
		}
		k := rateKeyOf(rate)
		if first, dup := seen[k]; dup {
			return nil, afftrack.Errorf(afftrack.EINVALID, "line %d: %s %s is also on line %d",
				line, rate.Code, rate.Date.Format(time.DateOnly), first)
		}
		seen[k] = int32(line)
		rates = append(rates, rate)
	}
}

// isJSONNumber reports whether s is one JSON number.
func isJSONNumber(s string) bool {
	return s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && json.Valid([]byte(s))
}

// CSVProblem says on which line and what is wrong with a CSV record,
// without repeating it: the csv package's line, which counts blank lines
// and quoted line breaks, or the message of a bound the record passed.
func CSVProblem(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("line %d: %s", pe.Line, pe.Err)
	}
	var e *afftrack.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}
