package gate

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

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
	a := &analyzer{factLog: factLog{places: places{env: &env, pol: env.Policy}}, owner: -1}
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
