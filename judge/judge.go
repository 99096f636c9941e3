package judge

import (
	"context"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
)

// STUB: walking-skeleton judge; the full judge replaces it.

// Config configures the model client.
type Config struct {
	Endpoint  string
	Model     string
	APIKey    string
	Timeout   time.Duration
	MaxTokens int
}

// Outcome is what the peer does with a verdict.
type Outcome string

// Outcomes.
const (
	Allow    Outcome = "allow"
	Reject   Outcome = "reject"
	Escalate Outcome = "escalate"
)

// TurnKey identifies one dialog turn: the prompt prefix is built once per key.
type TurnKey struct {
	Project string
	Session string
	Turn    int
}

// SessionContext is the <session_context> section.
type SessionContext struct {
	Agent       string
	Cwd         string // relative to the project
	UserMessage string
}

// HistoryEntry is one earlier call of the turn with its outcome.
type HistoryEntry struct {
	Action  string
	Outcome string // once | always | reject
	Note    string
}

// Call is the <tool_call> section.
type Call struct {
	Tool   string
	Kind   string
	Title  string
	Action string
	Input  string // raw input, already redacted
	Paths  []string
}

// Decision is a judge result with the details the audit records.
type Decision struct {
	Outcome Outcome
	Details protocol.JudgeDetails
}

// Judge decides calls with a model, caching the prompt prefix per turn.
type Judge struct {
	cfg Config
}

// New returns a judge for cfg.
func New(cfg Config) *Judge { return &Judge{cfg: cfg} }

// Model is the configured model name.
func (j *Judge) Model() string { return j.cfg.Model }

// Prefix returns the turn's prompt prefix (<session_context> and
// <user_rules>), building it with build only the first time key is seen.
func (j *Judge) Prefix(key TurnKey, build func() (SessionContext, []protocol.UserRule)) string {
	sc, rules := build()
	return BuildPrefix(sc, rules)
}

// Decide asks the model about call. It never returns Allow on any error.
func (j *Judge) Decide(ctx context.Context, prefix string, history []HistoryEntry, call Call) Decision {
	return Decision{Outcome: Escalate, Details: protocol.JudgeDetails{Model: j.cfg.Model, Verdict: string(Escalate), Error: "stub"}}
}

// ExtractRules derives the user rules from user-sourced audit records (newest
// first) and the project's grants.
func ExtractRules(records []protocol.AuditRecord, grants []protocol.Grant) []protocol.UserRule {
	return nil
}

// RenderRules renders the <user_rules> section; "" when there are none.
func RenderRules(rules []protocol.UserRule) string { return "" }

// BuildPrefix renders <session_context> and <user_rules>.
func BuildPrefix(sc SessionContext, rules []protocol.UserRule) string { return "" }
