package hook

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// cursor is Cursor's hook protocol (cursor.com/docs/agent/hooks; hosts.md
// §7): {"permission":"allow"|"deny"|"ask"} before a shell command, an MCP
// call or a file read. Exit 2 blocks; invalid output may not, so failures
// print a JSON deny and exit 2.
type cursor struct{}

func (cursor) name() string { return "cursor" }

type cursorInput struct {
	HookEventName  string          `json:"hook_event_name"`
	ConversationID string          `json:"conversation_id"`
	GenerationID   string          `json:"generation_id"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	Cwd            string          `json:"cwd"`
	Command        string          `json:"command"`
	FilePath       string          `json:"file_path"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	URL            string          `json:"url"`
	Prompt         *string         `json:"prompt"`
}

var cursorStages = map[string]Stage{
	"beforeShellExecution": StagePreTool,
	"beforeReadFile":       StagePreTool,
	"beforeMCPExecution":   StagePreTool,
	"beforeSubmitPrompt":   StagePrompt,
	"afterShellExecution":  StagePostTool,
	"afterMCPExecution":    StagePostTool,
}

func (cursor) parse(raw []byte) (Event, error) {
	var in cursorInput
	if err := decodeStrict(raw, &in); err != nil {
		return Event{}, err
	}
	cwd := in.Cwd
	if cwd == "" && len(in.WorkspaceRoots) > 0 {
		cwd = in.WorkspaceRoots[0]
	}
	ev := Event{Name: in.HookEventName, Stage: cursorStages[in.HookEventName], SessionID: in.ConversationID, Cwd: cwd,
		CanAsk: in.HookEventName != "beforeReadFile"}
	if err := common(in.HookEventName, in.ConversationID, cwd); err != nil {
		return ev, err
	}
	if ev.Stage == stageUnknown {
		return ev, fmt.Errorf("unknown hook event %q", in.HookEventName)
	}
	var err error
	switch in.HookEventName {
	case "beforeSubmitPrompt":
		if in.Prompt == nil {
			return ev, errors.New("beforeSubmitPrompt without a prompt")
		}
		ev.Prompt = *in.Prompt
	case "beforeShellExecution", "afterShellExecution":
		if strings.TrimSpace(in.Command) == "" {
			return ev, fmt.Errorf("%s without a command", in.HookEventName)
		}
		ev.Call = toolCall(claudeTools, "", "Bash", marshalInput(map[string]string{"command": in.Command, "cwd": in.Cwd}))
	case "beforeReadFile":
		if in.FilePath == "" {
			return ev, errors.New("beforeReadFile without a file_path")
		}
		p := in.FilePath
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		ev.Call = toolCall(claudeTools, "", "Read", marshalInput(map[string]string{"file_path": p}))
	default: // MCP
		if in.ToolName == "" {
			return ev, fmt.Errorf("%s without a tool_name", in.HookEventName)
		}
		input, ierr := cursorToolInput(in.ToolInput)
		if ierr != nil {
			return ev, ierr
		}
		ev.Call = toolCall(nil, "", mcpName("cursor", in.ToolName), input)
	}
	return ev, err
}

// cursorToolInput accepts the MCP input as an object or as a string that
// holds one (Cursor has sent both).
func cursorToolInput(raw json.RawMessage) (json.RawMessage, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	return toolInput(raw)
}

func marshalInput(m map[string]string) json.RawMessage {
	for k, v := range m {
		if v == "" {
			delete(m, k)
		}
	}
	b, _ := json.Marshal(m)
	return b
}

type cursorOutput struct {
	Permission   string `json:"permission,omitempty"`
	UserMessage  string `json:"user_message,omitempty"`
	AgentMessage string `json:"agent_message,omitempty"`
	Continue     *bool  `json:"continue,omitempty"`
}

func (cursor) answer(ev Event, o Outcome) Reply {
	switch ev.Stage {
	case StagePrompt:
		yes := true
		return Reply{Stdout: marshal(cursorOutput{Continue: &yes})}
	case StagePreTool:
		switch o.Verdict {
		case Allow:
			return Reply{Stdout: marshal(cursorOutput{Permission: "allow"})}
		case Deny:
			return Reply{Stdout: marshal(cursorOutput{Permission: "deny", UserMessage: o.Reason, AgentMessage: o.Reason})}
		}
		if o.Verdict == Ask {
			return Reply{Stdout: marshal(cursorOutput{Permission: "ask", UserMessage: o.Reason})}
		}
	}
	return Reply{Stdout: marshal(cursorOutput{})}
}

func (cursor) fail(ev Event, reason string) Reply {
	switch ev.Stage {
	case StagePrompt:
		yes := true
		return Reply{Stdout: marshal(cursorOutput{Continue: &yes}), Stderr: reason}
	case StagePostTool:
		return Reply{Stdout: marshal(cursorOutput{}), Stderr: reason}
	}
	reason = nonEmpty(reason)
	return Reply{Stdout: marshal(cursorOutput{Permission: "deny", UserMessage: reason, AgentMessage: reason}), Stderr: reason, Exit: 2}
}
