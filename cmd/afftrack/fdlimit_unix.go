//go:build unix

package main

import "syscall"

// openFileLimit returns the process's limit of open files, which Go
// raises at start to the hard limit; ok is false where it cannot be read.
func openFileLimit() (n uint64, ok bool) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, false
	}
	return rl.Cur, true
}
