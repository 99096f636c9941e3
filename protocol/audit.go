package protocol

// Source says who produced an audited reply.
type Source string

// Sources.
const (
	SourceUser   Source = "user"   // a human answered permission/ask
	SourceAuto   Source = "auto"   // the gate, a rule, a grant, the cache or the mode
	SourceJudge  Source = "judge"  // the LLM judge (or the tier applied to its escalation)
	SourceSystem Source = "system" // headless rejection, cancellation, internal failure
	SourceHost   Source = "host"   // the hooked host's own permission rules or mode, no person asked
)

// AuditRecord is one decision as kept in the audit log. ID, Prev and Hash are
// set by the store; Hash chains the record to the one before it.
type AuditRecord struct {
	ID              string          `json:"id"`
	TS              string          `json:"ts"` // RFC 3339 with nanoseconds, UTC
	SessionID       string          `json:"sessionId"`
	ParentSessionID string          `json:"parentSessionId,omitempty"`
	Turn            int             `json:"turn"`
	ToolCall        ToolCall        `json:"toolCall"`            // secrets redacted
	Action          string          `json:"action,omitempty"`    // normalized action, e.g. "bash: go test ./..."
	Resources       []string        `json:"resources,omitempty"` // paths/hosts it touches
	Decision        ReplyKind       `json:"decision"`
	DecidedBy       DecidedBy       `json:"decidedBy"`
	Source          Source          `json:"source"`
	Reply           PermissionReply `json:"reply"` // verbatim, note included
	Risk            Risk            `json:"risk,omitempty"`
	Reasons         []Reason        `json:"reasons,omitempty"`
	Grant           string          `json:"grant,omitempty"` // pattern an "always" reply granted
	Judge           *JudgeDetails   `json:"judge,omitempty"`
	Prev            string          `json:"prev"`
	Hash            string          `json:"hash"`
}

// JudgeDetails records how the judge decided.
type JudgeDetails struct {
	Model            string `json:"model"`
	Verdict          string `json:"verdict"` // allow | reject | escalate
	Risk             Risk   `json:"risk,omitempty"`
	Reason           string `json:"reason,omitempty"`
	LatencyMs        int64  `json:"latencyMs"`
	PromptPrefixHash string `json:"promptPrefixHash"`
	Error            string `json:"error,omitempty"`
}

// AuditParams is the params of permission/audit.
type AuditParams struct {
	SessionID string `json:"sessionId,omitempty"`
	After     string `json:"after,omitempty"` // an audit id; records after it
	Limit     int    `json:"limit,omitempty"`
}

// AuditResult is the result of permission/audit.
type AuditResult struct {
	Records []AuditRecord `json:"records"`
	Next    string        `json:"next,omitempty"`
}

// UserRule is one session-scoped rule derived from the user's own replies.
type UserRule struct {
	ID        string   `json:"id"`   // kind|action|resources
	Kind      string   `json:"kind"` // always | approved_with_note | rejected_with_note | grant
	Action    string   `json:"action"`
	Resources []string `json:"resources,omitempty"`
	Note      string   `json:"note,omitempty"`
	Text      string   `json:"text"` // the line as the judge reads it
	AuditID   string   `json:"auditId,omitempty"`
	TS        string   `json:"ts,omitempty"`
}

// RulesParams is the params of permission/rules.
type RulesParams struct {
	SessionID string `json:"sessionId"`
}

// RulesResult is the result of permission/rules.
type RulesResult struct {
	Rules    []UserRule `json:"rules"`
	Rendered string     `json:"rendered"`
}

// Grant is a persistent "always" answer scoped to the project, or to one
// of its sessions (SessionID set; perm-peer allow --session).
type Grant struct {
	ID        string `json:"id"`
	Pattern   string `json:"pattern"` // policy-rule syntax, e.g. "Bash(go test *)"
	Covers    string `json:"covers"`  // human text shown as alwaysCovers
	SessionID string `json:"sessionId,omitempty"`
	AuditID   string `json:"auditId,omitempty"`
	Created   string `json:"created"`
}

// GrantsListParams is the (empty) params of grants/list.
type GrantsListParams struct{}

// GrantsListResult is the result of grants/list: the project's grants,
// then its sessions' own.
type GrantsListResult struct {
	Grants []Grant `json:"grants"`
}

// GrantsRevokeParams is the params of grants/revoke.
type GrantsRevokeParams struct {
	ID string `json:"id"`
}

// Empty is the result of methods that return {}.
type Empty struct{}
