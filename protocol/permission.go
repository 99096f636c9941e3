package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// RequestPermissionParams is the params of session/requestPermission.
type RequestPermissionParams struct {
	SessionID string   `json:"sessionId"`
	Turn      int      `json:"turn,omitempty"`
	ToolCall  ToolCall `json:"toolCall"`
}

// ReplyKind is the user-facing answer to a permission request.
type ReplyKind string

// Reply kinds: the closed set a PermissionReply may carry.
const (
	ReplyOnce   ReplyKind = "once"
	ReplyAlways ReplyKind = "always"
	ReplyReject ReplyKind = "reject"
)

// PermissionReply is the result of session/requestPermission and the result
// an editor returns for permission/ask. It is a tagged union on Reply
// (once | always | reject), each variant with an optional free-text note.
//
// Wire contract: a reply without a note encodes to exactly {"reply":"once"}
// (no feedback key, no nulls); decoding accepts the legacy bare string form
// "once"; encode(decode(b)) == b for every canonical encoding.
type PermissionReply struct {
	Reply    ReplyKind  `json:"reply"`
	Feedback string     `json:"feedback,omitempty"`
	Meta     *ReplyMeta `json:"_meta,omitempty"`
}

// ReplyMeta is perm-peer's extension object (ACP's _meta convention); legacy
// readers ignore it.
type ReplyMeta struct {
	DecidedBy      DecidedBy `json:"decidedBy,omitempty"`
	Risk           Risk      `json:"risk,omitempty"`
	Reason         string    `json:"reason,omitempty"`
	AuditID        string    `json:"auditId,omitempty"`
	ToolResultNote string    `json:"toolResultNote,omitempty"`
}

// UnmarshalJSON decodes the object form or the legacy bare string form and
// rejects any reply value outside the closed set, naming it.
func (r *PermissionReply) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var k ReplyKind
		if err := json.Unmarshal(b, &k); err != nil {
			return fmt.Errorf("permission reply: %w", err)
		}
		if err := checkReplyKind(k); err != nil {
			return err
		}
		*r = PermissionReply{Reply: k}
		return nil
	}
	type plain PermissionReply // no methods: avoids recursion
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return fmt.Errorf("permission reply: %w", err)
	}
	if err := checkReplyKind(p.Reply); err != nil {
		return err
	}
	*r = PermissionReply(p)
	return nil
}

func checkReplyKind(k ReplyKind) error {
	switch k {
	case ReplyOnce, ReplyAlways, ReplyReject:
		return nil
	case "":
		return fmt.Errorf("permission reply: missing \"reply\"")
	}
	return fmt.Errorf("permission reply: unknown reply %q (want once, always or reject)", string(k))
}

// AskParams is the params of permission/ask, sent peer → editor when a call
// needs a human.
type AskParams struct {
	SessionID    string      `json:"sessionId"`
	ToolCallID   string      `json:"toolCallId,omitempty"`
	ToolCall     ToolCall    `json:"toolCall"`
	Risk         Risk        `json:"risk"`
	Reason       string      `json:"reason"`
	Options      []ReplyKind `json:"options"`
	AlwaysCovers string      `json:"alwaysCovers,omitempty"`
}

// CheckParams is the params of permission/check (a dry run).
type CheckParams struct {
	SessionID string   `json:"sessionId,omitempty"`
	ToolCall  ToolCall `json:"toolCall"`
}

// CheckResult is the result of permission/check.
type CheckResult struct {
	Decision  Decision `json:"decision"`
	Risk      Risk     `json:"risk"`
	HumanOnly bool     `json:"humanOnly"`
	Reasons   []Reason `json:"reasons"`
	Facts     []Fact   `json:"facts"`
}
