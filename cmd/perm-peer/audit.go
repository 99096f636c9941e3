package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

const auditUsage = `usage:
  perm-peer audit [--db PATH] [--project DIR] [--session S] [--json]   list records, oldest first
  perm-peer audit verify [--db PATH] [--project DIR]                    check the hash chain
  perm-peer audit compact [--db PATH] [--project DIR]                   reclaim free space`

// runAudit lists, verifies or compacts the project's audit log.
func runAudit(args []string) int {
	sub := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	fs := newFlags("audit")
	dbFlag := fs.String("db", "", "audit database path (default: the project's)")
	project := fs.String("project", "", "project root (default: the working directory)")
	session := fs.String("session", "", "only this session's records (list only)")
	asJSON := fs.Bool("json", false, "one JSON object per line (list only)")
	if _, code, ok := parseCommand(fs, args, auditUsage, noOperands); !ok {
		return code
	}
	if sub != "" && (*session != "" || *asJSON) {
		fmt.Fprintln(os.Stderr, auditUsage)
		return exitUsage
	}
	name := strings.TrimSpace("audit " + sub)
	switch sub {
	case "":
		db, code := openExisting(name, *dbFlag, *project, true)
		if db == nil {
			return code
		}
		defer db.Close()
		return listAudit(db, *session, *asJSON)
	case "verify":
		db, code := openExisting(name, *dbFlag, *project, false)
		if db == nil {
			return code
		}
		defer db.Close()
		n, err := db.VerifyAudit()
		var ce *store.ChainError
		if errors.As(err, &ce) {
			fmt.Fprintf(os.Stderr, "perm-peer audit verify: chain broken after %d good records: %v\n", n, ce)
			return exitFailed
		}
		var ge *store.GrantError
		if errors.As(err, &ge) {
			fmt.Fprintf(os.Stderr, "perm-peer audit verify: %d records, chain ok, but a grant is not in the log: %v\n", n, ge)
			return exitFailed
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer audit verify: %v\n", err)
			return exitFailed
		}
		fmt.Printf("%d records, chain ok\n", n)
		return exitOK
	case "compact":
		db, code := openExisting(name, *dbFlag, *project, false)
		if db == nil {
			return code
		}
		defer db.Close()
		before := fileSize(db.Path())
		if err := db.Compact(); err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer audit compact: %v\n", err)
			return exitFailed
		}
		fmt.Printf("compacted %s: %d → %d bytes\n", db.Path(), before, fileSize(db.Path()))
		return exitOK
	}
	fmt.Fprintf(os.Stderr, "perm-peer audit: unknown subcommand %q\n%s\n", sub, auditUsage)
	return exitUsage
}

func listAudit(db *store.DB, session string, asJSON bool) int {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	q := store.AuditQuery{SessionID: session, Limit: store.MaxAuditLimit}
	for {
		recs, next, err := db.Audit(q)
		if err != nil {
			fmt.Fprintf(os.Stderr, "perm-peer audit: %v\n", err)
			return exitFailed
		}
		for _, r := range recs {
			if asJSON {
				err = enc.Encode(r)
			} else {
				_, err = fmt.Println(auditLine(r))
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "perm-peer audit: write: %v\n", err)
				return exitFailed
			}
		}
		if next == "" {
			return exitOK
		}
		q.After = next
	}
}

// auditLine renders one record for people:
// ID  TIME  session/turn  decision by decider (source)  risk  action  [grant] [note|feedback]
func auditLine(r protocol.AuditRecord) string {
	action := r.Action
	if action == "" {
		action = r.ToolCall.Tool
		if len(r.ToolCall.RawInput) > 0 {
			action += " " + string(r.ToolCall.RawInput)
		}
	}
	risk := string(r.Risk)
	if risk == "" {
		risk = "-"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-6s %s  %s/%d  %-6s by %s (%s)  %-8s %s", r.ID, localTime(r.TS), r.SessionID, r.Turn,
		r.Decision, r.DecidedBy, r.Source, risk, clip(oneLine(action), 160))
	if r.Grant != "" {
		fmt.Fprintf(&b, "  grant=%q", r.Grant)
	}
	if r.Reply.Feedback != "" {
		// A user's feedback is their note; anyone else's is what the agent was told.
		label := "feedback"
		if r.Source == protocol.SourceUser {
			label = "note"
		}
		fmt.Fprintf(&b, "  %s=%q", label, r.Reply.Feedback)
	}
	return b.String()
}

// localTime shows an RFC 3339 timestamp to the second in local time.
func localTime(ts string) string {
	if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		return t.Local().Format("2006-01-02 15:04:05")
	}
	return ts
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
