package hook

// codex is Codex CLI's hook protocol (developers.openai.com/codex/hooks;
// hosts.md §4.1): Claude's shapes, but PreToolUse can only deny (with a
// non-empty reason; "ask" and a bare "allow" are invalid, and an invalid
// answer lets the tool run), so a call perm-peer allows or leaves to the
// human gets no answer there and meets Codex's own approval, where
// PermissionRequest answers allow, deny or nothing.
type codex struct{}

var codexStages = map[string]Stage{
	"PreToolUse":        StagePreTool,
	"PermissionRequest": StagePermission,
	"UserPromptSubmit":  StagePrompt,
	"PostToolUse":       StagePostTool,
}

func (codex) parse(raw []byte) (Event, error) {
	ev, err := parseClaudeLike(raw, codexStages)
	ev.Transcript = "" // Codex's transcript is not Claude's format
	ev.AskIsPrompt = false
	return ev, err
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
