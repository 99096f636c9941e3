package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/perm-peer/perm-peer/review"
)

const allowUsage = `usage:
  perm-peer allow AUDIT-ID [--project|--user] [--session] [--dry-run] [--json]
  perm-peer deny  AUDIT-ID [--project|--user] [--dry-run] [--json]

Turn a recorded decision into a rule: the narrowest one that covers the
call (the pattern "always" offers; never a wrapper, interpreter or a call
only a person may approve).
  allow            saves it for the call's project, as answering "always" does
                   (--project says so explicitly)
  allow --session  saves it for the call's session only: the next identical
                   call in that session is allowed, a call in any other
                   session is not
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
	session := fs.Bool("session", false, "the call's session only (allow)")
	dry := fs.Bool("dry-run", false, "show the change, write nothing")
	project := fs.String("project-dir", "", "project of a short ID (default: the working directory)")
	policy := fs.String("policy", "", "user policy file")
	asJSON := fs.Bool("json", false, "print the change as JSON")
	pos, code, ok := parseCommand(fs, args, allowUsage, oneOperand)
	if !ok {
		return code
	}
	scope, ok := ruleScope(kind, *user, *session)
	if !ok {
		return exitUsage
	}
	r, e, code := findEntry(kind, pos[0], *project, *policy)
	if r == nil {
		return code
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

// ruleScope is where the rule of allow or deny goes, from its flags; false
// (after saying why) for flags that do not go together.
func ruleScope(kind string, user, session bool) (string, bool) {
	switch {
	case session && (user || kind != "allow"):
		fmt.Fprintf(os.Stderr, "perm-peer %s: --session is for allow, without --user\n%s\n", kind, allowUsage)
		return "", false
	case session:
		return review.ScopeSession, true
	case user:
		return review.ScopeUser, true
	}
	return review.ScopeProject, true
}

func printRuleChange(c review.RuleChange, e review.Entry, dry bool) {
	home, _ := os.UserHomeDir()
	if c.Grant {
		verb := map[bool]string{true: "would save", false: "saved"}[dry]
		where := tildePath(e.Project, home)
		if c.Session != "" {
			where = "session " + c.Session + " of " + where
		}
		fmt.Printf("%s %s for %s (covers %s)", verb, c.Pattern, where, c.Covers)
		if c.GrantID != "" {
			fmt.Printf(": grant %s, audit %s", c.GrantID, c.AuditID)
		}
		fmt.Println()
		scope := "in this project is allowed"
		if c.Session != "" {
			scope = "in this session is allowed (in any other, decided as before)"
		}
		fmt.Println("the next identical call " + scope + "; undo with: perm-peer grants revoke " + orText(c.GrantID, "ID") + " --project " + e.Project)
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
