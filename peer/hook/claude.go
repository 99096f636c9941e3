package hook

import (
	"encoding/json"
	"os"
)

// claude is Claude Code's hook protocol (code.claude.com/docs/en/hooks;
// hosts.md §2). Exit 2 blocks PreToolUse with stderr as the reason; any
// other non-zero exit lets the tool run, so failures exit 2. PermissionRequest
// does not honour exit 2: it fails with a JSON deny.
type claude struct{}

func (claude) name() string { return "claude-code" }

type claudeInput struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	Prompt         *string         `json:"prompt"`
	PermissionMode string          `json:"permission_mode"`
}

var claudeStages = map[string]Stage{
	"PreToolUse":        StagePreTool,
	"PermissionRequest": StagePermission,
	"UserPromptSubmit":  StagePrompt,
	"PostToolUse":       StagePostTool,
}

func (claude) parse(raw []byte) (Event, error) {
	ev, err := parseClaudeLike(raw, claudeStages)
	if !claudeAttended(os.Getenv) {
		ev.NoHuman, ev.CanAsk = true, false
	}
	return ev, err
}

// claudeAttended reports whether a person sees Claude Code's dialogs in
// the session that runs this hook. Claude Code 2.1 tells its hooks in the
// environment: CLAUDE_CODE_SESSION_ATTENDED=0 and
// CLAUDE_CODE_ENTRYPOINT=sdk-cli under `claude -p`, where a call that
// needs approval is refused with toolDenialKind "user-rejected" though no
// one saw it. Without either, no person is assumed: a record must never
// name the user who was not there.
func claudeAttended(getenv func(string) string) bool {
	switch getenv("CLAUDE_CODE_SESSION_ATTENDED") {
	case "1":
		return true
	case "":
		return getenv("CLAUDE_CODE_ENTRYPOINT") == "cli"
	}
	return false
}

// noHumanModes are the permission modes (Claude Code, Codex) in which the
// host asks its user nothing.
var noHumanModes = map[string]bool{"bypassPermissions": true, "dontAsk": true}

// parseClaudeLike reads the input Claude Code and Codex share.
func parseClaudeLike(raw []byte, stages map[string]Stage) (Event, error) {
	var in claudeInput
	if err := decodeStrict(raw, &in); err != nil {
		return Event{}, err
	}
	ev := Event{Name: in.HookEventName, Stage: stages[in.HookEventName], SessionID: in.SessionID, Cwd: in.Cwd,
		Transcript: in.TranscriptPath, NoHuman: noHumanModes[in.PermissionMode]}
	ev.CanAsk = !ev.NoHuman
	ev.PlanMode = in.PermissionMode == "plan"
	input, err := ev.body(in.Prompt, in.ToolName, in.ToolInput)
	if err != nil || ev.Stage == StagePrompt {
		return ev, err
	}
	ev.Call = toolCall(claudeTools, in.ToolUseID, in.ToolName, input)
	return ev, nil
}

type claudeOutput struct {
	HookSpecificOutput any `json:"hookSpecificOutput"`
}

type claudePreTool struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

type claudePermission struct {
	HookEventName string         `json:"hookEventName"`
	Decision      claudeDecision `json:"decision"`
}

type claudeDecision struct {
	Behavior string `json:"behavior"`
	Message  string `json:"message,omitempty"`
}

func (claude) answer(ev Event, o Outcome) Reply {
	if ev.PlanMode && o.Verdict == Allow {
		// plan mode refuses what changes anything; an allow would lift that
		o = Outcome{Verdict: NoVerdict}
	}
	switch ev.Stage {
	case StagePreTool:
		d := map[Verdict]string{Allow: "allow", Deny: "deny", Ask: "ask"}[o.Verdict]
		if d == "" {
			return Reply{} // no verdict: Claude's own rules decide
		}
		return Reply{Stdout: marshal(claudeOutput{claudePreTool{HookEventName: ev.Name, PermissionDecision: d,
			PermissionDecisionReason: o.Reason}})}
	case StagePermission:
		return permissionAnswer(ev.Name, o)
	}
	return Reply{}
}

// permissionAnswer is PermissionRequest's answer (Claude and Codex): allow
// or deny; anything else is no verdict (the dialog shows).
func permissionAnswer(name string, o Outcome) Reply {
	var d claudeDecision
	switch o.Verdict {
	case Allow:
		d = claudeDecision{Behavior: "allow"}
	case Deny:
		d = claudeDecision{Behavior: "deny", Message: o.Reason}
	default:
		return Reply{}
	}
	return Reply{Stdout: marshal(claudeOutput{claudePermission{HookEventName: name, Decision: d}})}
}

func (claude) fail(ev Event, reason string) Reply { return failClaudeLike(ev, reason) }

// failClaudeLike is the blocking failure of Claude Code and Codex.
func failClaudeLike(ev Event, reason string) Reply {
	switch ev.Stage {
	case StagePrompt, StagePostTool:
		// a prompt must never be blocked, and a tool that ran cannot be
		return Reply{Stderr: reason}
	case StagePermission:
		return permissionAnswer(ev.Name, Outcome{Verdict: Deny, Reason: reason})
	}
	return Reply{Stderr: reason, Exit: 2}
}
