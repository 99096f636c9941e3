package protocol

import "encoding/json"

// ToolCall is the call an agent wants to make.
type ToolCall struct {
	ToolCallID string          `json:"toolCallId,omitempty"`
	Tool       string          `json:"tool,omitempty"`
	Kind       ToolKind        `json:"kind,omitempty"`
	Title      string          `json:"title,omitempty"`
	RawInput   json.RawMessage `json:"rawInput,omitempty"`
	Locations  []Location      `json:"locations,omitempty"`
}

// Location is a file the call touches.
type Location struct {
	Path string `json:"path"`
	Line int    `json:"line,omitempty"`
}

// ToolKind is ACP's ToolKind.
type ToolKind string

// ACP tool kinds.
const (
	KindRead       ToolKind = "read"
	KindEdit       ToolKind = "edit"
	KindDelete     ToolKind = "delete"
	KindMove       ToolKind = "move"
	KindSearch     ToolKind = "search"
	KindExecute    ToolKind = "execute"
	KindThink      ToolKind = "think"
	KindFetch      ToolKind = "fetch"
	KindSwitchMode ToolKind = "switch_mode"
	KindOther      ToolKind = "other"
)

// Decision is the gate's three-valued answer.
type Decision string

// Decisions.
const (
	DecisionAllow Decision = "allow"
	DecisionAsk   Decision = "ask"
	DecisionDeny  Decision = "deny"
)

// Risk grades a call.
type Risk string

// Risks, in increasing order.
const (
	RiskLow      Risk = "low"
	RiskMedium   Risk = "medium"
	RiskHigh     Risk = "high"
	RiskCritical Risk = "critical"
)

// DecidedBy names the pipeline step that produced a reply.
type DecidedBy string

// Deciders.
const (
	ByFloor    DecidedBy = "floor"
	ByRule     DecidedBy = "rule"
	ByGrant    DecidedBy = "grant"
	BySession  DecidedBy = "session"
	ByGate     DecidedBy = "gate"
	ByMode     DecidedBy = "mode"
	ByJudge    DecidedBy = "judge"
	ByUser     DecidedBy = "user"
	ByHeadless DecidedBy = "headless"
	// ByHost: a hook left the call to its host, and the host's own rules
	// or mode decided it with no person asked (it ran, or it was refused).
	ByHost DecidedBy = "host"
)

// Reason is one explained step of an analysis.
type Reason struct {
	Code   string `json:"code"`
	Detail string `json:"detail,omitempty"`
	Rule   string `json:"rule,omitempty"`
}

// FactKind classifies a normalized action.
type FactKind string

// Fact kinds.
const (
	FactExec    FactKind = "exec"
	FactRead    FactKind = "read"
	FactWrite   FactKind = "write"
	FactDelete  FactKind = "delete"
	FactNetwork FactKind = "network"
	FactEnv     FactKind = "env"
	FactOpaque  FactKind = "opaque"
	FactTool    FactKind = "tool"
)

// Fact is one normalized action a tool call would perform, with the gate's
// decision for it.
type Fact struct {
	Kind      FactKind `json:"kind"`
	Argv      []string `json:"argv,omitempty"`
	Path      string   `json:"path,omitempty"`
	Host      string   `json:"host,omitempty"`
	Detail    string   `json:"detail,omitempty"`
	Decision  Decision `json:"decision"`
	Risk      Risk     `json:"risk,omitempty"`
	HumanOnly bool     `json:"humanOnly,omitempty"`
	Reason    *Reason  `json:"reason,omitempty"`
}
