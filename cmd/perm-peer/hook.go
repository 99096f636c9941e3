package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/perm-peer/perm-peer/peer"
	"github.com/perm-peer/perm-peer/peer/hook"
	"github.com/perm-peer/perm-peer/store"
)

// Bounds of one hook call. The hosts' timeouts are 30 s or more (setup
// writes 30 s); a call that has not decided by hookBound is denied by the
// watchdog, and a DB held by another process past hookLockTimeout fails
// closed well before that (opening the store may wait for it twice). The judge has its own, shorter timeout.
const (
	hookBound       = 20 * time.Second
	hookLockTimeout = 3 * time.Second
)

func runHook(args []string) int {
	oneShotGC()
	fs := flag.NewFlagSet("hook", flag.ContinueOnError)
	db := fs.String("db", "", "audit database path (default: the project's, as for serve)")
	policy := fs.String("policy", "", "user policy file (default $XDG_CONFIG_HOME/perm-peer/policy.json)")
	bound := fs.Duration("timeout", hookBound, "deny when no decision is made within this")
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(os.Stderr, "Usage: perm-peer hook %s [flags]\n\nServe one hook call: the host's JSON on stdin, its answer on stdout.\n\n", hostNames())
		fs.PrintDefaults()
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs.Usage()
		// a hook run without its host name must still block, never exit 1
		return 2
	}
	h, ok := hook.Hosts[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "perm-peer hook: unknown host %q (one of %s); denying\n", args[0], hostNames())
		return 2
	}
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "perm-peer hook: bad arguments; denying")
		return 2
	}
	cfg := peer.Config{UserPolicyFile: userPolicyPath(*policy), Version: version, Agent: args[0],
		// one short process: its reads share one handle (LingerReads)
		StoreOptions: store.Options{LockTimeout: min(hookLockTimeout, *bound/4), LingerReads: true}}
	if *db != "" {
		path, err := dbPath(*db, "")
		if err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer hook: %v; denying\n", err)
			return 2
		}
		cfg.DBPath = path
	}
	pins, err := sessionIndex(cfg.DBPath)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer hook: %v; denying\n", err)
		return 2
	}
	// The host may close our stdout early; a write must fail, not kill us.
	signal.Ignore(syscall.SIGPIPE)
	return hook.Run(h, os.Stdin, os.Stdout, os.Stderr, hook.Options{Config: cfg, Bound: *bound, Exit: os.Exit, Pins: pins})
}

// sessionIndex is where hook sessions' projects are pinned: beside the
// DBs, in the state directory or beside --db.
func sessionIndex(db string) (hook.Pins, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return hook.Pins{}, fmt.Errorf("find the home directory: %w", err)
	}
	if db == "" {
		if db, err = store.DefaultPath("/"); err != nil {
			return hook.Pins{}, err
		}
	}
	return hook.Pins{Dir: filepath.Join(filepath.Dir(db), "hook-sessions"), Home: home}, nil
}

// oneShotGC turns the collector off for a process that lives for one
// decision (its package inits alone allocate ~2 MB), unless the user set
// GOGC; the soft memory limit still bounds the heap.
func oneShotGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(-1)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}

func hostNames() string {
	var names []string
	for n := range hook.Hosts {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, "|")
}
