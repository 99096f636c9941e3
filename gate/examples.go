package gate

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/perm-peer/perm-peer/protocol"
)

// Outcome is what the steps of the pipeline that need neither a judge nor
// a person (SPEC §4, 1–6) make of a verdict under the policy's mode: deny,
// allow, or ask (a person, or the judge in ai mode, decides).
func (p *Policy) Outcome(v Verdict) protocol.Decision {
	if v.Decision != protocol.DecisionAsk {
		return v.Decision
	}
	switch p.Mode() {
	case protocol.ModeFull:
		return protocol.DecisionAllow
	case protocol.ModeAuto:
		if !v.HumanOnly {
			return protocol.DecisionAllow
		}
	}
	return protocol.DecisionAsk
}

// ExampleResult is one policy example checked.
type ExampleResult struct {
	File    string                 `json:"file"`
	Line    int                    `json:"line"`
	Pointer string                 `json:"pointer"` // /examples/N
	Example protocol.PolicyExample `json:"example"`
	Got     protocol.Decision      `json:"got"`
	// Why names what decided (a reason code and its rule or detail).
	Why string `json:"why"`
	OK  bool   `json:"ok"`
}

// CheckExamples decides every example of the user and project files in
// the project root (as its cwd), with home as the home directory and no
// grants, and compares the outcome with the one wanted.
func (p *Policy) CheckExamples(home string) []ExampleResult {
	if p == nil {
		return nil
	}
	var out []ExampleResult
	for _, f := range []struct {
		file string
		pol  protocol.Policy
	}{{p.userFile, p.User}, {p.projectFile, p.Project}} {
		var data []byte
		if f.file != "" && len(f.pol.Examples) > 0 {
			data, _ = readPolicyFile(f.file)
		}
		for i, ex := range f.pol.Examples {
			r := ExampleResult{File: f.file, Pointer: fmt.Sprintf("/examples/%d", i), Example: ex}
			if data != nil {
				r.Line, _ = lineCol(data, pointerOffset(data, r.Pointer))
			}
			v := Analyze(exampleCall(ex), Env{Project: p.root, Cwd: p.root, Home: home, Policy: p})
			r.Got, r.Why = p.Outcome(v), verdictWhy(v)
			r.OK = string(r.Got) == ex.Want
			out = append(out, r)
		}
	}
	return out
}

// exampleCall is the tool call an example describes.
func exampleCall(ex protocol.PolicyExample) protocol.ToolCall {
	var in map[string]string
	call := protocol.ToolCall{Tool: ex.Tool}
	switch {
	case ex.Call != "":
		call.Tool, in = "bash", map[string]string{"command": ex.Call}
	case ex.Path != "":
		in = map[string]string{"path": ex.Path}
	default:
		in = map[string]string{"url": ex.URL}
	}
	call.RawInput, _ = json.Marshal(in)
	return call
}

// verdictWhy is the reason of the first fact carrying the verdict's decision.
func verdictWhy(v Verdict) string {
	for _, f := range v.Facts {
		if f.Decision == v.Decision && f.Reason != nil {
			why := f.Reason.Code
			if f.Reason.Rule != "" {
				why += " " + f.Reason.Rule
			} else if f.Reason.Detail != "" {
				why += ": " + f.Reason.Detail
			}
			return why
		}
	}
	return ""
}

// checkExamplesAtLoad fails a policy whose examples do not hold, naming
// the first that does not.
func (p *Policy) checkExamplesAtLoad() error {
	if len(p.User.Examples)+len(p.Project.Examples) == 0 {
		return nil
	}
	home, _ := os.UserHomeDir()
	for _, r := range p.CheckExamples(home) {
		if !r.OK {
			return fmt.Errorf("policy %s:%d: %s: %s is %s, the example wants %s (%s); fix the rules or the example (perm-peer policy test)",
				r.File, r.Line, r.Pointer, exampleText(r.Example), r.Got, r.Example.Want, r.Why)
		}
	}
	return nil
}

func exampleText(ex protocol.PolicyExample) string {
	switch {
	case ex.Call != "":
		return fmt.Sprintf("%q", ex.Call)
	case ex.Path != "":
		return fmt.Sprintf("%s %q", ex.Tool, ex.Path)
	}
	return fmt.Sprintf("%s %q", ex.Tool, ex.URL)
}
