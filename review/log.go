package review

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// Query selects log entries. The zero value is every entry of every
// project.
type Query struct {
	// Projects are project roots (as ProjectOf returns them); empty: all.
	Projects []string
	// Since and Until bound the entries' time (zero: unbounded).
	Since, Until time.Time
	// Agent keeps the entries of sessions of this agent (claude-code,
	// codex, gemini, cursor, or the name an editor gave).
	Agent string
	// Decision keeps one outcome: allowed, always, denied, or asked (a
	// person answered); the protocol's once, always, reject are accepted.
	Decision string
	// Session keeps one session's entries.
	Session string
	// Text keeps the entries whose action, input, paths or note contain
	// it, ignoring case.
	Text string
	// Limit bounds the number of entries (0: no bound).
	Limit int
}

// Entry is one recorded decision, for people.
type Entry struct {
	// ID is "<project>:<seq>", unique across projects (see the package doc).
	ID      string    `json:"id"`
	Project string    `json:"project"` // the project root
	Agent   string    `json:"agent,omitempty"`
	Session string    `json:"session"`
	Time    time.Time `json:"time"`
	// Outcome is allowed, allowed always, or denied.
	Outcome string `json:"outcome"`
	// By says who decided, in plain words (DecidedBy).
	By string `json:"by"`
	// Action is the call with paths relative to the project.
	Action string `json:"action"`
	// Note is the user's note, or what decided it.
	Note string `json:"note,omitempty"`
	// Cwd is the session's working directory when the store knows it.
	Cwd    string               `json:"cwd,omitempty"`
	Record protocol.AuditRecord `json:"record"`
	// Where is the project the entry belongs to.
	Where Project `json:"-"`
}

// decisionFilter turns Query.Decision into a predicate.
func decisionFilter(d string) (func(protocol.AuditRecord) bool, error) {
	switch strings.ToLower(d) {
	case "":
		return func(protocol.AuditRecord) bool { return true }, nil
	case "allow", "allowed", "once":
		return func(r protocol.AuditRecord) bool {
			return r.Decision == protocol.ReplyOnce || r.Decision == protocol.ReplyAlways
		}, nil
	case "always":
		return func(r protocol.AuditRecord) bool { return r.Decision == protocol.ReplyAlways }, nil
	case "deny", "denied", "reject", "rejected":
		return func(r protocol.AuditRecord) bool { return r.Decision == protocol.ReplyReject }, nil
	case "ask", "asked":
		return func(r protocol.AuditRecord) bool { return r.Source == protocol.SourceUser }, nil
	}
	return nil, fmt.Errorf("unknown decision %q (want allowed, always, denied or asked)", d)
}

// Log lists entries newest first. A project whose DB cannot be read is
// left out and named in the error, which comes with the other projects'
// entries.
func (r *Reviewer) Log(q Query) ([]Entry, error) {
	keep, err := decisionFilter(q.Decision)
	if err != nil {
		return nil, err
	}
	projects, err := r.selected(q.Projects)
	if err != nil {
		return nil, err
	}
	var all []Entry
	var problems []error
	for _, p := range projects {
		es, err := r.projectLog(p, q, keep)
		if err != nil {
			problems = append(problems, fmt.Errorf("project %s: %w", p.label(), err))
		}
		all = append(all, es...)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Time.After(all[j].Time) })
	if q.Limit > 0 && len(all) > q.Limit {
		all = all[:q.Limit]
	}
	return all, errors.Join(problems...)
}

