package gate

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/perm-peer/perm-peer/jsonkey"
	"github.com/perm-peer/perm-peer/protocol"
)

// Env is the world a call is judged in.
type Env struct {
	Project string // absolute project root
	Cwd     string // absolute working directory of the call (defaults to Project)
	Home    string // absolute home directory
	Policy  *Policy
	// Grants are patterns (policy-rule syntax) the user answered "always" for:
	// persistent project grants and this session's cache.
	Grants []Grant
	// Protected are files no call may write (perm-peer's DB, policy files).
	Protected []string
	// Getenv looks a variable up in the environment the agent's shell
	// inherits (os.LookupEnv in the peer), to read ${XDG_STATE_HOME:-…}
	// the way that shell would. Nil: no variable is set but HOME.
	Getenv func(name string) (string, bool)
	// Dirs remembers the directory listings of the walks of recursive
	// searches across calls (nil: every walk reads the disk). The
	// long-lived peer keeps one.
	Dirs *DirCache
}

// getenv is Env.Getenv, nil-safe; HOME is always Env.Home.
func (e *Env) getenv(name string) (string, bool) {
	if name == "HOME" {
		return e.Home, e.Home != ""
	}
	if e.Getenv == nil {
		return "", false
	}
	return e.Getenv(name)
}

// Grant is one pattern that allows a call without asking.
type Grant struct {
	Pattern string
	By      protocol.DecidedBy // protocol.ByGrant or protocol.BySession
	ID      string
}

// Verdict is the gate's answer for one call.
type Verdict struct {
	Decision  protocol.Decision
	Risk      protocol.Risk
	HumanOnly bool
	// DecidedBy is floor, rule, grant, session or gate when the gate settled
	// the call; empty when the call is open and the mode decides.
	DecidedBy protocol.DecidedBy
	Reasons   []protocol.Reason
	Facts     []protocol.Fact
	// Action and Resources describe the call for humans, the judge and user
	// rules, e.g. "bash: go test ./..." on ["/repo"].
	Action    string
	Resources []string
	// Always is what an "always" answer would grant; nil when it must not be
	// offered (interpreters, shells, wrappers, compound commands, human-only).
	Always *Always
}

// Always is a grant an "always" reply would create.
type Always struct {
	Pattern string // policy-rule syntax, e.g. "Bash(go test *)"
	Covers  string // human text, e.g. "bash: go test *  (this project)"
}

// rfact is a fact under analysis: what it is, what the gate's own classes
// say about it (floor, human-only, intrinsic ask, known-safe), and finally
// the decision.
type rfact struct {
	kind     protocol.FactKind
	argv     []string
	static   int    // number of leading argv words that are not dynamic
	pathExec bool   // argv[0] is a path, not a bare name
	namesake string // the program argv[0] is another name of (grm is rm)
	wrapper  bool   // allow rules need more than the wrapper's name
	path     pathRef
	host     string
	tool     string
	detail   string
	listOnly bool   // a listing (ls, find roots): names, not contents
	line     string // argv joined, for Bash rules (computed once)
	cwd      string // where an exec fact runs ("" when unknown)
	port     string // a network fact's port, when known

	floor, human, ask, safe *protocol.Reason
	// ruleClears: a user's allow rule that names this very command clears
	// its human-only class (Bash(sudo apt-get update)): a rule is a
	// person's decision, which auto mode and the judge are not
	ruleClears bool
	// clearWord: a user's allow rule whose literal words include it clears
	// the human-only class (Bash(git rebase:*) clears git rebase's
	// history rewrite); a wildcard (Bash(git:*), Bash(*)) never does
	clearWord string
	// byHostRule: an allow rule of the host's own settings cleared it
	// (Policy.hostAllow); it covers none of the facts below it
	byHostRule bool
	open       *protocol.Reason // why it asks when nothing covers it
	parent     int              // exec fact that owns this one (-1: none)

	dec       protocol.Decision
	by        protocol.DecidedBy
	reason    *protocol.Reason
	risk      protocol.Risk
	humanOnly bool
}

