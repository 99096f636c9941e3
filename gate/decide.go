// decide.go is the last stage of the gate: each fact is decided (floors, deny
// rules, human-only classes, asks, grants and allow rules, known-safe), and
// the facts' decisions are combined into the verdict.

package gate

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// verdict decides every fact and aggregates (SPEC §4 steps 1–5).
func (fl *factLog) verdict(action string) Verdict {
	grants := make([]*rule, 0, len(fl.env.Grants))
	for _, g := range fl.env.Grants {
		grants = append(grants, compileGrant(g.Pattern))
	}
	for _, f := range fl.facts {
		fl.decide(f, grants)
	}
	v := Verdict{Action: action}
	stage := 6
	for _, f := range fl.facts {
		s := factStage(f)
		if s < stage {
			stage = s
		}
	}
	allAllowed := true
	for _, f := range fl.facts {
		if f.dec != protocol.DecisionAllow {
			allAllowed = false
		}
		if riskRank(f.risk) > riskRank(v.Risk) {
			v.Risk = f.risk
		}
	}
	v.HumanOnly = stage == 3
	switch {
	case stage == 1:
		v.Decision, v.DecidedBy, v.Risk = protocol.DecisionDeny, protocol.ByFloor, protocol.RiskCritical
	case stage == 2:
		v.Decision, v.DecidedBy = protocol.DecisionDeny, protocol.ByRule
	case stage == 3:
		v.Decision = protocol.DecisionAsk
	case allAllowed:
		v.Decision = protocol.DecisionAllow
		v.DecidedBy = fl.allowedBy()
	default:
		v.Decision = protocol.DecisionAsk
	}
	// reasons: the facts that decided the call, floors and human-only
	// classes before the rest
	for _, pass := range []func(*rfact) bool{
		func(f *rfact) bool { return f.by == protocol.ByFloor || f.humanOnly },
		func(f *rfact) bool { return f.by != protocol.ByFloor && !f.humanOnly },
	} {
		for _, f := range fl.facts {
			if f.dec == v.Decision && f.reason != nil && pass(f) && !hasReason(v.Reasons, f.reason) {
				v.Reasons = append(v.Reasons, *f.reason)
			}
		}
	}
	for _, f := range fl.facts {
		v.Facts = append(v.Facts, f.public())
		if f.path.known && f.path.abs != "" {
			v.Resources = appendUnique(v.Resources, f.path.abs)
		} else if f.host != "" {
			v.Resources = appendUnique(v.Resources, f.host)
		}
	}
	if len(v.Resources) > 20 {
		v.Resources = v.Resources[:20]
	}
	if v.Decision == protocol.DecisionAsk && !v.HumanOnly {
		v.Always = fl.always() // only an ask can be answered "always"
	}
	return v
}

