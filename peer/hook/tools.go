package hook

import (
	"encoding/json"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// hostTool is how a host's tool maps onto a protocol tool call: the name
// the gate knows it by (the host's own when empty) and its ACP kind.
type hostTool struct {
	gate string
	kind protocol.ToolKind
}

// claudeTools are Claude Code's built-in tools (Codex names its shell
// Bash too). Task and Agent start a subagent, and AskUserQuestion asks the
// user: neither acts by itself (the subagent's own calls come through this
// hook), so they map onto the gate's "think". A name missing here that is
// not mcp__* is unknown to the gate and never fast-pathed.
var claudeTools = map[string]hostTool{
	"Bash":            {kind: protocol.KindExecute},
	"BashOutput":      {kind: protocol.KindExecute},
	"KillShell":       {kind: protocol.KindExecute},
	"KillBash":        {kind: protocol.KindExecute},
	"Read":            {kind: protocol.KindRead},
	"NotebookRead":    {kind: protocol.KindRead},
	"Write":           {kind: protocol.KindEdit},
	"Edit":            {kind: protocol.KindEdit},
	"MultiEdit":       {kind: protocol.KindEdit},
	"NotebookEdit":    {kind: protocol.KindEdit},
	"Glob":            {kind: protocol.KindSearch},
	"Grep":            {kind: protocol.KindSearch},
	"LS":              {kind: protocol.KindSearch},
	"WebFetch":        {kind: protocol.KindFetch},
	"WebSearch":       {kind: protocol.KindFetch},
	"TodoWrite":       {kind: protocol.KindThink},
	"Task":            {gate: "think", kind: protocol.KindThink},
	"Agent":           {gate: "think", kind: protocol.KindThink},
	"AskUserQuestion": {gate: "think", kind: protocol.KindThink},
	"ExitPlanMode":    {kind: protocol.KindSwitchMode},
}

// toolCall builds the protocol tool call of a host tool from a table of
// the host's tools: MCP tools and unknown names keep their name and get no
// kind (the gate asks about what it does not know).
func toolCall(table map[string]hostTool, id, name string, input json.RawMessage) protocol.ToolCall {
	c := protocol.ToolCall{ToolCallID: id, Tool: name, RawInput: input}
	if t, ok := table[name]; ok {
		c.Kind = t.kind
		if t.gate != "" {
			c.Tool = t.gate
			c.Title = name
		}
	}
	c.Title = title(c.Title, input)
	return c
}

// title is a one-line summary for the audit: the tool's own description,
// command or path.
func title(prefix string, input json.RawMessage) string {
	var in map[string]any
	_ = json.Unmarshal(input, &in)
	for _, k := range []string{"description", "command", "file_path", "notebook_path", "path", "url", "query", "pattern"} {
		if s, ok := in[k].(string); ok && s != "" {
			if len(s) > 200 {
				s = s[:200] + "…"
			}
			if prefix != "" {
				return prefix + ": " + s
			}
			return s
		}
	}
	return prefix
}

// mcpName is an MCP tool's name in Claude's form (mcp__server__tool) from a
// host that names it mcp_server_tool or by the tool alone.
func mcpName(server, tool string) string {
	if strings.HasPrefix(tool, "mcp__") {
		return tool
	}
	if server == "" {
		server = "unknown"
	}
	return "mcp__" + server + "__" + tool
}
