package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/perm-peer/perm-peer/review"
)

const logUsage = `usage:
  perm-peer log [--project DIR] [--since 2h|today|DATE] [--agent A] [--decision D]
                [--session S] [--limit N] [--json]

Recent decisions of every project and agent, newest first. --project keeps
one project (any directory inside it); --decision is allowed, always,
denied or asked (a person answered). Each row's ID (PROJECT:SEQ) is what
perm-peer why, allow and deny take.`

// runLog lists recent decisions across projects.
func runLog(args []string) int {
	fs := newFlags("log")
	project := fs.String("project", "", "only this project (any directory inside it)")
	since := fs.String("since", "", "only decisions since: 2h, 30m, 7d, today, yesterday, 2026-12-01")
	agent := fs.String("agent", "", "only this agent (claude-code, codex, gemini, cursor, ...)")
	decision := fs.String("decision", "", "allowed, always, denied or asked")
	session := fs.String("session", "", "only this session")
	limit := fs.Int("limit", 100, "at most this many rows (0: all)")
	asJSON := fs.Bool("json", false, "one JSON object per line")
	policy := fs.String("policy", "", "user policy file")
	if _, code, ok := parseCommand(fs, args, logUsage, noOperands); !ok {
		return code
	}
	now := time.Now()
	from, err := review.ParseSince(*since, now)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer log: %v\n", err)
		return exitUsage
	}
	r, err := newReviewer(*policy)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer log: %v\n", err)
		return exitStartup
	}
	q := review.Query{Since: from, Agent: *agent, Decision: *decision, Session: *session, Limit: *limit}
	if *project != "" {
		p, err := r.ProjectOf(*project)
		if err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer log: %v\n", err)
			return exitUsage
		}
		q.Projects = []string{p.Root}
	}
	entries, err := r.Log(q)
	if err != nil && entries == nil {
		fmt.Fprintf(os.Stderr, "perm-peer log: %v\n", err)
		return exitFailed
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer log: some logs could not be read: %v\n", err)
	}
	if *asJSON {
		return writeJSONLines("log", entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(os.Stderr, "no decisions recorded"+sinceWords(*since))
		return exitOK
	}
	writeLogTable(os.Stdout, entries, now)
	return exitOK
}

func sinceWords(since string) string {
	if since == "" {
		return ""
	}
	return " since " + since
}

// writeLogTable renders entries as a table with a header.
func writeLogTable(w io.Writer, entries []review.Entry, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tID\tPROJECT\tAGENT\tDECISION\tDECIDED BY\tACTION\tNOTE")
	home, _ := os.UserHomeDir()
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", shortTime(e.Time, now), e.ID, tildePath(e.Project, home),
			dash(e.Agent), e.Outcome, e.By, clip(oneLine(e.Action), 60), clip(oneLine(e.Note), 60))
	}
	tw.Flush()
}

// shortTime is the clock time for today, else the date too.
func shortTime(t, now time.Time) string {
	t = t.Local()
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04")
}

func tildePath(p, home string) string {
	if p == "" {
		return "?"
	}
	if home != "" && home != "/" && strings.HasPrefix(p, home+string(filepath.Separator)) {
		return "~" + p[len(home):]
	}
	return p
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// newReviewer reads the default state directory and the user policy
// (--policy overrides it).
func newReviewer(policyFlag string) (*review.Reviewer, error) {
	return review.New(review.Config{UserPolicy: userPolicyPath(policyFlag)})
}
