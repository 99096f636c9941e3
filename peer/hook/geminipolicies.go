package hook

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// geminiPolicyRules are the shell prefixes the allow rules of the user's
// own Gemini policy files allow: [[rule]] tables with toolName =
// "run_shell_command", decision = "allow" and a commandPrefix (a string or
// a list), in ~/.gemini/policies/*.toml (packages/core/src/policy/
// toml-loader.ts, config.ts; gemini-cli 0.61.0). Gemini reads that
// directory only when no settings layer sets policyPaths (nor the
// --policy flag, which the hook cannot see). A rule limited to some modes,
// to interactive or headless runs, to a subagent, an MCP server or tool
// annotations, or matched by a regular expression is not translated. A
// file is read only when it is nothing but such tables of plain keys and
// one-line literal values; any other file is left out whole, as Gemini
// leaves out a file that fails its schema.
func geminiPolicyRules(geminiDir string) []string {
	files, err := filepath.Glob(filepath.Join(geminiDir, "policies", "*.toml"))
	if err != nil {
		slog.Warn("Gemini CLI policies ignored", "err", err)
		return nil
	}
	sort.Strings(files)
	var rules []string
	for _, f := range files {
		data, ok := readUserFile("Gemini CLI", f)
		if !ok {
			continue
		}
		tables, err := parsePolicyTables(string(data))
		if err != nil {
			slog.Warn("Gemini CLI policy file left out: perm-peer reads only plain [[rule]] tables", "file", f, "err", err)
			continue
		}
		for i, t := range tables {
			rules = append(rules, t.shellAllowRules(f, i)...)
		}
	}
	return rules
}

// policyTable is one [[rule]] table: each key's value is a string, an
// integer, a boolean (kept as written) or a list of strings.
type policyTable map[string]policyValue

type policyValue struct {
	list   []string
	scalar string
	kind   byte // 's' string, 'i' integer, 'b' boolean, 'l' list
}

// geminiRuleKeys are the keys of Gemini's PolicyRuleSchema.
var geminiRuleKeys = map[string]bool{
	"toolName": true, "subagent": true, "mcpName": true, "argsPattern": true, "commandPrefix": true, "commandRegex": true,
	"decision": true, "priority": true, "modes": true, "interactive": true, "toolAnnotations": true,
	"allowRedirection": true, "allow_redirection": true, "denyMessage": true, "deny_message": true,
}

// geminiNarrowingKeys limit where a rule applies; a rule with one is not
// translated (the hook cannot tell the mode, the run, the subagent).
var geminiNarrowingKeys = []string{"subagent", "mcpName", "argsPattern", "commandRegex", "modes", "interactive", "toolAnnotations"}

// check is Gemini's schema, as far as a file is accepted whole or not.
func (t policyTable) check() error {
	for k := range t {
		if !geminiRuleKeys[k] {
			return fmt.Errorf("key %s is not read", k)
		}
	}
	if v, ok := t["toolName"]; !ok || v.kind != 's' && v.kind != 'l' {
		return fmt.Errorf("toolName must be a string or a list")
	}
	switch v := t["decision"]; {
	case v.kind != 's':
		return fmt.Errorf("decision must be a string")
	case v.scalar != "allow" && v.scalar != "deny" && v.scalar != "ask_user":
		return fmt.Errorf("decision %q", v.scalar)
	}
	p, ok := t["priority"]
	if !ok || p.kind != 'i' {
		return fmt.Errorf("priority must be an integer")
	}
	if n, err := strconv.Atoi(p.scalar); err != nil || n > 999 {
		return fmt.Errorf("priority %s is outside 0..999", p.scalar)
	}
	if v, ok := t["commandPrefix"]; ok && v.kind != 's' && v.kind != 'l' {
		return fmt.Errorf("commandPrefix must be a string or a list")
	}
	return nil
}

