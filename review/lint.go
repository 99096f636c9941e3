package review

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/protocol"
)

// Finding is one problem policy lint found in a policy file.
type Finding struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	// Severity is error (the file does not load, or an example fails) or
	// warning (it loads, but a rule cannot do what it says).
	Severity string `json:"severity"`
	Message  string `json:"message"`
}

// Lint checks the user policy and project p's policy: that they load, that
// each rule can match and is not made useless by a floor, a deny rule or
// the human-only class, duplicates, rules another rule already covers, a
// project file that tries to loosen, and the files' examples.
func (r *Reviewer) Lint(p Project) ([]Finding, error) {
	userFile, projectFile := r.userPolicy, ProjectPolicyPath(p.Root)
	pol, err := gate.LoadPolicyUnchecked(userFile, projectFile, p.Root)
	if err != nil {
		return []Finding{{File: fileOf(err.Error()), Severity: "error", Message: err.Error()}}, nil
	}
	l := &linter{r: r, p: p, pol: pol}
	l.lintFile(userFile, pol.User, false)
	l.lintFile(projectFile, pol.Project, !pol.Trusted())
	for _, ex := range pol.CheckExamples(r.home) {
		if !ex.OK {
			l.add(ex.File, ex.Pointer, "error", fmt.Sprintf("example %s is %s, it wants %s (%s)", exampleText(ex.Example), ex.Got, ex.Example.Want, ex.Why))
		}
	}
	sort.SliceStable(l.out, func(i, j int) bool {
		if l.out[i].File != l.out[j].File {
			return l.out[i].File > l.out[j].File // the user file (config dir) usually sorts after a project
		}
		return l.out[i].Line < l.out[j].Line
	})
	return l.out, nil
}

var fileRe = regexp.MustCompile(`^policy (\S+?):\d`)

func fileOf(msg string) string {
	if m := fileRe.FindStringSubmatch(msg); m != nil {
		return m[1]
	}
	return ""
}

type linter struct {
	r   *Reviewer
	p   Project
	pol *gate.Policy
	out []Finding
	raw map[string][]byte
}

func (l *linter) add(file, ptr, severity, msg string) {
	f := Finding{File: file, Pointer: ptr, Severity: severity, Message: msg}
	if file != "" && ptr != "" {
		if l.raw == nil {
			l.raw = map[string][]byte{}
		}
		if _, ok := l.raw[file]; !ok {
			l.raw[file], _ = os.ReadFile(file)
		}
		f.Line = lineOf(l.raw[file], ptr)
	}
	l.out = append(l.out, f)
}

// lintFile checks one file's rules; untrusted marks a project file whose
// loosening entries the peer ignores.
func (l *linter) lintFile(file string, pol protocol.Policy, untrustedProject bool) {
	if file == "" {
		return
	}
	project := file == ProjectPolicyPath(l.p.Root)
	if project {
		if untrustedProject {
			for i, s := range pol.Allow {
				l.add(file, fmt.Sprintf("/allow/%d", i), "warning", fmt.Sprintf("allow %s is ignored: a project's file may not loosen the user's policy (the user policy's trustedProjects can list %s)", s, l.p.Root))
			}
			if pol.Judge != nil {
				l.add(file, "/judge", "warning", "judge is ignored: only the user policy configures the judge")
			}
		}
		for _, k := range []struct {
			set bool
			key string
		}{{pol.Mode != "", "mode"}, {pol.Tier != "", "tier"}, {pol.AskTimeoutMs != 0, "askTimeoutMs"}, {len(pol.TrustedProjects) > 0, "trustedProjects"}} {
			if k.set {
				l.add(file, "/"+k.key, "warning", k.key+" is ignored in a project's file: only the user policy sets it")
			}
		}
	}
	lists := []struct {
		name  string
		rules []string
	}{{"deny", pol.Deny}, {"ask", pol.Ask}, {"allow", pol.Allow}}
	seen := map[string]string{}
	for _, list := range lists {
		for i, s := range list.rules {
			ptr := fmt.Sprintf("/%s/%d", list.name, i)
			key := strings.ToLower(strings.Join(strings.Fields(s), " "))
			if where, dup := seen[key]; dup {
				msg := fmt.Sprintf("%s repeats %s", s, where)
				if other := strings.Split(where, "/")[1]; other != list.name {
					msg = fmt.Sprintf("%s is also in %s (%s), which beats %s: this one never applies", s, other, where, list.name)
				}
				l.add(file, ptr, "warning", msg)
				continue
			}
			seen[key] = ptr
			if msg := unknownTool(s); msg != "" {
				l.add(file, ptr, "warning", msg)
				continue
			}
			if list.name == "allow" && project && untrustedProject {
				continue // already reported as ignored
			}
			if msg := l.useless(list.name, s); msg != "" {
				l.add(file, ptr, "warning", msg)
			}
		}
	}
}

// unknownTool flags a Tool(NAME) or bare NAME rule no tool can match.
func unknownTool(s string) string {
	head, arg, hasArg := strings.Cut(strings.TrimSpace(s), "(")
	switch strings.ToLower(head) {
	case "bash", "shell", "read", "write", "edit", "webfetch":
		return ""
	case "tool":
		if !hasArg {
			return ""
		}
		head = strings.TrimSuffix(arg, ")")
	}
	if gate.KnownTool(head) {
		return ""
	}
	return fmt.Sprintf("%s names no tool perm-peer knows (a typo? tool names are Bash, Read, Write, Edit, Grep, Glob, WebFetch, WebSearch, mcp__server__tool, …)", s)
}