func reason(code, detail string) *protocol.Reason {
	return &protocol.Reason{Code: code, Detail: detail}
}

// analyzer holds the state of one Analyze call.
type analyzer struct {
	realDirs map[string]string // realDir's answers in this call
	// cdpath: the call sets CDPATH, so a relative cd may land anywhere
	cdpath bool
	// typedInput: the text being read was typed into a process (a
	// terminal tool's input), which may be a REPL rather than a shell
	typedInput bool
	// typedSplit: typedLines is reading the lines of typed text
	typedSplit bool
	env        *Env
	pol        *Policy
	facts      []*rfact
	prot       []string
	funcs      map[string]*syntax.Stmt
	noFunc     bool            // the next exec is a command/builtin/exec inner command, which skips functions
	taint      map[string]bool // variables assigned from a secret
	secrets    map[string]bool // variables assigned a secret variable's value (x=$GITHUB_TOKEN)
	// secretParts: variables assigned a cut or rewritten secret (see cutsValue)
	secretParts map[string]bool
	vals        map[string]*varVals
	// envVals are dynamic words' values as the peer's environment expands
	// them, by the word's value as written (see envWord)
	envVals map[string][]string
	// listVars are loop variables holding one name from a project listing
	// (for f in $(git ls-files '*.go'), … | while read f): that listing's
	// projPaths, cleanPaths and secretPaths
	listVars map[string]word
	arrays   map[string][]word // a=(…) with known elements
	aliases  map[string]string // alias NAME=VALUE defined in this call
	refs     map[string]string // declare -n NAME=TARGET: assigning NAME assigns TARGET
	// allexport: set -a, so variables builtins assign reach children too
	allexport bool
	// secretEnv: the call loaded a secret file into its variables (source
	// .env, export $(cat .env)): a variable it did not set may hold a secret
	secretEnv bool
	// guessing: a runner's words are being tried as the command it runs
	// (strace -o LOG CMD): a word taken for a program is only a guess
	guessing bool
	coprocs  map[string]summary // coproc NAME …: what writing to ${NAME[1]} feeds
	written  map[string]string  // files this call wrote known text to (echo cmd > x.sh)
	// pendingStdin is what feeds the next simple command's stdin (a here-doc,
	// a here-string, the previous pipeline stage); stdin is that of the
	// command being analysed, read by shells and xargs.
	pendingStdin, stdin *stdinSrc
	tainted             map[string]bool // files written from a secret
	fetched             map[string]bool // files written by a downloader in this call
	depth               int
	nodes               int
	owner               int  // fact that owns commands parsed from a wrapper's string (-1: none)
	simple              int  // simple commands seen
	noAlways            bool // an interpreter, shell, wrapper or function is involved

	// fdText is what reading fd N gives after exec N<<<TEXT, exec N<<EOF or
	// exec N< <(…): bash <&3, or any later reader of fd 0
	fdText map[string]*stdinSrc
	shadow bool // trying a dynamic command name as each dangerous command
	// fileSearches are the hidden-file facts of recursive searches whose
	// operands are all regular files (grep -rn redis docker-compose.yml),
	// or whose scope the gate walked and found no sensitive file in, each
	// with the reason it is safe
	fileSearches []clearedSearch
}

func (a *analyzer) add(f *rfact) int {
	a.facts = append(a.facts, f)
	return len(a.facts) - 1
}

// opaque records something the gate cannot see into; it always asks.
func (a *analyzer) opaque(code, detail string, humanOnly bool) int {
	a.noAlways = true
	f := &rfact{kind: protocol.FactOpaque, detail: detail, parent: -1}
	if humanOnly {
		f.human = reason(code, detail)
	} else {
		f.ask = reason(code, detail)
	}
	return a.add(f)
}

func (a *analyzer) floorFact(code, detail string) {
	a.add(&rfact{kind: protocol.FactOpaque, detail: detail, parent: -1, floor: reason(code, detail)})
}

func (a *analyzer) humanFact(code, detail string) {
	a.noAlways = true
	a.add(&rfact{kind: protocol.FactOpaque, detail: detail, parent: -1, human: reason(code, detail)})
}

