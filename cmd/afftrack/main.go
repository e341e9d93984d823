// Command afftrack runs the affiliate-network tracking service and
// administers its data. See README.md and docs/ for its commands.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	_ "time/tzdata" // --timezone works on machines without zone files
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Without this, a write to a closed pipe on standard output kills the
	// process silently (afftrack key create | true); with it the write
	// fails with EPIPE, and run reports the output it could not write, so
	// that a key made but never shown is named for revoking.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if code := exitCode(err); code != 0 {
			fmt.Fprintln(os.Stderr, "afftrack:", errorText(err))
			os.Exit(code)
		}
	}
}
