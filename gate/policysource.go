package gate

import (
	"fmt"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// Files are the user and project policy files the policy was loaded from
// (absolute; "" when it was built by PolicyFrom or a file was not named).
func (p *Policy) Files() (user, project string) {
	if p == nil {
		return "", ""
	}
	return p.userFile, p.projectFile
}

// Trusted reports whether the user policy trusts the project, so the
// project file's allow rules and judge settings apply.
func (p *Policy) Trusted() bool { return p != nil && p.trusted }

// RuleOrigin says where a rule was written: the file and 1-based line of the
// first entry with that text in list ("allow", "ask" or "deny"), the user
// file first (its rules come first in every list, as the gate matches
// them). ok is false when no file holds it (a policy built by PolicyFrom).
func (p *Policy) RuleOrigin(list, rule string) (file string, line int, ok bool) {
	if p == nil {
		return "", 0, false
	}
	for _, f := range []struct {
		file  string
		rules []string
	}{{p.userFile, listOf(p.User, list)}, {p.projectFile, listOf(p.Project, list)}} {
		for i, r := range f.rules {
			if r != rule || f.file == "" {
				continue
			}
			data, err := readPolicyFile(f.file)
			if err != nil || data == nil {
				return f.file, 0, true
			}
			line, _ := lineCol(data, pointerOffset(data, fmt.Sprintf("/%s/%d", list, i)))
			return f.file, line, true
		}
	}
	return "", 0, false
}

func listOf(pol protocol.Policy, name string) []string {
	switch strings.ToLower(name) {
	case "allow":
		return pol.Allow
	case "ask":
		return pol.Ask
	case "deny":
		return pol.Deny
	}
	return nil
}

// KnownTool reports whether a Tool(NAME) rule's name can match a tool the
// gate knows: one of its tool names (any case), an MCP tool (mcp__…), or a
// name glob.
func KnownTool(name string) bool {
	n := strings.ToLower(name)
	if _, ok := toolNames[n]; ok {
		return true
	}
	return strings.HasPrefix(n, "mcp__") || strings.Contains(n, "*") || n == "task" || n == "agent"
}
