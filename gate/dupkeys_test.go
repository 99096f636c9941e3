package gate

import (
	"encoding/json"
	"testing"

	"github.com/perm-peer/perm-peer/protocol"

	"github.com/stretchr/testify/assert"
)

// A repeated key in rawInput makes the call human-only whichever copy is
// dangerous, and a floor in the copy the gate reads still rejects.
func TestAnalyzeDuplicateKeyIsHumanOnly(t *testing.T) {
	for _, raw := range []string{
		`{"command":"rm -rf ~/","command":"git status"}`,
		`{"command":"git status","COMMAND":"rm -rf ~/"}`,
		`{"command":"git status","opts":{"env":{"A":"1","a":"2"}}}`,
	} {
		v := Analyze(protocol.ToolCall{Tool: "bash", RawInput: json.RawMessage(raw)}, env(protocol.Policy{}))
		assert.True(t, v.HumanOnly, raw)
		assert.Equal(t, "ask", string(v.Decision), raw)
		assert.Equal(t, "human.duplicate-key", v.Reasons[0].Code, raw)
	}
}

func TestAnalyzeDuplicateKeyFloorStillRejects(t *testing.T) {
	v := Analyze(protocol.ToolCall{Tool: "bash", RawInput: json.RawMessage(`{"command":"git status","command":"rm -rf ~/"}`)}, env(protocol.Policy{}))
	assert.Equal(t, protocol.DecisionDeny, v.Decision, "the copy the gate reads is a floor")
}