// Analyze decides one tool call. It never fails and never panics: anything
// it cannot understand asks.
func Analyze(call protocol.ToolCall, env Env) (v Verdict) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("gate panic; failing closed", "panic", r)
			v = Verdict{Decision: protocol.DecisionAsk, Risk: protocol.RiskHigh, Action: "unknown",
				Reasons: []protocol.Reason{{Code: "ask.internal", Detail: fmt.Sprint("gate error: ", r)}}}
		}
	}()
	return analyze(call, env)
}

// analyze is Analyze without the panic guard (the fuzz target calls it so a
// panic is a failure, not a silent ask).
func analyze(call protocol.ToolCall, env Env) Verdict {
	env.Project = cleanAbs(env.Project)
	env.Home = cleanAbs(env.Home)
	env.Cwd = cleanAbs(env.Cwd)
	if env.Cwd == "" {
		env.Cwd = env.Project
	}
	a := &analyzer{env: &env, pol: env.Policy, owner: -1}
	if k := jsonkey.Repeated(call.RawInput); k != "" {
		// hosts' parsers disagree on which copy wins: only a person decides
		a.humanFact(ReasonDuplicateKey, "rawInput repeats the key "+k+" (at some depth, or in another letter case)")
	}
	action := a.input(call)
	allowlist(a.facts)
	a.cloudMetadata()
	if len(a.facts) == 0 {
		a.opaque("ask.empty", "the call has nothing the gate can check", false)
	}
	a.searchesOnlyFiles()
	a.guardOwnFiles()
	guardExposure(a.facts)
	return a.verdict(action)
}

// containsFold reports whether sub (lower case ASCII) is in s, in any case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func cleanAbs(p string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
	}
	return filepath.Clean(p)
}

