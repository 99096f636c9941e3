package schemas

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

// TestResultsOfGoValues: what the peer encodes from the protocol types fits
// the result schemas the conformance runner checks it against.
func TestResultsOfGoValues(t *testing.T) {
	call := protocol.ToolCall{ToolCallID: "c7", Tool: "bash", Kind: protocol.KindExecute,
		RawInput: json.RawMessage(`{"command":"go test ./..."}`), Locations: []protocol.Location{{Path: "/repo/go.mod", Line: 3}}}
	reply := protocol.PermissionReply{Reply: protocol.ReplyReject, Feedback: "blocked by policy",
		Meta: &protocol.ReplyMeta{DecidedBy: protocol.ByFloor, Risk: protocol.RiskCritical, Reason: "rm -rf /", AuditID: "1"}}
	tests := []struct {
		method string
		value  any
	}{
		{"initialize", protocol.InitializeResult{ProtocolVersion: 1, ServerInfo: protocol.ServerInfo{Name: "perm-peer", Version: "0.1.0"},
			Capabilities: protocol.ServerCapabilities{Modes: []protocol.Mode{protocol.ModeAsk, protocol.ModeAI}, Judge: protocol.JudgeCapability{Enabled: true, Model: "m"}, ACP: true}}},
		{"shutdown", nil},
		{"session/open", protocol.SessionOpenResult{}},
		{"session/requestPermission", protocol.PermissionReply{Reply: protocol.ReplyOnce}},
		{"session/requestPermission", reply},
		{"permission/ask", protocol.PermissionReply{Reply: protocol.ReplyAlways, Feedback: "all go test runs"}},
		{"permission/check", protocol.CheckResult{Decision: protocol.DecisionDeny, Risk: protocol.RiskCritical, Reasons: []protocol.Reason{{Code: "floor.rm_root", Detail: "rm -rf /"}},
			Facts: []protocol.Fact{{Kind: protocol.FactDelete, Argv: []string{"rm", "-rf", "/"}, Path: "/", Decision: protocol.DecisionDeny, Risk: protocol.RiskCritical, Reason: &protocol.Reason{Code: "floor.rm_root"}}}}},
		{"permission/audit", protocol.AuditResult{Records: []protocol.AuditRecord{{ID: "1", TS: "2026-11-29T22:00:00.123456789Z", SessionID: "s1", Turn: 2, ToolCall: call,
			Decision: protocol.ReplyReject, DecidedBy: protocol.ByJudge, Source: protocol.SourceJudge, Reply: reply, Risk: protocol.RiskHigh,
			Judge: &protocol.JudgeDetails{Model: "m", Verdict: "reject", Risk: protocol.RiskCritical, LatencyMs: 120, PromptPrefixHash: "ab"}, Prev: "", Hash: "cd"}}, Next: "2"}},
		{"permission/audit", protocol.AuditResult{Records: []protocol.AuditRecord{}}},
		{"permission/rules", protocol.RulesResult{Rules: []protocol.UserRule{{ID: "always|bash: go test *|", Kind: "always", Action: "bash: go test *", Text: "Always approved: bash: go test *"}}, Rendered: "<user_rules></user_rules>"}},
		{"grants/list", protocol.GrantsListResult{Grants: []protocol.Grant{{ID: "g1", Pattern: "Bash(go test *)", Covers: "bash: go test *  (this project)", Created: "2026-11-29T22:00:00Z"}}}},
		{"grants/revoke", protocol.Empty{}},
		{"session/request_permission", protocol.ACPRequestPermissionResult{Outcome: protocol.ACPOutcome{Outcome: protocol.ACPOutcomeSelected, OptionID: "o1"}}},
		{"session/request_permission", protocol.ACPRequestPermissionResult{Outcome: protocol.ACPOutcome{Outcome: protocol.ACPOutcomeCancelled}, Meta: &protocol.ReplyMeta{DecidedBy: protocol.ByHeadless}}},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			name, ok := ResultSchema(tt.method)
			require.True(t, ok)
			b, err := json.Marshal(tt.value)
			require.NoError(t, err)
			assert.NoError(t, Validate(name, b), "%s", b)
		})
	}
}

func TestInvalidResults(t *testing.T) {
	tests := []struct {
		method string
		doc    string
		causes []Cause
	}{
		{"session/request_permission", `{"outcome":{"outcome":"selected"}}`, []Cause{{"/outcome/optionId", missing, 0}}},
		{"session/request_permission", `{"outcome":{"outcome":"allowed","optionId":"o1"}}`, []Cause{{"/outcome/outcome", `value must be one of "selected", "cancelled"`, 0}}},
		{"session/requestPermission", `"once"`, []Cause{{"", "expected object, but got string", 0}}},
		{"initialize", `{"protocolVersion":1,"serverInfo":{"name":"p","version":"1"},"capabilities":{"modes":["ask"],"judge":{"enabled":false},"acp":true},"extra":1}`,
			[]Cause{{"/extra", unknown, 0}}},
		{"permission/check", `{"decision":"maybe","risk":"low","humanOnly":false,"reasons":[],"facts":null}`,
			[]Cause{{"/decision", `value must be one of "allow", "ask", "deny"`, 0}, {"/facts", "expected array, but got null", 0}}},
		{"shutdown", `{}`, []Cause{{"", "expected null, but got object", 0}}},
		{"grants/revoke", `{"ok":true}`, []Cause{{"/ok", unknown, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			name, _ := ResultSchema(tt.method)
			err := Validate(name, []byte(tt.doc))
			var ve *Error
			require.True(t, errors.As(err, &ve), "want *Error, got %v", err)
			assert.Equal(t, tt.causes, ve.Causes)
		})
	}
}

func TestValidateUnknownSchema(t *testing.T) {
	err := Validate("nope.schema.json", []byte(`{}`))
	require.Error(t, err)
	var ve *Error
	assert.False(t, errors.As(err, &ve), "an unknown schema is an internal error, not a document error")
	assert.Contains(t, err.Error(), `unknown schema "nope.schema.json"`)
}

func TestErrorString(t *testing.T) {
	e := &Error{Schema: "policy.schema.json", Causes: []Cause{{"", "expected object, but got array", 1}, {"/mode", "bad", 0}}}
	assert.Equal(t, "invalid policy.schema.json: line 1: /: expected object, but got array; /mode: bad", e.Error())
}

func TestEveryFileCompiles(t *testing.T) {
	all, _, err := load()
	require.NoError(t, err)
	assert.Len(t, all, len(Files()))
}
