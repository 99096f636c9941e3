package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/perm-peer/perm-peer/conformance"
)

// runConformance runs the wire conformance suite against any peer command:
// perm-peer conformance [--vectors DIR] [--json] -- CMD ARGS...
func runConformance(args []string) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	vectors := fs.String("vectors", "", "directory of *.json vectors (default: the embedded suite)")
	asJSON := fs.Bool("json", false, "print the report as one JSON object")
	run := fs.String("run", "", "only vectors whose name contains this")
	framing := fs.String("framing", "", "only this framing: lsp or ndjson (default both)")
	timeout := fs.Duration("timeout", 10*time.Second, "longest wait for one message or exit before a vector fails")
	parallel := fs.Int("parallel", 0, "peers run at once (default GOMAXPROCS)")
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprint(os.Stderr, `Usage: perm-peer conformance [flags] -- CMD ARGS...

Run the wire conformance suite against a peer command. Each vector starts CMD
in a fresh temporary project directory with fresh HOME, XDG_CONFIG_HOME and
XDG_STATE_HOME, over both framings; the argument text {framing} in CMD is
replaced by lsp or ndjson. Exit status 1 when any vector fails.

`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	cmd := fs.Args()
	if len(cmd) == 0 {
		fmt.Fprintln(os.Stderr, "perm-peer conformance: no peer command; use: perm-peer conformance -- CMD ARGS...")
		return exitUsage
	}
	opts := conformance.Options{Filter: *run, Timeout: *timeout, Parallel: *parallel}
	if *vectors != "" {
		st, err := os.Stat(*vectors)
		if err != nil || !st.IsDir() {
			fmt.Fprintf(os.Stderr, "perm-peer conformance: --vectors %s is not a directory\n", *vectors)
			return exitUsage
		}
		opts.Vectors = os.DirFS(*vectors)
	}
	switch f := conformance.Framing(strings.ToLower(*framing)); f {
	case "":
	case conformance.LSP, conformance.NDJSON:
		opts.Framings = []conformance.Framing{f}
	default:
		fmt.Fprintf(os.Stderr, "perm-peer conformance: unknown framing %q (want lsp or ndjson)\n", *framing)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	rep, err := conformance.Run(ctx, cmd, opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer conformance: %v\n", err)
		return exitStartup
	}
	if *asJSON {
		err = rep.WriteJSON(os.Stdout)
	} else {
		err = rep.WriteTable(os.Stdout)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer conformance: write report: %v\n", err)
		return exitFailed
	}
	if !rep.OK() {
		return exitFailed
	}
	return exitOK
}
