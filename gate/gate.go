package gate

import (
	"encoding/json"
	"path/filepath"
	"strings"

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

// Analyze decides one tool call. It never fails: anything it cannot
// understand asks.
//
// STUB: walking-skeleton cut; the full gate replaces it.
func Analyze(call protocol.ToolCall, env Env) Verdict {
	var in map[string]any
	_ = json.Unmarshal(call.RawInput, &in)
	tool := strings.ToLower(call.Tool)
	if cmd, ok := in["command"].(string); ok {
		v := Verdict{Decision: protocol.DecisionAsk, Risk: protocol.RiskMedium, Action: tool + ": " + cmd}
		f := strings.Fields(cmd)
		if len(f) == 3 && f[0] == "rm" && f[2] == "/" {
			v.Decision, v.Risk, v.DecidedBy = protocol.DecisionDeny, protocol.RiskCritical, protocol.ByFloor
			v.Reasons = []protocol.Reason{{Code: "floor.rm-root", Detail: "recursive deletion of /"}}
			return v
		}
		for _, g := range env.Grants {
			if g.Pattern == "Bash("+cmd+")" {
				v.Decision, v.DecidedBy = protocol.DecisionAllow, g.By
				return v
			}
		}
		v.Always = &Always{Pattern: "Bash(" + cmd + ")", Covers: "bash: " + cmd + "  (this project)"}
		return v
	}
	if p, ok := in["path"].(string); ok && (tool == "read" || call.Kind == protocol.KindRead) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.Project, p)
		}
		if strings.HasPrefix(filepath.Clean(p)+"/", env.Project+"/") {
			return Verdict{Decision: protocol.DecisionAllow, Risk: protocol.RiskLow, DecidedBy: protocol.ByGate, Action: "read: " + p}
		}
	}
	return Verdict{Decision: protocol.DecisionAsk, Risk: protocol.RiskMedium, Action: tool}
}
