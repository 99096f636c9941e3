package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/perm-peer/perm-peer/judge"
	"github.com/perm-peer/perm-peer/peer"
	"github.com/perm-peer/perm-peer/store"
)

// runRules prints a session's <user_rules> section exactly as the judge sees it.
func runRules(args []string) int {
	fs := flag.NewFlagSet("rules", flag.ContinueOnError)
	session := fs.String("session", "", "session id (default: the project's latest session)")
	db := fs.String("db", "", "audit database path (default: the project's)")
	project := fs.String("project", "", "project root (default the working directory)")
	asJSON := fs.Bool("json", false, "print the rules as JSON")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: perm-peer rules [--session S] [--db PATH] [--project DIR] [--json]")
		return exitUsage
	}
	root, err := resolveProject(*project)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer rules: %v\n", err)
		return exitStartup
	}
	d, code := openExisting("rules", *db, root, true)
	if d == nil {
		return code
	}
	defer d.Close()
	if *session == "" {
		if *session, err = latestSession(d); err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer rules: %v\n", err)
			return exitFailed
		}
		if *session == "" {
			fmt.Fprintln(os.Stderr, "perm-peer rules: the project's log is empty: no session yet")
			return exitOK
		}
		fmt.Fprintf(os.Stderr, "session %s (the project's latest)\n", *session)
	}
	recs, err := d.UserReplies(*session, peer.MaxRuleRecords)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer rules: %v\n", err)
		return exitFailed
	}
	grants, err := d.Grants()
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer rules: %v\n", err)
		return exitFailed
	}
	rules := judge.Relativize(root, judge.ExtractRules(recs, grants))
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		if err := enc.Encode(rules); err != nil {
			return exitFailed
		}
		return exitOK
	}
	fmt.Print(judge.RenderRules(rules))
	return exitOK
}

// latestSession is the session of the newest record ("" for an empty log).
func latestSession(d *store.DB) (string, error) {
	recs, _, err := d.AuditNewest("", 1)
	if err != nil || len(recs) == 0 {
		return "", err
	}
	return recs[0].SessionID, nil
}
