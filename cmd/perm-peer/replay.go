package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/perm-peer/perm-peer/review"
)

const replayUsage = `usage:
  perm-peer replay --policy NEW.json [--project-policy NEW.json] [--since 2h|today|DATE]
                   [--project DIR] [--agent A] [--limit N] [--json]

Re-decide the recorded calls under a candidate policy with the deterministic
pipeline (the gate, the project's grants, the mode; no judge call, nothing
written) and list what would change: more allowed, more asked, newly denied.
--policy replaces your user policy, --project-policy each project's
.perm-peer/policy.json (which may still not loosen).

Exit codes: 0 replayed, 2 usage, 3 a policy could not be loaded.`

func runReplay(args []string) int {
	fs := newFlags("replay")
	policy := fs.String("policy", "", "candidate user policy file")
	projectPolicy := fs.String("project-policy", "", "candidate project policy file")
	since := fs.String("since", "", "only calls since: 2h, today, 2026-12-01")
	project := fs.String("project", "", "only this project (any directory inside it)")
	agent := fs.String("agent", "", "only this agent")
	limit := fs.Int("limit", 50, "list at most this many changed calls (0: all)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if _, code, ok := parseCommand(fs, args, replayUsage, noOperands); !ok {
		return code
	}
	if *policy == "" && *projectPolicy == "" {
		fmt.Fprintln(os.Stderr, replayUsage)
		return exitUsage
	}
	from, err := review.ParseSince(*since, time.Now())
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer replay: %v\n", err)
		return exitUsage
	}
	for _, f := range []*string{policy, projectPolicy} {
		if *f == "" {
			continue
		}
		if *f, err = filepath.Abs(*f); err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer replay: %v\n", err)
			return exitUsage
		}
		if _, err := os.Stat(*f); err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer replay: candidate policy: %v\n", err)
			return exitStartup
		}
	}
	r, err := newReviewer("")
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer replay: %v\n", err)
		return exitStartup
	}
	q := review.Query{Since: from, Agent: *agent}
	if *project != "" {
		p, err := r.ProjectOf(*project)
		if err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer replay: %v\n", err)
			return exitUsage
		}
		q.Projects = []string{p.Root}
	}
	start := time.Now()
	rep, err := r.Replay(review.ReplayOptions{Query: q, UserPolicy: *policy, ProjectPolicy: *projectPolicy})
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer replay: %v\n", err)
		return exitStartup
	}
	if *asJSON {
		return writeJSON("replay", rep)
	}
	printReplay(os.Stdout, rep, *limit, time.Since(start))
	return exitOK
}

func printReplay(w io.Writer, rep review.ReplayReport, limit int, took time.Duration) {
	fmt.Fprintf(w, "replayed %d recorded calls in %s: %d would change\n", rep.Calls, took.Round(time.Millisecond), len(rep.Changes))
	fmt.Fprintf(w, "  today:     %d allowed, %d asked, %d denied\n  candidate: %d allowed, %d asked, %d denied\n",
		rep.Today[review.Allow], rep.Today[review.Ask], rep.Today[review.Deny], rep.Candidate[review.Allow], rep.Candidate[review.Ask], rep.Candidate[review.Deny])
	fmt.Fprintf(w, "  more allowed      %d\n  more asked        %d\n  newly denied      %d\n  no longer denied  %d\n",
		rep.MoreAllowed, rep.MoreAsked, rep.NewlyDenied, rep.NoLongerDenied)
	var keys []string
	for k := range rep.Transitions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-16s  %d\n", k, rep.Transitions[k])
	}
	if len(rep.Changes) == 0 {
		return
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPROJECT\tAGENT\tTODAY\tCANDIDATE\tACTION\tWHY (CANDIDATE)")
	home, _ := os.UserHomeDir()
	for i, c := range rep.Changes {
		if limit > 0 && i == limit {
			fmt.Fprintf(tw, "… %d more (--limit 0 lists all)\n", len(rep.Changes)-limit)
			break
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Entry.ID, tildePath(c.Entry.Project, home), dash(c.Entry.Agent),
			c.Before, c.After, clip(oneLine(c.Entry.Action), 50), clip(c.AfterBy, 60))
	}
	tw.Flush()
}
