package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/perm-peer/perm-peer/peer"
	"github.com/perm-peer/perm-peer/peer/acpproxy"
)

// agentGrace is how long an agent has to exit by itself once the editor is
// gone (its stdin closed), and again after SIGTERM, before it is killed.
const agentGrace = 3 * time.Second

func runACP(args []string) int {
	tuneGC()
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	db := fs.String("db", "", "audit database path (default $XDG_STATE_HOME/perm-peer/<project hash>.db)")
	policy := fs.String("policy", "", "user policy file (default $XDG_CONFIG_HOME/perm-peer/policy.json)")
	project := fs.String("project", "", "project root (default the cwd of the first session, else the working directory)")
	home := fs.String("home", "", "home directory used by the gate (default $HOME)")
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprint(os.Stderr, "Usage: perm-peer acp [--project DIR] [--policy FILE] [--db PATH] -- AGENT [ARGS...]\n\n"+
			"Stand between an ACP editor (Zed) and AGENT: relay their NDJSON and decide the agent's permission\nrequests, file writes, sensitive reads and terminals through perm-peer.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "perm-peer acp: no agent command (perm-peer acp [flags] -- AGENT [ARGS...])")
		return exitUsage
	}
	root, err := projectRoot(*project)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer acp: %v\n", err)
		return exitStartup
	}
	dbFlag := ""
	if *db != "" {
		if dbFlag, err = filepath.Abs(*db); err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer acp: %v\n", err)
			return exitStartup
		}
	}
	open := func(dir string) (*peer.Server, error) {
		// without --db each project has its own default DB (SPEC §6)
		srv := peer.New(peer.Config{Project: dir, DBPath: dbFlag, UserPolicyFile: userPolicyPath(*policy), Home: *home, Version: version,
			Agent: filepath.Base(argv[0])})
		if err := srv.Open(); err != nil {
			return nil, err
		}
		return srv, nil
	}
	srv, err := open(root)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer acp: cannot start: %v\n", err)
		return exitStartup
	}
	signal.Ignore(syscall.SIGPIPE)
	agent, err := acpproxy.StartAgent(argv, os.Stderr)
	if err != nil {
		srv.Close()
		fmt.Fprintf(os.Stderr, "perm-peer acp: cannot start: %v\n", err)
		return exitStartup
	}
	px := acpproxy.New(srv, acpproxy.Options{Open: open, FixedProject: *project != "", Agent: filepath.Base(argv[0]), Grace: agentGrace})
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() {
		for sig := range sigs {
			agent.Terminate(sig.(syscall.Signal), agentGrace)
		}
	}()
	px.Run(os.Stdin, os.Stdout, agent)
	code := agent.Wait()
	if sig := agent.StoppedBy(); sig != 0 {
		// the editor closed perm-peer's input: a clean end, however long
		// the agent took to go
		fmt.Fprintf(os.Stderr, "perm-peer acp: the editor closed the connection; the agent was stopped by %s\n", signalName(sig))
		code = exitOK
	}
	if err := px.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer acp: close the audit db: %v\n", err)
	}
	return code
}

// signalName is SIGTERM for syscall.SIGTERM, and so on.
func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGKILL:
		return "SIGKILL"
	}
	return sig.String()
}
