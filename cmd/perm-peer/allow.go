package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/perm-peer/perm-peer/review"
)

const allowUsage = `usage:
  perm-peer allow AUDIT-ID [--user] [--dry-run] [--json]
  perm-peer deny  AUDIT-ID [--user] [--dry-run] [--json]

Turn a recorded decision into a rule: the narrowest one that covers the
call (the pattern "always" offers; never a wrapper, interpreter or a call
only a person may approve).
  allow            saves it for the call's project, as answering "always" does
  allow --user     writes it into your policy's allow list (every project)
  deny             writes it into the project's .perm-peer/policy.json deny list
  deny --user      writes it into your policy's deny list
A policy file is edited in place: only the new rule is added, nothing you
wrote is reordered or reformatted. A rule that could not apply (a hard
floor, a deny rule, a call only a person may approve) is refused with the
reason. AUDIT-ID is the ID perm-peer log shows.

Exit codes: 0 written (or already so), 1 refused or not found, 2 usage.`

func runAllow(args []string) int { return runRuleFrom("allow", args) }
func runDeny(args []string) int  { return runRuleFrom("deny", args) }

// runRuleFrom is allow and deny.
func runRuleFrom(kind string, args []string) int {
	fs := newFlags(kind)
	user := fs.Bool("user", false, "your policy (every project) instead of the project")
	fs.Bool("project", true, "the call's project (the default)")
	dry := fs.Bool("dry-run", false, "show the change, write nothing")
	project := fs.String("project-dir", "", "project of a short ID (default: the working directory)")
	policy := fs.String("policy", "", "user policy file")
	asJSON := fs.Bool("json", false, "print the change as JSON")
	pos, code, ok := parseCommand(fs, args, allowUsage, oneOperand)
	if !ok {
		return code
	}
	r, e, code := findEntry(kind, pos[0], *project, *policy)
	if r == nil {
		return code
	}
	scope := review.ScopeProject
	if *user {
		scope = review.ScopeUser
	}
	c, err := r.PlanRule(e, kind, scope)
	var refusal *review.Refusal
	switch {
	case errors.Is(err, review.ErrAlready):
		fmt.Printf("%s: %v; nothing to change\n", e.ID, err)
		return exitOK
	case errors.As(err, &refusal):
		fmt.Fprintf(os.Stderr, "perm-peer %s: refused: %v\n", kind, refusal)
		return exitFailed
	case err != nil:
		fmt.Fprintf(os.Stderr, "perm-peer %s: %v\n", kind, err)
		return exitFailed
	}
	if !*dry {
		if c, err = r.Apply(c); err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer %s: %v\n", kind, err)
			return exitFailed
		}
	}
	if *asJSON {
		return writeJSONLines(kind, []review.RuleChange{c})
	}
	printRuleChange(c, e, *dry)
	return exitOK
}

func printRuleChange(c review.RuleChange, e review.Entry, dry bool) {
	home, _ := os.UserHomeDir()
	if c.Grant {
		verb := map[bool]string{true: "would save", false: "saved"}[dry]
		fmt.Printf("%s %s for %s (covers %s)", verb, c.Pattern, tildePath(e.Project, home), c.Covers)
		if c.GrantID != "" {
			fmt.Printf(": grant %s, audit %s", c.GrantID, c.AuditID)
		}
		fmt.Println()
		fmt.Println("the next identical call in this project is allowed; undo with: perm-peer grants revoke " + orText(c.GrantID, "ID") + " --project " + e.Project)
		return
	}
	verb := map[bool]string{true: "would add", false: "added"}[dry]
	fmt.Printf("%s %s to the %s list of %s:\n%s", verb, c.Pattern, c.Kind, tildePath(c.File, home), c.Diff)
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
