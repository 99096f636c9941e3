package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/review"
	"github.com/perm-peer/perm-peer/store"
)

const grantsUsage = `usage:
  perm-peer grants [list] [--db PATH] [--project DIR] [--json]   list the project's persistent grants
  perm-peer grants revoke ID [--db PATH] [--project DIR]         delete one grant

Grants saved for one session only (perm-peer allow ID --session) are
listed after the project's, with IDs sN.

list also shows the "always" answers a host saved in its own settings
(Claude Code's "don't ask again", IDs claude-code:N); revoke removes one
from its settings file, touching nothing else.`

// runGrants lists or revokes the project's persistent "always" grants.
func runGrants(args []string) int {
	sub := "list"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	fs := newFlags("grants")
	dbFlag := fs.String("db", "", "audit database path (default: the project's)")
	project := fs.String("project", "", "project root (default: the working directory)")
	asJSON := fs.Bool("json", false, "one JSON object per line (list only)")
	pos, code, ok := parseCommand(fs, args, grantsUsage, anyOperands)
	if !ok {
		return code
	}
	switch {
	case sub == "list" && len(pos) == 0:
		db, code := openExisting("grants list", *dbFlag, *project, true)
		if db != nil {
			code = listGrants(db, *asJSON)
			db.Close()
		}
		if code != exitOK {
			return code
		}
		return listHostGrants(*project, *asJSON)
	case sub == "revoke" && len(pos) == 1 && !*asJSON && review.IsHostGrantID(pos[0]):
		return revokeHostGrant(*project, pos[0])
	case sub == "revoke" && len(pos) == 1 && !*asJSON:
		db, code := openExisting("grants revoke", *dbFlag, *project, false)
		if db == nil {
			return code
		}
		defer db.Close()
		return revokeGrant(db, pos[0])
	case sub != "list" && sub != "revoke":
		fmt.Fprintf(os.Stderr, "perm-peer grants: unknown subcommand %q\n%s\n", sub, grantsUsage)
	default:
		fmt.Fprintln(os.Stderr, grantsUsage)
	}
	return exitUsage
}

func listGrants(db *store.DB, asJSON bool) int {
	grants, err := db.AllGrants()
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer grants list: %v\n", err)
		return exitFailed
	}
	if asJSON {
		return writeJSONLines("grants list", grants)
	}
	if len(grants) == 0 {
		fmt.Fprintln(os.Stderr, "no perm-peer grants")
		return exitOK
	}
	for _, g := range grants {
		fmt.Println(grantLine(g))
	}
	return exitOK
}

// grantLine renders one grant for people: ID  PATTERN  covers  provenance.
func grantLine(g protocol.Grant) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-4s %-32s", g.ID, g.Pattern)
	if store.IsSessionGrantID(g.ID) {
		fmt.Fprintf(&b, "  only in session %s", g.SessionID)
	}
	if g.Covers != "" {
		fmt.Fprintf(&b, "  covers %q", g.Covers)
	}
	fmt.Fprintf(&b, "  created %s", localTime(g.Created))
	if g.SessionID != "" {
		fmt.Fprintf(&b, " in session %s", g.SessionID)
	}
	if g.AuditID != "" {
		fmt.Fprintf(&b, " (audit %s)", g.AuditID)
	}
	return b.String()
}

func revokeGrant(db *store.DB, id string) int {
	grants, err := db.AllGrants()
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer grants revoke: %v\n", err)
		return exitFailed
	}
	pattern := ""
	for _, g := range grants {
		if g.ID == id {
			pattern = g.Pattern
		}
	}
	err = db.RevokeGrant(id)
	if errors.Is(err, store.ErrNotFound) {
		fmt.Fprintf(os.Stderr, "perm-peer grants revoke: no grant with id %q (see perm-peer grants list)\n", id)
		return exitFailed
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer grants revoke: %v\n", err)
		return exitFailed
	}
	fmt.Printf("revoked grant %s %s\n", id, pattern)
	return exitOK
}

// hostProject is the project of --project for the host grants.
func hostProject(projectFlag string) (*review.Reviewer, review.Project, error) {
	r, err := newReviewer("")
	if err != nil {
		return nil, review.Project{}, err
	}
	dir, err := projectRoot(projectFlag)
	if err != nil {
		return nil, review.Project{}, err
	}
	p, err := r.ProjectOf(dir)
	return r, p, err
}

// listHostGrants lists the "always" answers a host saved in its own
// settings (Claude Code's "don't ask again"), which answer before
// perm-peer's grants are asked.
func listHostGrants(projectFlag string, asJSON bool) int {
	r, p, err := hostProject(projectFlag)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer grants list: %v\n", err)
		return exitFailed
	}
	hs, err := r.HostGrants(p)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer grants list: %v\n", err)
		return exitFailed
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		for _, h := range hs {
			_ = enc.Encode(h)
		}
		return exitOK
	}
	if len(hs) == 0 {
		return exitOK
	}
	home, _ := os.UserHomeDir()
	fmt.Println("saved by the host (Claude Code \"don't ask again\"):")
	for _, h := range hs {
		fmt.Printf("%-15s %-32s %s:%d\n", h.ID, h.Rule, tildePath(h.File, home), h.Line)
	}
	return exitOK
}

func revokeHostGrant(projectFlag, id string) int {
	r, p, err := hostProject(projectFlag)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer grants revoke: %v\n", err)
		return exitFailed
	}
	g, err := r.RevokeHostGrant(p, id)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer grants revoke: %v\n", err)
		return exitFailed
	}
	fmt.Printf("revoked %s %s (removed from %s)\n", id, g.Rule, g.File)
	return exitOK
}
