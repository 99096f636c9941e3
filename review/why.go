package review

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/peer"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// Explanation is why a call is decided as it is, in one screen: the facts,
// what decided, where that rule was written, the mode, what "always" would
// cover, and the commands that change the outcome.
type Explanation struct {
	// Entry is the recorded decision explained (nil for a call not in the
	// log: `check --explain`).
	Entry   *Entry            `json:"entry,omitempty"`
	Project string            `json:"project"`
	Call    protocol.ToolCall `json:"call"`
	Action  string            `json:"action"`
	// Now is what the gate decides for the call today: allow, ask or deny.
	Now       protocol.Decision `json:"now"`
	HumanOnly bool              `json:"humanOnly"`
	Risk      protocol.Risk     `json:"risk,omitempty"`
	Mode      protocol.Mode     `json:"mode"`
	ModeWords string            `json:"modeWords"`
	// Decider is what decides the call now.
	Decider Decider    `json:"decider"`
	Facts   []FactLine `json:"facts"`
	// Always is the pattern an "always" answer (or `perm-peer allow`)
	// would save; empty with AlwaysWhyNot saying why none is offered.
	Always       string `json:"always,omitempty"`
	AlwaysCovers string `json:"alwaysCovers,omitempty"`
	AlwaysWhyNot string `json:"alwaysWhyNot,omitempty"`
	// Changes are the ways to change the outcome, each one command or one
	// edit.
	Changes []Change `json:"changes"`
}

// Decider is the floor, rule, grant or class that decides a call.
type Decider struct {
	// Kind is floor, rule, grant, gate (known safe), human-only or open
	// (no rule decides: the mode does).
	Kind  string `json:"kind"`
	Words string `json:"words"` // plain words
	Code  string `json:"code,omitempty"`
	Rule  string `json:"rule,omitempty"` // the rule or grant pattern
	File  string `json:"file,omitempty"` // where the rule is written
	Line  int    `json:"line,omitempty"`
}

// FactLine is one thing the call does, as the gate sees it.
type FactLine struct {
	Decision  protocol.Decision `json:"decision"`
	Kind      protocol.FactKind `json:"kind"`
	What      string            `json:"what"`
	Why       string            `json:"why"`
	HumanOnly bool              `json:"humanOnly,omitempty"`

	raw string // What before Relative
}

// Change is one way to change the outcome.
type Change struct {
	What    string `json:"what"`
	Command string `json:"command,omitempty"`
}

// Why explains a recorded decision under today's policy and grants.
func (r *Reviewer) Why(e Entry) (Explanation, error) {
	x, err := r.explain(e.Where, e.Record.ToolCall, e.Cwd, e.Record.SessionID)
	if err != nil {
		return x, err
	}
	x.Entry = &e
	x.Changes = changes(x, e.ID)
	return x, nil
}

// Explain explains one call in project p (its cwd "" for the project
// root) under today's policy and the project's grants.
func (r *Reviewer) Explain(p Project, call protocol.ToolCall, cwd string) (Explanation, error) {
	return r.explain(p, call, cwd, "")
}

// explain is Explain for a call of session (none: ""), whose own grants
// count too.
func (r *Reviewer) explain(p Project, call protocol.ToolCall, cwd, session string) (Explanation, error) {
	pol, err := r.Policy(p)
	if err != nil {
		return Explanation{}, err
	}
	grants, err := r.grants(p, session)
	if err != nil {
		return Explanation{}, err
	}
	v := gate.Analyze(call, r.env(p, pol, cwd, grants))
	x := Explanation{
		Project: p.Root, Call: call, Action: Relative(v.Action, p.Root), Now: v.Decision, HumanOnly: v.HumanOnly,
		Risk: v.Risk, Mode: pol.Mode(), ModeWords: ModeWords(pol.Mode()),
	}
	x.Decider = decider(v, pol)
	for _, f := range v.Facts {
		x.Facts = append(x.Facts, factLine(f, p.Root))
	}
	switch {
	case v.Always != nil:
		x.Always, x.AlwaysCovers = v.Always.Pattern, v.Always.Covers
	case v.HumanOnly:
		x.AlwaysWhyNot = "only a person may approve this call, each time"
	case v.Decision == protocol.DecisionDeny:
		x.AlwaysWhyNot = "the call is denied"
	default:
		x.AlwaysWhyNot = "no narrow pattern: interpreters, shells, wrappers and compound commands are never saved"
	}
	x.Changes = changes(x, "")
	return x, nil
}