// verdict decides every fact and aggregates (SPEC §4 steps 1–5).
func (a *analyzer) verdict(action string) Verdict {
	grants := make([]*rule, 0, len(a.env.Grants))
	for _, g := range a.env.Grants {
		grants = append(grants, compileGrant(g.Pattern))
	}
	for _, f := range a.facts {
		a.decide(f, grants)
	}
	v := Verdict{Action: action}
	stage := 6
	for _, f := range a.facts {
		s := factStage(f)
		if s < stage {
			stage = s
		}
	}
	allAllowed := true
	for _, f := range a.facts {
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
		v.DecidedBy = a.allowedBy()
	default:
		v.Decision = protocol.DecisionAsk
	}
	// reasons: the facts that decided the call, floors and human-only
	// classes before the rest
	for _, pass := range []func(*rfact) bool{
		func(f *rfact) bool { return f.by == protocol.ByFloor || f.humanOnly },
		func(f *rfact) bool { return f.by != protocol.ByFloor && !f.humanOnly },
	} {
		for _, f := range a.facts {
			if f.dec == v.Decision && f.reason != nil && pass(f) && !hasReason(v.Reasons, f.reason) {
				v.Reasons = append(v.Reasons, *f.reason)
			}
		}
	}
	for _, f := range a.facts {
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
		v.Always = a.always() // only an ask can be answered "always"
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
func (a *analyzer) allowedBy() protocol.DecidedBy {
	best := protocol.ByGate
	rank := map[protocol.DecidedBy]int{protocol.ByGate: 0, protocol.ByRule: 1, protocol.ByGrant: 2, protocol.BySession: 3}
	for _, f := range a.facts {
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
func (a *analyzer) decide(f *rfact, grants []*rule) {
	set := func(d protocol.Decision, by protocol.DecidedBy, r *protocol.Reason, risk protocol.Risk) {
		f.dec, f.by, f.reason, f.risk = d, by, r, risk
	}
	if f.floor != nil {
		set(protocol.DecisionDeny, protocol.ByFloor, f.floor, protocol.RiskCritical)
		return
	}
	if r := a.match(f, a.polRules(func(p *Policy) []*rule { return p.deny }), true); r != nil {
		set(protocol.DecisionDeny, protocol.ByRule, &protocol.Reason{Code: "rule.deny", Detail: "denied by policy", Rule: r.src}, protocol.RiskHigh)
		return
	}
	if r := a.match(f, a.polRules(func(p *Policy) []*rule { return p.ask }), true); r != nil {
		set(protocol.DecisionAsk, "", &protocol.Reason{Code: "rule.ask", Detail: "the policy asks the user", Rule: r.src}, protocol.RiskMedium)
		f.humanOnly = true
		return
	}
	if f.human != nil && f.ask == nil && (f.ruleClears || f.clearWord != "") {
		// a flag-policed variant (git -c x rebase) is not what the rule
		// allowed; the host's own rules (Policy.hostAllow) count here only
		allow := a.polRules(func(p *Policy) []*rule { return p.allow })
		for i, r := range append(allow[:len(allow):len(allow)], a.polRules((*Policy).hostRules)...) {
			if (f.clearWord == "" || slices.Contains(r.lits, f.clearWord)) && a.matchOne(f, r, false) {
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
	if r := a.mayDeny(f); r != nil {
		set(protocol.DecisionAsk, "", &protocol.Reason{Code: "ask.may-match-deny", Detail: "dynamic words could match a deny rule", Rule: r.src}, protocol.RiskHigh)
		return
	}
	if f.ask != nil {
		set(protocol.DecisionAsk, "", f.ask, protocol.RiskMedium)
		return
	}
	for i, g := range grants {
		if g != nil && a.matchOne(f, g, false) {
			by := a.env.Grants[i].By
			if by != protocol.BySession {
				by = protocol.ByGrant
			}
			set(protocol.DecisionAllow, by, &protocol.Reason{Code: string(by), Detail: "covered by " + string(by), Rule: g.src}, protocol.RiskLow)
			return
		}
	}
	if r := a.match(f, a.polRules(func(p *Policy) []*rule { return p.allow }), false); r != nil {
		set(protocol.DecisionAllow, protocol.ByRule, &protocol.Reason{Code: "rule.allow", Detail: "allowed by policy", Rule: r.src}, protocol.RiskLow)
		return
	}
	if f.parent >= 0 && f.parent < len(a.facts) {
		// a host rule cleared only the parent's human-only class: what the
		// command runs is the host's to decide, as without perm-peer
		if p := a.facts[f.parent]; p.dec == protocol.DecisionAllow && p.by != protocol.ByGate && !p.byHostRule && !otherHost(f, p) {
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

func (a *analyzer) polRules(get func(*Policy) []*rule) []*rule {
	if a.pol == nil {
		return nil
	}
	return get(a.pol)
}

// match returns the first rule of list that applies to f.
func (a *analyzer) match(f *rfact, list []*rule, restrictive bool) *rule {
	for _, r := range list {
		if a.matchOne(f, r, restrictive) {
			return r
		}
	}
	return nil
}

// matchOne applies one rule to one fact. Restrictive (deny, ask) matching
// also sees through path executables (/usr/bin/git is git) and ignores case
// in paths; allowing matching does neither.
func (a *analyzer) matchOne(f *rfact, r *rule, restrictive bool) bool {
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
			if a.outsideProject(f) {
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
			m := r.matchPath(p, a.env.Project, a.env.Home, restrictive)
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
func (a *analyzer) outsideProject(f *rfact) bool {
	if a.env.Project == "" || f.cwd == a.env.Project {
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
	return !within(a.realDir(f.cwd), a.realDir(a.env.Project))
}

// realDir is where directory p leads on disk; for one that does not exist
// yet, its deepest existing ancestor resolved with the rest joined. Each
// rule checked asks again, so the answers are kept for the call.
func (a *analyzer) realDir(p string) string {
	if real, ok := a.realDirs[p]; ok {
		return real
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		real = resolveMissing(p)
	}
	if a.realDirs == nil {
		a.realDirs = map[string]string{}
	}
	a.realDirs[p] = real
	return real
}

// mayDeny reports a deny rule that a command with dynamic words could match.
func (a *analyzer) mayDeny(f *rfact) *rule {
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
	for _, r := range a.polRules(func(p *Policy) []*rule { return p.deny }) {
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
