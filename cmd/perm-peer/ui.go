package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/perm-peer/perm-peer/store"
	"github.com/perm-peer/perm-peer/ui"
)

// runUI serves the dashboard on 127.0.0.1 until Ctrl-C.
func runUI(args []string) int {
	fs := flag.NewFlagSet("ui", flag.ContinueOnError)
	port := fs.Int("port", 0, "port on 127.0.0.1 (default: a free one)")
	policy := fs.String("policy", "", "user policy file (default $XDG_CONFIG_HOME/perm-peer/policy.json)")
	lockTimeout := fs.Duration("lock-timeout", store.DefaultLockTimeout, "a page waits at most this long for a DB another process holds")
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprint(os.Stderr, "Usage: perm-peer ui [--port N] [--lock-timeout D] [--policy FILE]\n\nServe the dashboard on 127.0.0.1; open the URL it prints (it carries a one-time token).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 || *port < 0 || *port > 65535 {
		fs.Usage()
		return exitUsage
	}
	srv, err := ui.Listen(ui.Options{Port: *port, LockTimeout: *lockTimeout, UserPolicy: *policy, Out: os.Stdout})
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer ui: %v\n", err)
		return exitStartup
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := srv.Serve(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer ui: %v\n", err)
		return exitFailed
	}
	return exitOK
}