func hasReason(rs []protocol.Reason, r *protocol.Reason) bool {
	for _, x := range rs {
		if x == *r {
			return true
		}
	}
	return false
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func factStage(f *rfact) int {
	switch {
	case f.dec == protocol.DecisionDeny && f.by == protocol.ByFloor:
		return 1
	case f.dec == protocol.DecisionDeny:
		return 2
	case f.humanOnly:
		return 3
	}
	return 6
}

// allowedBy names the strongest decider among allowed facts: a grant or the
// session cache when one was needed, else a user rule, else the gate.
func (fl *factLog) allowedBy() protocol.DecidedBy {
	best := protocol.ByGate
	rank := map[protocol.DecidedBy]int{protocol.ByGate: 0, protocol.ByRule: 1, protocol.ByGrant: 2, protocol.BySession: 3}
	for _, f := range fl.facts {
		if rank[f.by] > rank[best] {
			best = f.by
		}
	}
	return best
}

func riskRank(r protocol.Risk) int {
	switch r {
	case protocol.RiskLow:
		return 1
	case protocol.RiskMedium:
		return 2
	case protocol.RiskHigh:
		return 3
	case protocol.RiskCritical:
		return 4
	}
	return 0
}

// decide settles one fact: floor, deny rule, ask rule / human-only, grant,
// allow rule / known-safe / covered by its owner, else open.
func (fl *factLog) decide(f *rfact, grants []*rule) {
	set := func(d protocol.Decision, by protocol.DecidedBy, r *protocol.Reason, risk protocol.Risk) {
		f.dec, f.by, f.reason, f.risk = d, by, r, risk
	}
	if f.floor != nil {
		set(protocol.DecisionDeny, protocol.ByFloor, f.floor, protocol.RiskCritical)
		return
	}
	if r := fl.match(f, fl.polRules(func(p *Policy) []*rule { return p.deny }), true); r != nil {
		set(protocol.DecisionDeny, protocol.ByRule, &protocol.Reason{Code: "rule.deny", Detail: "denied by policy", Rule: r.src}, protocol.RiskHigh)
		return
	}
	if r := fl.match(f, fl.polRules(func(p *Policy) []*rule { return p.ask }), true); r != nil {
		set(protocol.DecisionAsk, "", &protocol.Reason{Code: "rule.ask", Detail: "the policy asks the user", Rule: r.src}, protocol.RiskMedium)
		f.humanOnly = true
		return
	}
	if f.human != nil && f.ask == nil && (f.ruleClears || f.clearWord != "") {
		// a flag-policed variant (git -c x rebase) is not what the rule
		// allowed; the host's own rules (Policy.hostAllow) count here only
		allow := fl.polRules(func(p *Policy) []*rule { return p.allow })
		for i, r := range append(allow[:len(allow):len(allow)], fl.polRules((*Policy).hostRules)...) {
			if (f.clearWord == "" || slices.Contains(r.lits, f.clearWord)) && fl.matchOne(f, r, false) {
				detail := "allowed by policy"
				if f.byHostRule = i >= len(allow); f.byHostRule {
					detail = "allowed by the host's own settings"
				}
				set(protocol.DecisionAllow, protocol.ByRule, &protocol.Reason{Code: "rule.allow", Detail: detail, Rule: r.src}, protocol.RiskLow)
				return
			}
		}
	}
	if f.human != nil {
		set(protocol.DecisionAsk, "", f.human, protocol.RiskHigh)
		f.humanOnly = true
		return
	}
	if r := fl.mayDeny(f); r != nil {
		set(protocol.DecisionAsk, "", &protocol.Reason{Code: "ask.may-match-deny", Detail: "dynamic words could match a deny rule", Rule: r.src}, protocol.RiskHigh)
		return
	}
	if f.ask != nil {
		set(protocol.DecisionAsk, "", f.ask, protocol.RiskMedium)
		return
	}
	for i, g := range grants {
		if g != nil && fl.matchOne(f, g, false) {
			by := fl.env.Grants[i].By
			if by != protocol.BySession {
				by = protocol.ByGrant
			}
			set(protocol.DecisionAllow, by, &protocol.Reason{Code: string(by), Detail: "covered by " + string(by), Rule: g.src}, protocol.RiskLow)
			return
		}
	}
	if r := fl.match(f, fl.polRules(func(p *Policy) []*rule { return p.allow }), false); r != nil {
		set(protocol.DecisionAllow, protocol.ByRule, &protocol.Reason{Code: "rule.allow", Detail: "allowed by policy", Rule: r.src}, protocol.RiskLow)
		return
	}
	if f.parent >= 0 && f.parent < len(fl.facts) {
		// a host rule cleared only the parent's human-only class: what the
		// command runs is the host's to decide, as without perm-peer
		if p := fl.facts[f.parent]; p.dec == protocol.DecisionAllow && p.by != protocol.ByGate && !p.byHostRule && !otherHost(f, p) {
			set(protocol.DecisionAllow, p.by, &protocol.Reason{Code: "covered", Detail: "part of a command the " + string(p.by) + " covers", Rule: p.reason.Rule}, protocol.RiskLow)
			return
		}
	}
	if f.safe != nil {
		set(protocol.DecisionAllow, protocol.ByGate, f.safe, protocol.RiskLow)
		return
	}
	r := f.reasonOpen()
	risk := protocol.RiskMedium
	set(protocol.DecisionAsk, "", r, risk)
}

// ruleHost finds the hosts a rule's text names (Bash(curl https://api.github.com/*)).
var ruleHost = lazyRE(`://([^/:*\s)'"]+)`)

// otherHost reports a network fact the covering rule of its parent does
// not name: a rule written for one host (curl https://api.github.com/*)
// must not carry a second URL or -x proxy in the same command. A rule
// that names no host (Bash(npm install *)) covers its command's traffic.
func otherHost(f, parent *rfact) bool {
	if f.kind != protocol.FactNetwork || parent.reason == nil || parent.reason.Rule == "" {
		return false
	}
	hosts := ruleHost().FindAllStringSubmatch(parent.reason.Rule, -1)
	if len(hosts) == 0 {
		return false
	}
	for _, h := range hosts {
		if strings.EqualFold(h[1], f.host) {
			return false
		}
	}
	// a host the rule spells elsewhere (-x evil.com:80 in an exact grant)
	return f.host == "" || !strings.Contains(strings.ToLower(parent.reason.Rule), strings.ToLower(f.host))
}

func (f *rfact) reasonOpen() *protocol.Reason {
	if f.open != nil {
		return f.open
	}
	switch f.kind {
	case protocol.FactWrite, protocol.FactDelete:
		return reason("ask.write", "writes are never known-safe")
	case protocol.FactNetwork:
		return reason("ask.network", "network access")
	case protocol.FactTool:
		return reason("ask.tool", "a tool the gate does not know")
	case protocol.FactRead:
		return reason("ask.read", "read outside the known-safe set")
	}
	return reason("ask.unknown-command", "not in the known-safe set")
}

func (fl *factLog) polRules(get func(*Policy) []*rule) []*rule {
	if fl.pol == nil {
		return nil
	}
	return get(fl.pol)
}

// match returns the first rule of list that applies to f.
func (fl *factLog) match(f *rfact, list []*rule, restrictive bool) *rule {
	for _, r := range list {
		if fl.matchOne(f, r, restrictive) {
			return r
		}
	}
	return nil
}

// matchOne applies one rule to one fact. Restrictive (deny, ask) matching
// also sees through path executables (/usr/bin/git is git) and ignores case
// in paths; allowing matching does neither.
func (fl *factLog) matchOne(f *rfact, r *rule, restrictive bool) bool {
	switch r.kind {
	case ruleBash:
		if f.kind != protocol.FactExec || len(f.argv) == 0 {
			return false
		}
		if !restrictive {
			if f.static == 0 {
				return false // a dynamic command name is never allowed by name
			}
			if f.wrapper && len(r.lits) < 2 {
				return false // a wrapper is never covered by a rule on its name alone
			}
			if fl.outsideProject(f) {
				return false // a rule's make, npm test, pytest are this project's, not the tree cd leads to
			}
		}
		if f.line == "" {
			f.line = strings.Join(f.argv, " ")
		}
		line := f.line
		if r.matchCmd(line, restrictive) {
			return true
		}
		if restrictive && f.namesake != "" {
			// Bash(rm *) denies grm -rf x: Homebrew's GNU rm
			alt := append([]string{f.namesake}, f.argv[1:]...)
			if r.matchCmd(strings.Join(alt, " "), true) {
				return true
			}
		}
		if restrictive && f.pathExec {
			alt := append([]string{filepath.Base(f.argv[0])}, f.argv[1:]...)
			return r.matchCmd(strings.Join(alt, " "), true)
		}
		return false
	case ruleRead, ruleWrite:
		want := protocol.FactRead
		if r.kind == ruleWrite {
			if f.kind != protocol.FactWrite && f.kind != protocol.FactDelete {
				return false
			}
		} else if f.kind != want {
			return false
		}
		if !f.path.known {
			return false
		}
		forms := f.path.both()
		for _, p := range forms {
			m := r.matchPath(p, fl.env.Project, fl.env.Home, restrictive)
			if restrictive && m {
				return true
			}
			if !restrictive && !m {
				return false // every form must be covered to allow
			}
		}
		return !restrictive
	case ruleFetch:
		if f.kind != protocol.FactNetwork || f.host == "" {
			return false
		}
		if r.port != "" && f.port != r.port && (!restrictive || f.port != "") {
			return false // a port the rule does not name (unknown: only deny and ask match)
		}
		return hostMatch(r.name, strings.ToLower(f.host), restrictive)
	case ruleTool:
		return f.tool != "" && globMatch(r.name, strings.ToLower(f.tool))
	}
	return false
}

// outsideProject reports an exec fact that runs outside the project, or
// where the gate cannot tell (cd "$X"): the build files, scripts and tests
// it runs there are not the ones a Bash rule or grant was given for.
func (pl *places) outsideProject(f *rfact) bool {
	if pl.env.Project == "" || f.cwd == pl.env.Project {
		return false
	}
	if f.cwd == "" {
		return true
	}
	// where the cwd leads on disk decides, also below the project root: a
	// linked checkout (/tmp vs /private/tmp) is the project, but a link in
	// it to another tree (cd vendored-link && make build, or a session
	// opened there) runs that tree's Makefile. The root itself costs no
	// syscall.
	return !within(pl.realDir(f.cwd), pl.realDir(pl.env.Project))
}

// realDir is where directory p leads on disk; for one that does not exist
// yet, its deepest existing ancestor resolved with the rest joined. Each
// rule checked asks again, so the answers are kept for the call.
func (pl *places) realDir(p string) string {
	if real, ok := pl.realDirs[p]; ok {
		return real
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		real = resolveMissing(p)
	}
	if pl.realDirs == nil {
		pl.realDirs = map[string]string{}
	}
	pl.realDirs[p] = real
	return real
}

// mayDeny reports a deny rule that a command with dynamic words could match.
func (fl *factLog) mayDeny(f *rfact) *rule {
	if f.kind != protocol.FactExec || f.static >= len(f.argv) {
		return nil
	}
	static := f.argv[:f.static]
	if f.pathExec && len(static) > 0 {
		static = append([]string{filepath.Base(static[0])}, static[1:]...)
	}
	if f.namesake != "" && len(static) > 0 {
		static = append([]string{f.namesake}, static[1:]...)
	}
	for _, r := range fl.polRules(func(p *Policy) []*rule { return p.deny }) {
		if r.kind == ruleBash && r.mayMatch(static) {
			return r
		}
	}
	return nil
}

// public renders the fact for the wire.
func (f *rfact) public() protocol.Fact {
	out := protocol.Fact{Kind: f.kind, Host: f.host, Detail: f.detail, Decision: f.dec, Risk: f.risk, HumanOnly: f.humanOnly, Reason: f.reason}
	if f.kind == protocol.FactExec {
		out.Argv = f.argv
	}
	if f.path.abs != "" {
		out.Path = f.path.abs
	} else if f.path.raw != "" {
		out.Path = f.path.raw
	}
	if f.kind == protocol.FactTool && out.Detail == "" {
		out.Detail = "tool " + f.tool
	}
	return out
}
