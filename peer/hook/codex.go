package hook

import (
	"encoding/json"

	"github.com/perm-peer/perm-peer/protocol"
)

// codex is Codex CLI's hook protocol (developers.openai.com/codex/hooks;
// hosts.md §4.1): Claude's shapes, but PreToolUse can only deny (with a
// non-empty reason; "ask" and a bare "allow" are invalid, and an invalid
// answer lets the tool run), so a call perm-peer allows or leaves to the
// human gets no answer there and meets Codex's own approval, where
// PermissionRequest answers allow, deny or nothing.
type codex struct{}

func (codex) name() string { return "codex" }

var codexStages = map[string]Stage{
	"PreToolUse":        StagePreTool,
	"PermissionRequest": StagePermission,
	"UserPromptSubmit":  StagePrompt,
	"PostToolUse":       StagePostTool,
}

func (codex) parse(raw []byte) (Event, error) {
	ev, err := parseClaudeLike(raw, codexStages)
	ev.Transcript = "" // Codex's transcript is not Claude's format
	ev.CanAsk = false
	if err == nil && ev.Call.Tool == "apply_patch" {
		ev.Call = codexPatch(ev.Call)
	}
	return ev, err
}

// codexPatch maps Codex's apply_patch call onto the gate's patch tool.
// Codex sends the patch text as tool_input.command, a string, for
// PreToolUse and PermissionRequest (codex-rs core/src/tools/handlers/
// apply_patch_tests.rs pre_tool_use_payload_uses_freeform_patch_input;
// tools/runtimes: ApplyPatch → json!({"command": patch})), which the gate
// would read as a shell command; an argv ["apply_patch", PATCH] is the
// shell form Codex intercepts. Any other shape is left as it came: the
// gate cannot find its files and asks.
func codexPatch(c protocol.ToolCall) protocol.ToolCall {
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal(c.RawInput, &in) != nil {
		return c
	}
	var patch string
	if json.Unmarshal(in.Command, &patch) != nil {
		var argv []string
		if json.Unmarshal(in.Command, &argv) != nil || len(argv) != 2 || argv[0] != "apply_patch" && argv[0] != "applypatch" {
			return c
		}
		patch = argv[1]
	}
	c.Kind = protocol.KindEdit
	c.RawInput = marshalInput(map[string]string{"input": patch})
	return c
}

func (codex) answer(ev Event, o Outcome) Reply {
	switch ev.Stage {
	case StagePreTool:
		if o.Verdict != Deny {
			return Reply{}
		}
		return Reply{Stdout: marshal(claudeOutput{claudePreTool{HookEventName: ev.Name, PermissionDecision: "deny",
			PermissionDecisionReason: nonEmpty(o.Reason)}})}
	case StagePermission:
		return permissionAnswer(ev.Name, o)
	}
	return Reply{}
}

func (codex) fail(ev Event, reason string) Reply { return failClaudeLike(ev, nonEmpty(reason)) }

func nonEmpty(reason string) string {
	if reason == "" {
		return "perm-peer: denied"
	}
	return reason
}
