package review

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// Where a rule made from a decision goes.
const (
	// ScopeProject: an allow is saved as the project's grant, exactly what
	// answering "always" saves (a project's policy file may not loosen);
	// a deny goes into <root>/.perm-peer/policy.json.
	ScopeProject = "project"
	// ScopeUser: the rule goes into the user policy, for every project.
	ScopeUser = "user"
	// ScopeSession: an allow is saved as a grant of the call's session
	// only, as if the user had answered "always" there without it
	// reaching the project.
	ScopeSession = "session"
)

// RuleChange is a rule made from a recorded decision: what it is, where it
// goes and, for a policy file, the edit.
type RuleChange struct {
	Kind    string `json:"kind"`  // allow or deny
	Scope   string `json:"scope"` // project, user or session
	Pattern string `json:"pattern"`
	Covers  string `json:"covers,omitempty"`
	// File is the policy file edited; "" when an allow is saved as a
	// grant (Grant): the project's, or for Scope session, Session's.
	File    string `json:"file,omitempty"`
	Grant   bool   `json:"grant,omitempty"`
	Session string `json:"session,omitempty"`
	// Diff shows the file's lines around the edit ("+" added).
	Diff string `json:"diff,omitempty"`
	// GrantID and AuditID are set by Apply for a grant.
	GrantID string `json:"grantId,omitempty"`
	AuditID string `json:"auditId,omitempty"`

	before, after []byte
	entry         Entry
}

// Refusal is why no rule is written: the rule would be useless or unsafe.
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

// ErrAlready means the call already has the outcome asked for.
var ErrAlready = errors.New("already")

// PlanRule makes the narrowest rule that gives e's call the outcome kind
// (allow or deny) in scope, and checks that it would: a rule a floor, a
// deny rule or the human-only class overrides is refused with the reason
// (*Refusal). Nothing is written; Apply writes it.
func (r *Reviewer) PlanRule(e Entry, kind, scope string) (RuleChange, error) {
	c := RuleChange{Kind: kind, Scope: scope, entry: e}
	if kind != "allow" && kind != "deny" {
		return c, fmt.Errorf("unknown rule kind %q (allow or deny)", kind)
	}
	if scope != ScopeProject && scope != ScopeUser && (scope != ScopeSession || kind != "allow") {
		return c, fmt.Errorf("unknown scope %q for %s (project or user; session for allow)", scope, kind)
	}
	if scope == ScopeSession {
		if c.Session = e.Record.SessionID; c.Session == "" {
			return c, &Refusal{"the call was recorded without a session: allow it for the project instead"}
		}
	}
	// the session's own grants count only for a rule of that session: one
	// of them is no reason not to save the rule for the project
	x, err := r.explain(e.Where, e.Record.ToolCall, e.Cwd, c.Session)
	if err != nil {
		return c, err
	}
	if err := c.patternFor(x); err != nil {
		return c, err
	}
	switch {
	case kind == "allow" && scope != ScopeUser:
		c.Grant = true
	case scope == ScopeProject:
		c.File = ProjectPolicyPath(e.Where.Root)
	default:
		c.File = r.userPolicy
	}
	if c.File != "" {
		if err := c.edit(); err != nil {
			return c, err
		}
	}
	if err := r.takesEffect(c); err != nil {
		return c, err
	}
	return c, nil
}

// patternFor sets c's pattern, and what it covers, for the call x
// explains, or says why there is none.
func (c *RuleChange) patternFor(x Explanation) error {
	if c.Kind == "allow" {
		if err := allowable(x); err != nil {
			return err
		}
		c.Pattern, c.Covers = x.Always, x.AlwaysCovers
		if c.Session != "" { // the gate words what "always" covers for the project
			c.Covers = strings.Replace(c.Covers, "(this project)", "(this session)", 1)
		}
		return nil
	}
	if x.Now == protocol.DecisionDeny {
		return fmt.Errorf("%w denied: %s", ErrAlready, x.Decider.Words)
	}
	if c.Pattern = x.Always; c.Pattern == "" {
		c.Pattern = exactPattern(x)
	}
	if c.Pattern == "" {
		return &Refusal{"no single rule covers this call (a compound or dynamic command): write a deny rule for its parts into your policy (docs/POLICY.md)"}
	}
	return nil
}

// allowable refuses an allow that could never apply.
func allowable(x Explanation) error {
	switch {
	case x.Now == protocol.DecisionAllow:
		return fmt.Errorf("%w allowed: %s", ErrAlready, x.Decider.Words)
	case x.Decider.Kind == "floor":
		return &Refusal{"a hard floor decides this call (" + x.Decider.Code + "): no rule, grant or mode can allow it"}
	case x.Now == protocol.DecisionDeny:
		return &Refusal{fmt.Sprintf("%s denies it, and a deny beats every allow: remove it first (%s:%d)", x.Decider.Words, x.Decider.File, x.Decider.Line)}
	case x.HumanOnly:
		return &Refusal{"only a person may approve this call, each time (" + x.Decider.Code + "): an allow rule would not apply; approve it when asked"}
	case x.Always == "":
		return &Refusal{"no narrow rule covers this call: " + x.AlwaysWhyNot}
	}
	return nil
}

