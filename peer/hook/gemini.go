package hook

import (
	"encoding/json"
	"strings"
)

// gemini is Gemini CLI's hook protocol (docs/hooks/reference.md; hosts.md
// §3.1). BeforeTool's "allow" approves nothing (Gemini's policy engine
// still decides), so perm-peer answers deny or ask there and stays quiet
// otherwise. Exit 2 blocks with stderr as the reason; other failures let
// the tool run, so failures exit 2.
type gemini struct{}

func (gemini) name() string { return "gemini" }

type geminiInput struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	MCPContext     *struct {
		ServerName string `json:"server_name"`
		ToolName   string `json:"tool_name"`
	} `json:"mcp_context"`
	Prompt *string `json:"prompt"`
}

var geminiStages = map[string]Stage{
	"BeforeTool":  StagePreTool,
	"BeforeAgent": StagePrompt,
	"AfterTool":   StagePostTool,
}

// geminiTools are Gemini CLI's built-in tools; most carry names the gate
// knows already.
var geminiTools = map[string]hostTool{
	"run_shell_command":   {kind: "execute"},
	"read_file":           {kind: "read"},
	"read_many_files":     {kind: "read"},
	"write_file":          {kind: "edit"},
	"replace":             {kind: "edit"},
	"glob":                {kind: "search"},
	"search_file_content": {kind: "search"},
	"grep_search":         {kind: "search"},
	"list_directory":      {kind: "search"},
	"web_fetch":           {kind: "fetch"},
	"google_web_search":   {gate: "web_search", kind: "fetch"},
	"write_todos":         {gate: "todo_write", kind: "think"},
}

func (gemini) parse(raw []byte) (Event, error) {
	var in geminiInput
	if err := decodeStrict(raw, &in); err != nil {
		return Event{}, err
	}
	// Gemini's transcript is not Claude's format: no transcript reading.
	ev := Event{Name: in.HookEventName, Stage: geminiStages[in.HookEventName], SessionID: in.SessionID, Cwd: in.Cwd}
	input, err := ev.body(in.Prompt, in.ToolName, in.ToolInput)
	if err != nil || ev.Stage == StagePrompt {
		return ev, err
	}
	name := in.ToolName
	if in.MCPContext != nil && in.MCPContext.ToolName != "" {
		name = mcpName(in.MCPContext.ServerName, in.MCPContext.ToolName)
	} else if strings.HasPrefix(name, "mcp_") && !strings.HasPrefix(name, "mcp__") {
		name = "mcp__" + strings.TrimPrefix(name, "mcp_") // the server and tool split is unknown; still an MCP tool
	}
	ev.Call = toolCall(geminiTools, "", name, input)
	return ev, nil
}

type geminiOutput struct {
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

func (gemini) answer(ev Event, o Outcome) Reply {
	if ev.Stage == StagePreTool {
		switch o.Verdict {
		case Deny:
			return Reply{Stdout: marshal(geminiOutput{Decision: "deny", Reason: nonEmpty(o.Reason)})}
		case Ask:
			return Reply{Stdout: marshal(geminiOutput{Decision: "ask", Reason: o.Reason})}
		}
	}
	return Reply{Stdout: marshal(geminiOutput{})}
}

func (gemini) fail(ev Event, reason string) Reply {
	if ev.Stage == StagePrompt || ev.Stage == StagePostTool {
		return Reply{Stdout: marshal(geminiOutput{}), Stderr: reason}
	}
	return Reply{Stderr: nonEmpty(reason), Exit: 2}
}
