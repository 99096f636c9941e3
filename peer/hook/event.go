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
	// NoHuman: the host asks no one (Claude's and Codex's
	// bypassPermissions): a call that needs a human is rejected here.
	NoHuman bool
	// AskIsPrompt: answering Ask makes the host show its dialog, so a call
	// left to the host that then ran was approved by its user. Codex's
	// PreToolUse cannot ask: only its PermissionRequest shows that its
	// user was asked.
	AskIsPrompt bool
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