// exactPattern is a deny rule for exactly this call when "always" offers
// none (a human-only call): its one command, or its one file.
func exactPattern(x Explanation) string {
	var execs, files []FactLine
	for _, f := range x.Facts {
		switch f.Kind {
		case protocol.FactExec:
			execs = append(execs, f)
		case protocol.FactRead, protocol.FactWrite, protocol.FactDelete:
			files = append(files, f)
		}
	}
	switch {
	case len(execs) == 1 && !strings.ContainsAny(execs[0].raw, "()$`"):
		return "Bash(" + execs[0].raw + ")"
	case len(execs) == 0 && len(files) == 1 && !strings.ContainsAny(files[0].raw, "()"):
		tool := "Read"
		if files[0].Kind != protocol.FactRead {
			tool = "Write"
		}
		return tool + "(" + files[0].raw + ")"
	}
	return ""
}

// edit computes the policy file's new text.
func (c *RuleChange) edit() error {
	before, err := os.ReadFile(c.File)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", c.File, err)
	}
	after, err := appendRule(before, c.Kind, c.Pattern)
	if err != nil {
		return fmt.Errorf("edit %s: %w (the file is left as it is)", c.File, err)
	}
	c.before, c.after = before, after
	c.Diff = lineDiff(before, after)
	return nil
}

// takesEffect re-decides the call with the change in place and refuses a
// change that would not give the outcome asked for.
func (r *Reviewer) takesEffect(c RuleChange) error {
	p := c.entry.Where
	userFile, projectFile := r.userPolicy, ProjectPolicyPath(p.Root)
	if c.File != "" {
		tmp, err := os.CreateTemp("", "perm-peer-policy-*.json")
		if err != nil {
			return err
		}
		defer os.Remove(tmp.Name())
		if _, err := tmp.Write(c.after); err != nil {
			tmp.Close()
			return err
		}
		tmp.Close()
		if c.File == userFile {
			userFile = tmp.Name()
		} else {
			projectFile = tmp.Name()
		}
	}
	pol, err := gate.LoadPolicy(userFile, projectFile, p.Root)
	if err != nil {
		return fmt.Errorf("the edited policy would not load: %w", err)
	}
	grants, err := r.grants(p, c.Session)
	if err != nil {
		return err
	}
	if c.Grant {
		grants = append(grants, gate.Grant{ID: "new", Pattern: c.Pattern, By: c.grantedBy()})
	}
	v := gate.Analyze(c.entry.Record.ToolCall, r.env(p, pol, c.entry.Cwd, grants))
	want := protocol.DecisionAllow
	if c.Kind == "deny" {
		want = protocol.DecisionDeny
	}
	if v.Decision != want {
		return &Refusal{fmt.Sprintf("%s would not change the outcome (still %s: %s)", c.Pattern, v.Decision, decider(v, pol).Words)}
	}
	return nil
}

// grantedBy is what the gate names as the decider of a call c's grant
// covers.
func (c RuleChange) grantedBy() protocol.DecidedBy {
	if c.Session != "" {
		return protocol.BySession
	}
	return protocol.ByGrant
}

// Apply writes a planned change: the policy file (atomically, only the
// new element added), or the grant (the project's or the session's) with
// an audit record of the user's "always" (so `perm-peer audit verify`
// accounts for it).
func (r *Reviewer) Apply(c RuleChange) (RuleChange, error) {
	if c.File != "" {
		return c, writeAtomic(c.File, c.after)
	}
	if !c.Grant {
		return c, errors.New("nothing to apply")
	}
	e := c.entry
	db, err := store.Open(e.Where.DBPath, store.Options{Project: e.Where.Root, LockTimeout: r.dbOptions.LockTimeout})
	if err != nil {
		return c, err
	}
	defer db.Close()
	reason := allowReasonPrefix + e.ID + ": the user saved " + c.Pattern
	if c.Session != "" {
		reason += " for this session only"
	}
	rec, err := db.AppendAudit(context.Background(), protocol.AuditRecord{
		SessionID: e.Record.SessionID, ParentSessionID: e.Record.ParentSessionID, Turn: e.Record.Turn,
		ToolCall: e.Record.ToolCall, Action: e.Record.Action, Resources: e.Record.Resources,
		Decision: protocol.ReplyAlways, DecidedBy: protocol.ByUser, Source: protocol.SourceUser,
		Reply: protocol.PermissionReply{Reply: protocol.ReplyAlways, Meta: &protocol.ReplyMeta{DecidedBy: protocol.ByUser, Reason: reason}},
		Risk:  e.Record.Risk, Grant: c.Pattern,
	})
	if err != nil {
		return c, err
	}
	g := protocol.Grant{Pattern: c.Pattern, Covers: c.Covers, SessionID: rec.SessionID, AuditID: rec.ID}
	if c.Session != "" {
		g, err = db.AddSessionGrant(g)
	} else {
		g, err = db.AddGrant(g)
	}
	if err != nil {
		return c, err
	}
	c.GrantID, c.AuditID = g.ID, e.Where.ShortHash()+":"+rec.ID
	return c, nil
}

// writeAtomic replaces path by data through a rename, keeping its mode.
func writeAtomic(path string, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // a policy kept in a dotfiles repository stays a link
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