// selected is the projects a query names (all when none), each with a DB.
func (r *Reviewer) selected(roots []string) ([]Project, error) {
	known, err := r.Projects()
	if err != nil {
		return nil, err
	}
	if len(roots) == 0 {
		return known, nil
	}
	var out []Project
	for _, root := range roots {
		for _, p := range known {
			if p.Root == root {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

func (p Project) label() string {
	if p.Root != "" {
		return p.Root
	}
	return p.DBPath
}

// projectLog reads one project's entries newest first, page by page,
// until Since or Limit.
func (r *Reviewer) projectLog(p Project, q Query, keep func(protocol.AuditRecord) bool) ([]Entry, error) {
	db, err := store.Open(p.DBPath, r.dbOptions)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	sessions, err := sessionsOf(db)
	if err != nil {
		return nil, err
	}
	var out []Entry
	text := strings.ToLower(q.Text)
	err = r.newestFirst(db, p, func(rec protocol.AuditRecord) bool {
		t, _ := time.Parse(time.RFC3339Nano, rec.TS)
		if !q.Since.IsZero() && t.Before(q.Since) {
			return false
		}
		// the record's own fields first: an entry costs more to build
		if (!q.Until.IsZero() && t.After(q.Until)) || !keep(rec) || (q.Session != "" && rec.SessionID != q.Session) {
			return true
		}
		s := sessions[rec.SessionID]
		if q.Agent != "" && !strings.EqualFold(s.Agent, q.Agent) {
			return true
		}
		e := entryOf(p, rec, s)
		if text != "" && !e.contains(text) {
			return true
		}
		out = append(out, e)
		return q.Limit <= 0 || len(out) < q.Limit
	})
	return out, err
}

func sessionsOf(db *store.DB) (map[string]protocol.Session, error) {
	ss, err := db.Sessions()
	if err != nil {
		return nil, err
	}
	m := make(map[string]protocol.Session, len(ss))
	for _, s := range ss {
		m[s.ID] = s
	}
	// a subagent without an agent name is its parent's agent
	for id, s := range m {
		if s.Agent == "" && s.ParentID != "" {
			s.Agent = m[s.ParentID].Agent
			m[id] = s
		}
	}
	return m, nil
}

func entryOf(p Project, rec protocol.AuditRecord, s protocol.Session) Entry {
	t, _ := time.Parse(time.RFC3339Nano, rec.TS)
	e := Entry{
		ID: p.ShortHash() + ":" + rec.ID, Project: p.Root, Agent: s.Agent, Session: rec.SessionID,
		Time: t, Outcome: Outcome(rec), By: DecidedBy(rec), Action: Relative(actionOf(rec), p.Root),
		Cwd: s.Cwd, Record: rec, Where: p,
	}
	switch {
	case rec.Source == protocol.SourceUser:
		e.Note = rec.Reply.Feedback
	case len(rec.Reasons) > 0:
		var ds []string
		for _, r := range rec.Reasons {
			if r.Detail != "" {
				ds = append(ds, r.Detail)
			}
		}
		e.Note = strings.Join(ds, "; ")
	case rec.Reply.Meta != nil && rec.Reply.Meta.Reason != "":
		e.Note = rec.Reply.Meta.Reason
	default:
		e.Note = rec.Reply.Feedback
	}
	e.Note = Relative(e.Note, p.Root)
	return e
}

// contains reports whether lower (a lower-case text) is in e's action,
// input, paths or note, as shown or as recorded.
func (e Entry) contains(lower string) bool {
	for _, s := range append([]string{e.Action, e.Note, e.Record.Action, string(e.Record.ToolCall.RawInput),
		e.Record.Reply.Feedback}, e.Record.Resources...) {
		if strings.Contains(strings.ToLower(s), lower) {
			return true
		}
	}
	return false
}

func actionOf(rec protocol.AuditRecord) string {
	if rec.Action != "" {
		return rec.Action
	}
	a := rec.ToolCall.Tool
	if len(rec.ToolCall.RawInput) > 0 {
		a += " " + string(rec.ToolCall.RawInput)
	}
	return a
}

// Relative rewrites paths under root in s relative to it ("." for root).
func Relative(s, root string) string {
	if root == "" || root == "/" {
		return s
	}
	s = strings.ReplaceAll(s, root+"/", "")
	// the root itself, where it stands alone as a word
	var b strings.Builder
	for {
		i := strings.Index(s, root)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(root)
		b.WriteString(s[:i])
		if end == len(s) || strings.ContainsRune(" \t\"',;)]}", rune(s[end])) {
			b.WriteString(".")
		} else {
			b.WriteString(root)
		}
		s = s[end:]
	}
}

// Find returns the entry with id: "<project>:<seq>" with any unique prefix
// of the project's DB name, or "<seq>" in the project at root (which may
// be "" when id names its project).
func (r *Reviewer) Find(id, root string) (Entry, error) {
	prefix, seq, scoped := strings.Cut(strings.TrimSpace(id), ":")
	if !scoped {
		seq, prefix = prefix, ""
	}
	if seq == "" || strings.Trim(seq, "0123456789") != "" {
		return Entry{}, fmt.Errorf("%q is not an audit ID (want PROJECT:SEQ such as 3fa9c1:42, or SEQ inside a project)", id)
	}
	var p Project
	if scoped {
		known, err := r.Projects()
		if err != nil {
			return Entry{}, err
		}
		var hits []Project
		for _, k := range known {
			if prefix != "" && strings.HasPrefix(k.Hash, strings.ToLower(prefix)) {
				hits = append(hits, k)
			}
		}
		switch len(hits) {
		case 0:
			return Entry{}, fmt.Errorf("no project's log has ID prefix %q (see perm-peer log)", prefix)
		case 1:
			p = hits[0]
		default:
			return Entry{}, fmt.Errorf("ID prefix %q names %d projects; give more of it", prefix, len(hits))
		}
	} else {
		if root == "" {
			return Entry{}, fmt.Errorf("%q names no project: use the full ID from perm-peer log (PROJECT:SEQ)", id)
		}
		var err error
		if p, err = r.ProjectOf(root); err != nil {
			return Entry{}, err
		}
	}
	if _, err := os.Stat(p.DBPath); err != nil {
		return Entry{}, fmt.Errorf("no decision %s: project %s has no log yet", id, p.label())
	}
	db, err := store.Open(p.DBPath, r.dbOptions)
	if err != nil {
		return Entry{}, err
	}
	defer db.Close()
	rec, err := db.AuditRecord(strings.TrimLeft(seq, "0"))
	if errors.Is(err, store.ErrNotFound) {
		return Entry{}, fmt.Errorf("no decision %s in the log of %s", id, p.label())
	}
	if err != nil {
		return Entry{}, err
	}
	s, err := db.Session(rec.SessionID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return Entry{}, err
	}
	return entryOf(p, rec, s), nil
}
