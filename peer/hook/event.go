package hook

import (
	"github.com/perm-peer/perm-peer/protocol"
)

// Stage is what a hook call asks of perm-peer, whatever the host calls it.
type Stage int

const (
	stageUnknown Stage = iota
	// StagePreTool: before a tool call; allow, deny or leave it to the
	// host's dialog.
	StagePreTool
	// StagePermission: the host is about to show its dialog (or would
	// auto-deny); a grant or the judge may answer, else no verdict.
	StagePermission
	// StagePrompt: the user sent a message; a new turn. Never blocks.
	StagePrompt
	// StagePostTool: a tool ran. One perm-peer left to the human ran
	// because the human approved it.
	StagePostTool
)

// Event is one hook call.
type Event struct {
	Name       string // the host's event name
	Stage      Stage
	SessionID  string
	Cwd        string // absolute
	Transcript string // the host's transcript file, if any
	Prompt     string // StagePrompt: the user's message
	Call       protocol.ToolCall
	// NoHuman: no person sees this host's dialogs (Claude's and Codex's
	// bypassPermissions and dontAsk, `claude -p`): a human-only call is
	// denied with a reason that tells the agent to ask the user, and no
	// outcome is ever the user's.
	NoHuman bool
	// CanAsk: answering Ask makes the host show its dialog to a person
	// (Claude's PreToolUse when attended, Cursor's shell and MCP hooks).
	// Codex's PreToolUse cannot ask; Gemini's ask hangs `gemini -p`, which
	// its hook cannot tell from an interactive run; Cursor cannot ask
	// before a read.
	CanAsk bool
	// PlanMode: the host runs nothing that changes anything (Claude's plan
	// mode); perm-peer's allow would lift that, so it is not given.
	PlanMode bool
}

// Verdict is the decision a host answer carries.
type Verdict int

const (
	// NoVerdict: the host decides as if there were no hook.
	NoVerdict Verdict = iota
	Allow
	Deny
	// Ask: the host's own dialog asks its user.
	Ask
)

// Outcome is the decision on an event.
type Outcome struct {
	Verdict Verdict
	Reason  string // why (deny: what the agent is told)
}

// Reply is a host answer: what the hook process prints and its exit code.
type Reply struct {
	Stdout []byte
	Stderr string
	Exit   int
}
