package main

import (
	"fmt"
	"os"

	"github.com/perm-peer/perm-peer/review"
)

const whyUsage = `usage:
  perm-peer why AUDIT-ID [--project DIR] [--policy FILE] [--json]

Why a recorded call was decided as it was, under today's policy: the facts,
the rule or floor that decides it and the file and line it is written in,
the mode, what "always" would cover, and the commands that change it.
AUDIT-ID is the ID perm-peer log shows (PROJECT:SEQ), or SEQ inside a
project (--project, default the working directory).`

func runWhy(args []string) int {
	fs := newFlags("why")
	project := fs.String("project", "", "project of a short ID (default: the working directory)")
	policy := fs.String("policy", "", "user policy file")
	asJSON := fs.Bool("json", false, "print the explanation as JSON")
	pos, code, ok := parseCommand(fs, args, whyUsage, oneOperand)
	if !ok {
		return code
	}
	r, e, code := findEntry("why", pos[0], *project, *policy)
	if r == nil {
		return code
	}
	x, err := r.Why(e)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer why: %v\n", err)
		return exitStartup
	}
	return printExplanation(x, *asJSON)
}

func printExplanation(x review.Explanation, asJSON bool) int {
	if asJSON {
		return writeJSON("why", x)
	}
	x.WriteText(os.Stdout)
	return exitOK
}

// findEntry resolves an audit ID (a short one inside --project or the
// working directory).
func findEntry(cmd, id, projectFlag, policyFlag string) (*review.Reviewer, review.Entry, int) {
	r, err := newReviewer(policyFlag)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer %s: %v\n", cmd, err)
		return nil, review.Entry{}, exitStartup
	}
	dir, err := projectRoot(projectFlag)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer %s: %v\n", cmd, err)
		return nil, review.Entry{}, exitStartup
	}
	e, err := r.Find(id, dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer %s: %v\n", cmd, err)
		return nil, review.Entry{}, exitFailed
	}
	return r, e, exitOK
}
