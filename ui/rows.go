package ui

import (
	"net/url"
	"path/filepath"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
)

// A row is one decision as the tables show it. Every string in it may come
// from an agent (commands, paths, notes): the templates escape them, and
// nothing here builds markup.
type row struct {
	ID          string
	Project     string // the DB's hash: how URLs name a project
	Root        string
	ProjectName string // the root's last element
	TS, Time    string
	Agent       string
	Decision    string // allowed | asked … | denied
	Class       string // allow | ask | deny: the colour
	DecidedBy   string
	Action      string
	Note        string
	CanRule     bool // allow/deny buttons make sense (a call a rule can name)
}

// table is a list of rows, with or without the allow/deny buttons.
type table struct {
	Rows    []row
	Buttons bool
}

func (r row) WhyHref() string   { return "/why?" + r.ref().Encode() }
func (r row) AllowHref() string { return "/rule?" + r.refWith("effect", "allow").Encode() }
func (r row) DenyHref() string  { return "/rule?" + r.refWith("effect", "deny").Encode() }

func (r row) ref() url.Values { return url.Values{"project": {r.Project}, "id": {r.ID}} }

func (r row) refWith(k, v string) url.Values {
	q := r.ref()
	q.Set(k, v)
	return q
}

// projectName is the last element of a root, the name people use.
func projectName(root string) string {
	if root == "" {
		return "(unknown project)"
	}
	return filepath.Base(root)
}

// outcome classifies a decision for the badge and the counts.
func outcome(rec protocol.AuditRecord) (label, class string) {
	switch {
	case rec.Decision == protocol.ReplyReject:
		return "denied", "deny"
	case rec.Decision == protocol.ReplyAlways:
		return "allowed always", "allow"
	default:
		return "allowed", "allow"
	}
}

// deciderWords says who decided in plain words.
var deciderWords = map[protocol.DecidedBy]string{
	protocol.ByFloor:    "a hard floor",
	protocol.ByRule:     "a policy rule",
	protocol.ByGrant:    "a project grant",
	protocol.BySession:  "an earlier answer this session",
	protocol.ByGate:     "the gate",
	protocol.ByMode:     "the mode",
	protocol.ByJudge:    "the judge",
	protocol.ByUser:     "you",
	protocol.ByHeadless: "nobody (no one to ask)",
}

func decider(by protocol.DecidedBy) string {
	if w, ok := deciderWords[by]; ok {
		return w
	}
	return string(by)
}

// countKind is the today view's bucket of a decision: allowed by whom,
// or denied. A call the user answered was also asked.
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

// asked is true for a call a person answered.
func asked(rec protocol.AuditRecord) bool {
	return rec.Source == protocol.SourceUser
}

// localTime is ts in the server's local time, to the second.
func localTime(ts string, now time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	t = t.In(now.Location())
	if y, m, d := now.Date(); t.Year() == y && t.Month() == m && t.Day() == d {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04")
}