// env is the gate's environment for a call of project p.
func (r *Reviewer) env(p Project, pol *gate.Policy, cwd string, grants []gate.Grant) gate.Env {
	if cwd == "" {
		cwd = p.Root
	}
	return gate.Env{Project: p.Root, Cwd: cwd, Home: r.home, Policy: pol, Getenv: os.LookupEnv,
		Protected: append(store.Files(p.DBPath), ProjectPolicyPath(p.Root), r.userPolicy), Grants: grants}
}

// grants are the persistent grants that cover a call of session in p
// (session "": the project's only), as the peer reads them; none when p
// has no DB.
func (r *Reviewer) grants(p Project, session string) ([]gate.Grant, error) {
	by, err := r.sessionGrants(p, []string{session})
	return by[session], err
}

// sessionGrants are the persistent grants that cover a call of each of
// sessions in p, read in one opening of its DB.
func (r *Reviewer) sessionGrants(p Project, sessions []string) (map[string][]gate.Grant, error) {
	by := map[string][]gate.Grant{}
	if _, err := os.Stat(p.DBPath); errors.Is(err, os.ErrNotExist) {
		return by, nil
	}
	db, err := store.Open(p.DBPath, r.dbOptions)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	for _, s := range sessions {
		if _, ok := by[s]; ok {
			continue
		}
		if by[s], err = peer.PersistentGrants(db, s); err != nil {
			return nil, err
		}
	}
	return by, nil
}

// decider finds what decides v: the first fact with the verdict's decision
// and its reason (deny beats ask beats allow, so that fact is the one).
func decider(v gate.Verdict, pol *gate.Policy) Decider {
	var reason *protocol.Reason
	humanOnly := false
	for _, f := range v.Facts {
		if f.Decision == v.Decision && f.Reason != nil && (reason == nil || (f.HumanOnly && !humanOnly)) {
			reason, humanOnly = f.Reason, f.HumanOnly
		}
	}
	if reason == nil && len(v.Reasons) > 0 {
		reason = &v.Reasons[0]
	}
	d := Decider{}
	if reason != nil {
		d.Code, d.Rule = reason.Code, reason.Rule
	}
	switch {
	case v.DecidedBy == protocol.ByFloor:
		d.Kind = "floor"
		d.Words = "a hard floor: no rule, grant, mode or judge can allow this"
		if reason != nil && reason.Detail != "" {
			d.Words += " (" + reason.Detail + ")"
		}
	case v.DecidedBy == protocol.ByRule:
		d.Kind = "rule"
		list := "allow"
		if v.Decision == protocol.DecisionDeny {
			list = "deny"
		}
		d.Words = fmt.Sprintf("your %s rule %s", list, d.Rule)
		d.File, d.Line, _ = pol.RuleOrigin(list, d.Rule)
	case v.DecidedBy == protocol.ByGrant || v.DecidedBy == protocol.BySession:
		d.Kind = "grant"
		d.Words = fmt.Sprintf("a saved \"always\" for %s", d.Rule)
	case v.DecidedBy == protocol.ByGate:
		d.Kind = "gate"
		d.Words = "known safe: it only reads inside the project"
	case v.HumanOnly:
		d.Kind = "human-only"
		d.Words = OpenWords(true, pol.Mode())
		if reason != nil && reason.Detail != "" {
			d.Words = reason.Detail + ": " + d.Words
		}
	case d.Code == "rule.ask":
		d.Kind = "rule"
		d.Words = fmt.Sprintf("your ask rule %s", d.Rule)
		d.File, d.Line, _ = pol.RuleOrigin("ask", d.Rule)
	default:
		d.Kind = "open"
		d.Words = OpenWords(false, pol.Mode())
		if reason != nil && reason.Detail != "" {
			d.Words = reason.Detail + "; " + d.Words
		}
	}
	return d
}

func factLine(f protocol.Fact, root string) FactLine {
	what, why := FactText(f)
	return FactLine{Decision: f.Decision, Kind: f.Kind, What: Relative(what, root), Why: why, HumanOnly: f.HumanOnly, raw: what}
}

