//go:build !unix

package main

// openFileLimit reports that the limit of open files is not known here.
func openFileLimit() (uint64, bool) { return 0, false }
