package protocol

import "encoding/json"

// ACPRequestPermissionParams is the params of ACP's session/request_permission.
type ACPRequestPermissionParams struct {
	SessionID string                `json:"sessionId"`
	ToolCall  ACPToolCallUpdate     `json:"toolCall"`
	Options   []ACPPermissionOption `json:"options"`
	Meta      json.RawMessage       `json:"_meta,omitempty"`
}

// ACPToolCallUpdate is ACP's ToolCallUpdate (and, with sessionUpdate set, a
// session/update tool_call or tool_call_update). Fields other than the id are
// optional in an update: absent fields keep their previous value.
type ACPToolCallUpdate struct {
	SessionUpdate string          `json:"sessionUpdate,omitempty"` // only inside session/update
	ToolCallID    string          `json:"toolCallId"`
	Title         string          `json:"title,omitempty"`
	Kind          ToolKind        `json:"kind,omitempty"`
	Status        string          `json:"status,omitempty"`
	RawInput      json.RawMessage `json:"rawInput,omitempty"`
	Locations     []Location      `json:"locations,omitempty"`
	Content       json.RawMessage `json:"content,omitempty"`
	RawOutput     json.RawMessage `json:"rawOutput,omitempty"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// ACPPermissionOption is one option the agent offers the user.
type ACPPermissionOption struct {
	OptionID string            `json:"optionId"`
	Name     string            `json:"name"`
	Kind     ACPPermissionKind `json:"kind"`
}

// ACPPermissionKind is ACP's PermissionOptionKind.
type ACPPermissionKind string

// ACP permission option kinds.
const (
	ACPAllowOnce    ACPPermissionKind = "allow_once"
	ACPAllowAlways  ACPPermissionKind = "allow_always"
	ACPRejectOnce   ACPPermissionKind = "reject_once"
	ACPRejectAlways ACPPermissionKind = "reject_always"
)

// ACPRequestPermissionResult is the result of session/request_permission.
type ACPRequestPermissionResult struct {
	Outcome ACPOutcome `json:"outcome"`
	Meta    *ReplyMeta `json:"_meta,omitempty"`
}

// ACPOutcome is {"outcome":"selected","optionId":...} or {"outcome":"cancelled"}.
type ACPOutcome struct {
	Outcome  string `json:"outcome"` // selected | cancelled
	OptionID string `json:"optionId,omitempty"`
}

// ACP outcome values.
const (
	ACPOutcomeSelected  = "selected"
	ACPOutcomeCancelled = "cancelled"
)

// ACPSessionUpdateParams is the params of the session/update notification.
// Only tool_call and tool_call_update updates matter to the peer; the update
// is kept raw so other update kinds pass through without a schema error.
type ACPSessionUpdateParams struct {
	SessionID string          `json:"sessionId"`
	Update    json.RawMessage `json:"update"`
}

// ACPSessionCancelParams is the params of the session/cancel notification.
type ACPSessionCancelParams struct {
	SessionID string `json:"sessionId"`
}
