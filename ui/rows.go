package ui

import (
	"net/url"
	"path/filepath"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/review"
)

// A row is one decision as the tables show it. Every string in it may come
// from an agent (commands, paths, notes): the templates escape them, and
// nothing here builds markup.
type row struct {
	ID          string // the review loop's ID, PROJECT:SEQ
	Root        string
	ProjectName string // the root's last element
	TS, Time    string
	Agent       string
	Decision    string // the outcome in words
	Class       string // allow | ask | deny: the colour
	DecidedBy   string
	Action      string
	Note        string
}

// table is a list of rows, with or without the allow/deny buttons.
type table struct {
	Rows    []row
	Buttons bool
}

func (r row) WhyHref() string { return whyHref(r.ID) }
func (r row) AllowHref() string {
	return "/rule?" + url.Values{"id": {r.ID}, "effect": {"allow"}}.Encode()
}
func (r row) DenyHref() string {
	return "/rule?" + url.Values{"id": {r.ID}, "effect": {"deny"}}.Encode()
}

// CanRule: the buttons are offered on every row; the preview says when
// the review loop refuses (a floor, a call no rule may name).
func (r row) CanRule() bool { return r.ID != "" }

func whyHref(id string) string { return "/why?" + url.Values{"id": {id}}.Encode() }

// rowOf builds the table row of an entry.
func rowOf(e review.Entry, now time.Time) row {
	class := "allow"
	switch {
	case e.Record.Decision == protocol.ReplyReject:
		class = "deny"
	case asked(e.Record):
		class = "ask"
	}
	return row{ID: e.ID, Root: e.Project, ProjectName: projectName(e.Project), TS: e.Record.TS,
		Time: localTime(e.Time, now), Agent: e.Agent, Decision: e.Outcome, Class: class, DecidedBy: e.By,
		Action: e.Action, Note: e.Note}
}

// projectName is the last element of a root, the name people use.
func projectName(root string) string {
	if root == "" {
		return "(unknown project)"
	}
	return filepath.Base(root)
}

// countKind is the today view's bucket of a decision: allowed by whom,
// or denied.
func countKind(rec protocol.AuditRecord) string {
	if rec.Decision == protocol.ReplyReject {
		return "denied"
	}
	switch rec.DecidedBy {
	case protocol.ByRule:
		return "rules"
	case protocol.ByGrant, protocol.BySession:
		return "grants"
	case protocol.ByJudge:
		return "judge"
	case protocol.ByUser:
		return "user"
	default: // gate, floor, mode
		return "gate"
	}
}

// asked is true for a call a person answered (the review loop's "asked").
func asked(rec protocol.AuditRecord) bool {
	return rec.Source == protocol.SourceUser
}

// localTime is t in now's zone: the time of day for today, else the date
// too.
func localTime(t, now time.Time) string {
	if t.IsZero() {
		return "-"
	}
	t = t.In(now.Location())
	if y, m, d := now.Date(); t.Year() == y && t.Month() == m && t.Day() == d {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04")
}

// localTS is localTime of an RFC 3339 timestamp.
func localTS(ts string, now time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	return localTime(t, now)
}