// FactText is what a fact is about (its argv, host, path or detail) and
// why it decided (reason code, rule and detail), as one line each.
func FactText(f protocol.Fact) (what, why string) {
	what = f.Path
	switch {
	case len(f.Argv) > 0:
		what = strings.Join(f.Argv, " ")
	case f.Host != "":
		what = f.Host
	case what == "":
		what = f.Detail
	}
	if f.Reason != nil {
		why = f.Reason.Code
		if f.Reason.Rule != "" {
			why += " " + f.Reason.Rule
		}
		if f.Reason.Detail != "" {
			why += ": " + f.Reason.Detail
		}
	}
	return what, why
}

// changes lists the commands that change x's outcome; id names the
// recorded decision ("" for a call not in the log).
func changes(x Explanation, id string) []Change {
	ref := id
	if ref == "" {
		ref = "AUDIT-ID"
	}
	var out []Change
	switch {
	case x.Decider.Kind == "floor":
		out = append(out, Change{What: "nothing can allow it: hard floors hold in every mode"})
		return out
	case x.Now == protocol.DecisionDeny && x.Decider.Kind == "rule":
		where := x.Decider.File
		if x.Decider.Line > 0 {
			where = fmt.Sprintf("%s:%d", where, x.Decider.Line)
		}
		out = append(out, Change{What: fmt.Sprintf("remove the deny rule %q from %s", x.Decider.Rule, where)})
		return out
	case x.Now == protocol.DecisionAllow:
		if x.Decider.Kind == "grant" {
			out = append(out, Change{What: "revoke the saved \"always\"", Command: "perm-peer grants revoke ID  (see perm-peer grants list)"})
		}
		if id != "" {
			out = append(out, Change{What: "deny it from now on in this project", Command: "perm-peer deny " + ref})
		}
		return out
	}
	if x.Decider.Kind == "rule" && x.Decider.Code == "rule.ask" {
		out = append(out, Change{What: fmt.Sprintf("remove the ask rule %q from %s:%d", x.Decider.Rule, x.Decider.File, x.Decider.Line)})
	}
	if x.Always != "" {
		out = append(out,
			Change{What: fmt.Sprintf("allow %s in this project (what \"always\" saves)", x.Always), Command: "perm-peer allow " + ref},
			Change{What: fmt.Sprintf("allow %s in every project (your policy)", x.Always), Command: "perm-peer allow " + ref + " --user"})
	} else if x.HumanOnly {
		out = append(out, Change{What: "approve it when asked; only the full mode runs it unasked"})
	}
	if id != "" {
		out = append(out, Change{What: "deny it from now on in this project", Command: "perm-peer deny " + ref})
	}
	return out
}

// WriteText prints x for a terminal.
func (x Explanation) WriteText(w io.Writer) {
	if e := x.Entry; e != nil {
		fmt.Fprintf(w, "decision %s  %s  %s  agent %s  session %s\n", e.ID, e.Time.Local().Format("2006-01-02 15:04:05"), e.Project, orDash(e.Agent), e.Session)
		fmt.Fprintf(w, "recorded: %s by %s", e.Outcome, e.By)
		if e.Note != "" {
			fmt.Fprintf(w, "  (%s)", e.Note)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "action:   %s\n", x.Action)
	now := string(x.Now)
	if x.HumanOnly {
		now += ", only a person may approve"
	}
	fmt.Fprintf(w, "today:    %s (risk %s)\n", now, orDash(string(x.Risk)))
	fmt.Fprintf(w, "decided:  %s\n", x.Decider.Words)
	if x.Decider.File != "" {
		fmt.Fprintf(w, "          written in %s:%d\n", x.Decider.File, x.Decider.Line)
	}
	fmt.Fprintf(w, "mode:     %s\n", x.ModeWords)
	if x.Always != "" {
		fmt.Fprintf(w, "always:   %s  (covers %s)\n", x.Always, x.AlwaysCovers)
	} else {
		fmt.Fprintf(w, "always:   not offered: %s\n", x.AlwaysWhyNot)
	}
	fmt.Fprintln(w, "facts:")
	for _, f := range x.Facts {
		ho := ""
		if f.HumanOnly {
			ho = "  (only a person)"
		}
		fmt.Fprintf(w, "  %-5s %-7s %s%s\n        %s\n", f.Decision, f.Kind, f.What, ho, f.Why)
	}
	if len(x.Changes) > 0 {
		fmt.Fprintln(w, "to change it:")
		for _, c := range x.Changes {
			if c.Command != "" {
				fmt.Fprintf(w, "  %-48s %s\n", c.Command, "# "+c.What)
			} else {
				fmt.Fprintf(w, "  %s\n", c.What)
			}
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