// useless decides a sample call the rule is written for and says why the
// rule does not give it its outcome ("" when it does).
func (l *linter) useless(list, s string) string {
	call, ok := sampleCall(s)
	if !ok {
		return ""
	}
	v := gate.Analyze(call, l.r.env(l.p, l.pol, "", nil))
	d := decider(v, l.pol)
	switch list {
	case "allow":
		switch {
		case v.Decision == protocol.DecisionAllow && d.Kind == "rule" && d.Rule != s:
			return fmt.Sprintf("%s is already covered by allow %s", s, d.Rule)
		case v.Decision == protocol.DecisionAllow && d.Kind == "gate":
			return fmt.Sprintf("%s adds nothing: %s is known safe without it", s, sampleText(call))
		case v.Decision == protocol.DecisionAllow:
			return ""
		case d.Kind == "floor":
			return fmt.Sprintf("%s can never allow %s: a hard floor denies it (%s)", s, sampleText(call), d.Code)
		case v.Decision == protocol.DecisionDeny:
			return fmt.Sprintf("%s is shadowed: %s denies %s, and a deny beats every allow", s, d.Words, sampleText(call))
		case v.HumanOnly:
			return fmt.Sprintf("%s can never allow %s: only a person may approve it (%s)", s, sampleText(call), d.Code)
		case d.Code == "rule.ask":
			return fmt.Sprintf("%s is shadowed: ask %s beats it for %s", s, d.Rule, sampleText(call))
		default:
			return fmt.Sprintf("%s does not allow %s: %s", s, sampleText(call), d.Words)
		}
	case "ask":
		if v.Decision == protocol.DecisionDeny {
			return fmt.Sprintf("%s never asks for %s: %s denies it", s, sampleText(call), d.Words)
		}
	case "deny":
		if v.Decision == protocol.DecisionDeny && d.Kind == "rule" && d.Rule != s {
			return fmt.Sprintf("%s is already covered by deny %s", s, d.Rule)
		}
	}
	return ""
}

// sampleCall is a call a rule is written for: its pattern with each *
// filled in.
func sampleCall(s string) (protocol.ToolCall, bool) {
	head, arg, hasArg := strings.Cut(strings.TrimSpace(s), "(")
	arg = strings.TrimSuffix(arg, ")")
	fill := func(p string) string {
		p = strings.TrimSuffix(strings.TrimSuffix(p, " *"), ":*")
		p = strings.ReplaceAll(p, "**", "a/b")
		return strings.NewReplacer("*", "x", "?", "x", "[", "", "]", "", "{", "", "}", "").Replace(p)
	}
	input := func(k, v string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{k: v})
		return b
	}
	switch strings.ToLower(head) {
	case "bash", "shell":
		if !hasArg || strings.TrimSpace(fill(arg)) == "" {
			return protocol.ToolCall{}, false
		}
		return protocol.ToolCall{Tool: "bash", RawInput: input("command", fill(arg))}, true
	case "read", "write", "edit":
		if !hasArg {
			return protocol.ToolCall{}, false
		}
		tool := "read"
		if strings.ToLower(head) != "read" {
			tool = "write"
		}
		return protocol.ToolCall{Tool: tool, RawInput: input("path", fill(arg))}, true
	case "webfetch":
		host, ok := strings.CutPrefix(arg, "domain:")
		if !ok {
			return protocol.ToolCall{}, false
		}
		return protocol.ToolCall{Tool: "webfetch", RawInput: input("url", "https://"+strings.ReplaceAll(host, "*", "www")+"/")}, true
	}
	return protocol.ToolCall{}, false
}

func sampleText(call protocol.ToolCall) string {
	var m map[string]string
	_ = json.Unmarshal(call.RawInput, &m)
	for _, k := range []string{"command", "path", "url"} {
		if v, ok := m[k]; ok {
			if k == "command" {
				return fmt.Sprintf("%q", v)
			}
			return fmt.Sprintf("%s %q", call.Tool, v)
		}
	}
	return call.Tool
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

// lineOf is the 1-based line of the value at a JSON pointer (0 when absent).
func lineOf(data []byte, ptr string) int {
	start, end := 0, len(data)
	at := -1
	for _, part := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if idx, err := strconv.Atoi(part); err == nil {
			off := elementOffset(data[start:end], idx)
			if off < 0 {
				return 0
			}
			at, start = start+off, start+off
			continue
		}
		members, _, err := topMembers(data[start:end])
		if err != nil {
			return 0
		}
		found := false
		for _, m := range members {
			if m.key == part {
				at = start + m.keyStart
				start, end = start+m.valueStart, start+m.valueEnd
				found = true
				break
			}
		}
		if !found {
			return 0
		}
	}
	if at < 0 {
		return 0
	}
	return 1 + strings.Count(string(data[:at]), "\n")
}

// elementOffset is the offset of element idx of the array arr, or -1.
func elementOffset(arr []byte, idx int) int {
	dec := json.NewDecoder(strings.NewReader(string(arr)))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return -1
	}
	for i := 0; dec.More(); i++ {
		start := skipWS(arr, int(dec.InputOffset()))
		if i == idx {
			return start
		}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return -1
		}
	}
	return -1
}

// Examples checks every example of the user policy and project p's policy
// (all of them, where loading the policy stops at the first that fails).
func (r *Reviewer) Examples(p Project) ([]gate.ExampleResult, error) {
	pol, err := gate.LoadPolicyUnchecked(r.userPolicy, ProjectPolicyPath(p.Root), p.Root)
	if err != nil {
		return nil, err
	}
	return pol.CheckExamples(r.home), nil
}