// shellAllowRules are the gate rules of an allow rule for the shell tool
// with command prefixes and nothing that narrows it.
func (t policyTable) shellAllowRules(file string, i int) []string {
	tool, prefix := t["toolName"], t["commandPrefix"]
	if t["decision"].scalar != "allow" || tool.kind != 's' || tool.scalar != "run_shell_command" || prefix.kind == 0 {
		return nil
	}
	src := fmt.Sprintf("[[rule]] #%d", i+1)
	for _, k := range geminiNarrowingKeys {
		if _, ok := t[k]; ok {
			dropRule("Gemini CLI", file, src, "limited by "+k)
			return nil
		}
	}
	prefixes := prefix.list
	if prefix.kind == 's' {
		prefixes = []string{prefix.scalar}
	}
	var out []string
	for _, p := range prefixes {
		if r, ok := commandPrefixRule(strings.Split(p, " ")); ok {
			out = append(out, r)
		} else {
			dropRule("Gemini CLI", file, src, "not a plain command prefix")
		}
	}
	return out
}

var (
	tomlKeyLine = regexp.MustCompile(`^([A-Za-z0-9_-]+)[ \t]*=[ \t]*(.*?)[ \t]*$`)
	tomlInt     = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
)

// parsePolicyTables reads a TOML text that is nothing but [[rule]] tables
// whose lines are KEY = VALUE with a bare key and a one-line literal value
// (a "…" string without escapes, a '…' string, an integer, true or false,
// or a one-line list of such strings), each rule checked against Gemini's
// schema. Anything else is an error: the text's meaning is then TOML's, not
// a reading perm-peer can vouch for.
func parsePolicyTables(text string) ([]policyTable, error) {
	var tables []policyTable
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if line == "[[rule]]" {
			tables = append(tables, policyTable{})
			continue
		}
		m := tomlKeyLine.FindStringSubmatch(line)
		if m == nil || len(tables) == 0 {
			return nil, fmt.Errorf("line %d: only [[rule]] tables of KEY = VALUE lines are read", n+1)
		}
		t := tables[len(tables)-1]
		if _, dup := t[m[1]]; dup {
			return nil, fmt.Errorf("line %d: %s given twice", n+1, m[1])
		}
		v, err := tomlValue(stripTOMLComment(m[2]))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		t[m[1]] = v
	}
	for i, t := range tables {
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("[[rule]] #%d: %w", i+1, err)
		}
	}
	return tables, nil
}

// stripTOMLComment drops a trailing # comment outside strings.
func stripTOMLComment(s string) string {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '#':
			return strings.TrimSpace(s[:i])
		}
	}
	return s
}

// tomlValue reads one literal value.
func tomlValue(s string) (policyValue, error) {
	switch {
	case s == "true" || s == "false":
		return policyValue{scalar: s, kind: 'b'}, nil
	case tomlInt.MatchString(s):
		return policyValue{scalar: s, kind: 'i'}, nil
	case strings.HasPrefix(s, "["):
		if !strings.HasSuffix(s, "]") {
			return policyValue{}, fmt.Errorf("a list must close on its line")
		}
		var list []string
		inner := strings.TrimSpace(s[1 : len(s)-1])
		for inner != "" {
			str, rest, err := tomlString(inner)
			if err != nil {
				return policyValue{}, err
			}
			list = append(list, str)
			rest = strings.TrimSpace(rest)
			if rest != "" && !strings.HasPrefix(rest, ",") {
				return policyValue{}, fmt.Errorf("want , between list items")
			}
			inner = strings.TrimSpace(strings.TrimPrefix(rest, ","))
		}
		return policyValue{list: list, kind: 'l'}, nil
	}
	str, rest, err := tomlString(s)
	if err != nil {
		return policyValue{}, err
	}
	if strings.TrimSpace(rest) != "" {
		return policyValue{}, fmt.Errorf("text after a string")
	}
	return policyValue{scalar: str, kind: 's'}, nil
}

// tomlString reads a "…" string without escapes or a '…' string at the
// start of s (not a multi-line one).
func tomlString(s string) (str, rest string, err error) {
	if s == "" || s[0] != '"' && s[0] != '\'' {
		return "", "", fmt.Errorf("only strings, integers and booleans are read")
	}
	if strings.HasPrefix(s, `"""`) || strings.HasPrefix(s, `'''`) {
		return "", "", fmt.Errorf("multi-line strings are not read")
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", "", fmt.Errorf("string not closed")
	}
	str = s[1 : 1+end]
	if s[0] == '"' && strings.ContainsRune(str, '\\') {
		return "", "", fmt.Errorf("escapes are not read")
	}
	return str, s[2+end:], nil
}
