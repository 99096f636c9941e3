package schemas

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidatePolicySpecExample(t *testing.T) {
	data, err := os.ReadFile("testdata/policy-spec-example.json")
	require.NoError(t, err)
	assert.NoError(t, ValidatePolicy(data))
}

func TestValidatePolicy(t *testing.T) {
	tests := []struct {
		name   string
		doc    string
		causes []Cause // nil: valid
	}{
		{name: "empty object", doc: `{}`},
		{name: "every field", doc: `{"mode":"full","tier":"passive","allow":["Read"],"ask":["mcp__github__create_issue"],
			"deny":["Bash(git add:*)","mcp__github__*"],"sensitive":["*.secret"],"trustedProjects":["/repo","~/src/x"],"askTimeoutMs":0,
			"judge":{"endpoint":"https://api.example.com/v1","model":"m","maxTokens":64}}`},
		{name: "unknown top-level key", doc: "{\n  \"mode\": \"ask\",\n  \"alow\": [\"Bash(ls)\"]\n}",
			causes: []Cause{{Pointer: "/alow", Message: "unknown property (not allowed here)", Line: 3}}},
		{name: "escaped pointer", doc: "{\n\"judge\": {\"endpoint\": \"http://x\", \"model\": \"m\",\n \"a/b~\": 1}}",
			causes: []Cause{{Pointer: "/judge/a~1b~0", Message: "unknown property (not allowed here)", Line: 3}}},
		{name: "unknown judge key", doc: `{"judge":{"endpoint":"http://x","model":"m","temperature":1}}`,
			causes: []Cause{{Pointer: "/judge/temperature", Message: "unknown property (not allowed here)", Line: 1}}},
		{name: "bad mode enum", doc: `{"mode":"yolo"}`,
			causes: []Cause{{Pointer: "/mode", Message: `value must be one of "ask", "auto", "full", "ai"`, Line: 1}}},
		{name: "bad tier enum", doc: `{"tier":"Standard"}`,
			causes: []Cause{{Pointer: "/tier", Message: `value must be one of "standard", "aggressive", "passive"`, Line: 1}}},
		{name: "rules must be an array", doc: `{"deny":"Bash(rm *)"}`,
			causes: []Cause{{Pointer: "/deny", Message: "expected array, but got string", Line: 1}}},
		{name: "rule must be a string", doc: `{"allow":[1]}`,
			causes: []Cause{{Pointer: "/allow/0", Message: "expected string, but got number", Line: 1}}},
		{name: "empty rule", doc: "{\"ask\": [\n  \"Bash(ls)\",\n  \"\"\n]}",
			causes: []Cause{
				{Pointer: "/ask/1", Message: "does not match pattern '^[A-Za-z_][A-Za-z0-9_.:*-]*(\\\\(.+\\\\))?$'", Line: 3},
				{Pointer: "/ask/1", Message: "length must be >= 1, but got 0", Line: 3},
			}},
		{name: "unbalanced rule", doc: `{"deny":["Bash(rm -rf *"]}`,
			causes: []Cause{{Pointer: "/deny/0", Message: "does not match pattern '^[A-Za-z_][A-Za-z0-9_.:*-]*(\\\\(.+\\\\))?$'", Line: 1}}},
		{name: "empty sensitive glob", doc: `{"sensitive":[""]}`,
			causes: []Cause{{Pointer: "/sensitive/0", Message: "length must be >= 1, but got 0", Line: 1}}},
		{name: "relative trusted project", doc: `{"trustedProjects":["repo"]}`,
			causes: []Cause{{Pointer: "/trustedProjects/0", Message: "does not match pattern '^[/~]'", Line: 1}}},
		{name: "negative ask timeout", doc: `{"askTimeoutMs":-1}`,
			causes: []Cause{{Pointer: "/askTimeoutMs", Message: "must be >= 0 but found -1", Line: 1}}},
		{name: "judge without model", doc: "{\"judge\": {\n \"endpoint\": \"http://x\"\n}}",
			causes: []Cause{{Pointer: "/judge/model", Message: "required property is missing", Line: 1}}},
		{name: "judge endpoint not http", doc: `{"judge":{"endpoint":"127.0.0.1:11434","model":"m"}}`,
			causes: []Cause{{Pointer: "/judge/endpoint", Message: "does not match pattern '^https?://[^\\\\s]+$'", Line: 1}}},
		{name: "not an object", doc: `[]`,
			causes: []Cause{{Pointer: "", Message: "expected object, but got array", Line: 1}}},
		{name: "syntax error", doc: "{\n\"mode\": \"ask\",\n}",
			causes: []Cause{{Pointer: "", Message: "not valid JSON: invalid character '}' looking for beginning of object key string", Line: 3}}},
		{name: "trailing data", doc: "{}\n\n {}",
			causes: []Cause{{Pointer: "", Message: "not valid JSON: unexpected data after the JSON value", Line: 3}}},
		{name: "truncated", doc: "{\n\"mode\":",
			causes: []Cause{{Pointer: "", Message: "not valid JSON: unexpected EOF", Line: 2}}},
		{name: "empty file", doc: "",
			causes: []Cause{{Pointer: "", Message: "not valid JSON: EOF", Line: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidatePolicy([]byte(tt.doc))
			if tt.causes == nil {
				assert.NoError(t, err)
				return
			}
			var ve *Error
			require.True(t, errors.As(err, &ve), "want *Error, got %v", err)
			assert.Equal(t, PolicySchema, ve.Schema)
			assert.Equal(t, tt.causes, ve.Causes)
		})
	}
}

// FuzzValidatePolicy: arbitrary bytes never panic; a failure is an *Error
// whose causes carry a line inside the file when the bytes are JSON.
func FuzzValidatePolicy(f *testing.F) {
	for _, s := range []string{`{}`, `{"mode":"x"}`, "{\n\"deny\": [\"\", 1]\n}", `{"judge":{}}`, `[`, `{"a/b":{"c~d":[]}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := ValidatePolicy(data)
		if err == nil {
			return
		}
		var ve *Error
		if !errors.As(err, &ve) || len(ve.Causes) == 0 {
			t.Fatalf("want an *Error with causes, got %v", err)
		}
		lines := 1 + bytes.Count(data, []byte("\n"))
		for _, c := range ve.Causes {
			if c.Line < 0 || c.Line > lines {
				t.Fatalf("line %d outside a %d-line file", c.Line, lines)
			}
		}
	})
}
