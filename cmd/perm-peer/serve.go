package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
	"time"

	"github.com/perm-peer/perm-peer/peer"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func runServe(args []string) int {
	tuneGC()
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	framing := fs.String("framing", "auto", "message framing: auto, lsp (Content-Length) or ndjson")
	db := fs.String("db", "", "audit database path (default $XDG_STATE_HOME/perm-peer/<project hash>.db)")
	policy := fs.String("policy", "", "user policy file (default $XDG_CONFIG_HOME/perm-peer/policy.json)")
	project := fs.String("project", "", "project root (default the working directory; initialize may name another)")
	home := fs.String("home", "", "home directory used by the gate (default $HOME)")
	judgeProvider := fs.String("judge-provider", "", "judge API: openai (default) or anthropic (with --judge-endpoint)")
	judgeEndpoint := fs.String("judge-endpoint", "", "judge API base, e.g. http://127.0.0.1:11434/v1 or https://api.anthropic.com/v1 (overrides the user policy)")
	judgeModel := fs.String("judge-model", "", "judge model name (with --judge-endpoint)")
	judgeKeyEnv := fs.String("judge-api-key-env", "", "environment variable holding the judge API key")
	judgeTimeout := fs.Duration("judge-timeout", 0, "judge timeout (default 8s)")
	askTimeout := fs.Duration("ask-timeout", 0, "reject when the editor does not answer permission/ask within this (default: wait)")
	lockTimeout := fs.Duration("lock-timeout", store.DefaultLockTimeout, "fail a call (and startup) when another process holds the audit db longer than this")
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprint(os.Stderr, "Usage: perm-peer [serve] [flags]\n\nServe one editor over stdin/stdout (JSON-RPC 2.0).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "perm-peer serve: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	fr, err := peer.ParseFraming(*framing)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer serve: %v\n", err)
		return exitUsage
	}
	root, err := projectRoot(*project)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer serve: %v\n", err)
		return exitStartup
	}
	path, err := dbPath(*db, root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer serve: %v\n", err)
		return exitStartup
	}
	cfg := peer.Config{
		Project: root, DBPath: path, UserPolicyFile: userPolicyPath(*policy), Home: *home,
		Framing: fr, Version: version, AskTimeout: *askTimeout,
		StoreOptions: store.Options{LockTimeout: *lockTimeout},
	}
	if *judgeEndpoint != "" {
		cfg.Judge = &protocol.JudgeConfig{Provider: *judgeProvider, Endpoint: *judgeEndpoint, Model: *judgeModel, APIKeyEnv: *judgeKeyEnv,
			TimeoutMs: int(*judgeTimeout / time.Millisecond)}
	}
	srv := peer.New(cfg)
	if err := srv.Open(); err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer: cannot start: %v\n", err)
		return exitStartup
	}
	if isTerminal(os.Stdin) {
		fmt.Fprintln(os.Stderr, "perm-peer: serving JSON-RPC on stdin/stdout; an editor launches this as a subprocess (try `perm-peer demo`, Ctrl-D to quit)")
	}
	// An editor that closes our stdout must not kill us mid-commit: writes
	// then fail with EPIPE, and the peer drains and exits on EOF.
	signal.Ignore(syscall.SIGPIPE)
	for _, r := range recorders {
		prefix := os.Getenv(r.env)
		if prefix == "" {
			continue
		}
		stopRecording, err := r.record(fmt.Sprintf("%s.%d", prefix, os.Getpid()))
		if err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer: cannot start: %v\n", err)
			return exitStartup
		}
		defer stopRecording()
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	return srv.Serve(ctx, os.Stdin, os.Stdout)
}

// recorders are the profiles a serving process writes when their
// environment variable names a file prefix: one file per process, for
// profiling under a real editor or the bench harness. The execution trace
// shows what a CPU profile cannot: where a request waits (syscalls,
// scheduling, channels).
var recorders = []recorder{
	{env: "PERM_PEER_CPUPROFILE", what: "cpu profile", start: pprof.StartCPUProfile, stop: pprof.StopCPUProfile},
	{env: "PERM_PEER_TRACE", what: "execution trace", start: trace.Start, stop: trace.Stop},
}

type recorder struct {
	env, what string
	start     func(io.Writer) error
	stop      func()
}

// record writes the recording to path until the returned func runs.
func (r recorder) record(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", r.what, path, err)
	}
	if err := r.start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s %s: %w", r.what, path, err)
	}
	return func() {
		r.stop()
		f.Close()
	}, nil
}

// Garbage collector settings for a serving peer, unless the user set GOGC or
// GOMEMLIMIT. Each decision allocates ~80 kB (JSON decoding for schema
// validation, bbolt nodes), and with the default GOGC=100 collection is a
// quarter of a busy peer's CPU: GOGC=200 gave 28% more decisions per second
// at 64 in flight for ~4 MB more peak RSS (docs/PERFORMANCE.md). The soft
// memory limit keeps a large live heap (a big permission/audit page) from
// growing to three times its size.
const (
	gcPercent   = 200
	memoryLimit = 64 << 20
)

func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
