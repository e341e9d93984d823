package main

import (
	"errors"
	"flag"
	"strconv"
)

// intFlag defines an integer flag of fs read in base 10 alone, as the
// positional ids are. The flag package's own integer flags read Go's
// literals: --id 010 was account 8, 0x10 16 and 1_000 1000, numbers
// nobody typing an id means and cli.md does not promise.
func intFlag[T int | int64 | uint64](fs *flag.FlagSet, p *T, name string, value T, usage string) {
	*p = value
	fs.Var(decimal[T]{p}, name, usage)
}

// decimal is an integer flag's value: decimal digits, with a sign for a
// signed type. It is a struct, not a pointer, so the flag package's zero
// value of it (for telling a default from none) prints as 0.
type decimal[T int | int64 | uint64] struct{ p *T }

// String returns the value in decimal.
func (d decimal[T]) String() string {
	if d.p == nil {
		return "0"
	}
	switch p := any(d.p).(type) {
	case *uint64:
		return strconv.FormatUint(*p, 10)
	case *int:
		return strconv.Itoa(*p)
	case *int64:
		return strconv.FormatInt(*p, 10)
	}
	return ""
}

// Set reads s in base 10; its error is what the usage error says after
// the flag package's `invalid value "s" for flag -name:`.
func (d decimal[T]) Set(s string) error {
	switch p := any(d.p).(type) {
	case *uint64:
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return decimalError(err, "decimal digits")
		}
		*p = n
	case *int:
		n, err := strconv.ParseInt(s, 10, strconv.IntSize)
		if err != nil {
			return decimalError(err, "decimal digits with an optional sign")
		}
		*p = int(n)
	case *int64:
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return decimalError(err, "decimal digits with an optional sign")
		}
		*p = n
	}
	return nil
}

// typeName is the word --help shows after the flag's name, as it does
// for the flag package's own integer flags.
func (d decimal[T]) typeName() string {
	if _, unsigned := any(d.p).(*uint64); unsigned {
		return "uint"
	}
	return "int"
}

// decimalError says why a flag's text is not a number of its type.
func decimalError(err error, want string) error {
	if errors.Is(err, strconv.ErrRange) {
		return errors.New("value out of range")
	}
	return errors.New("must be " + want)
}
