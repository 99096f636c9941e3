package schemas

import (
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	missing = "required property is missing"
	unknown = "unknown property (not allowed here)"
)

func TestValidateParams(t *testing.T) {
	tests := []struct {
		method string
		params string
		causes []Cause // nil: valid
	}{
		// initialize
		{"initialize", `{"protocolVersion":1}`, nil},
		{"initialize", `{"protocolVersion":1,"clientInfo":{"name":"zed","version":"0.1"},"capabilities":{"prompt":true,"future":1},
			"project":{"root":"/repo"},"settings":{"mode":"ai","tier":"aggressive"},"x-editor":true}`, nil},
		{"initialize", `{}`, []Cause{{"/protocolVersion", missing, 0}}},
		{"initialize", ``, []Cause{{"/protocolVersion", missing, 0}}},
		{"initialize", `{"protocolVersion":0}`, []Cause{{"/protocolVersion", "must be >= 1 but found 0", 0}}},
		{"initialize", `{"protocolVersion":"1"}`, []Cause{{"/protocolVersion", "expected integer, but got string", 0}}},
		{"initialize", `{"protocolVersion":1.5}`, []Cause{{"/protocolVersion", "expected integer, but got number", 0}}},
		{"initialize", `{"protocolVersion":1,"settings":{"mdoe":"full"}}`, []Cause{{"/settings/mdoe", unknown, 0}}},
		{"initialize", `{"protocolVersion":1,"settings":{"a/b":1,"c~d":2}}`, []Cause{{"/settings/a~1b", unknown, 0}, {"/settings/c~0d", unknown, 0}}},
		{"initialize", `{"protocolVersion":1,"settings":{"mode":"yolo"}}`, []Cause{{"/settings/mode", `value must be one of "ask", "auto", "full", "ai"`, 0}}},
		{"initialize", `{"protocolVersion":1,"capabilities":{"prompt":"yes"}}`, []Cause{{"/capabilities/prompt", "expected boolean, but got string", 0}}},
		{"initialize", `{"protocolVersion":1,"project":{}}`, []Cause{{"/project/root", missing, 0}}},
		{"initialize", `[1]`, []Cause{{"", "expected object, but got array", 0}}},
		// methods without params accept anything
		{"initialized", `{}`, nil},
		{"shutdown", `null`, nil},
		{"exit", ``, nil},
		{"no/such/method", `{"x":1}`, nil},
		// cancellation
		{"$/cancelRequest", `{"id":7}`, nil},
		{"$/cancelRequest", `{"id":"abc"}`, nil},
		{"$/cancelRequest", `{}`, []Cause{{"/id", missing, 0}}},
		{"$/cancelRequest", `{"id":null}`, []Cause{{"/id", "expected integer, but got null", 0}, {"/id", "expected string, but got null", 0}}},
		{"$/cancel_request", `{"requestId":3}`, nil},
		{"$/cancel_request", `{"id":3}`, []Cause{{"/requestId", missing, 0}}},
		// sessions
		{"session/open", `{"sessionId":"s1","parentSessionId":"s0","cwd":"/repo","mode":"ask","tier":"standard","agent":"claude"}`, nil},
		{"session/open", `{"sessionId":""}`, []Cause{{"/sessionId", "length must be >= 1, but got 0", 0}}},
		{"session/open", `{"sessionId":"s1","tier":"lazy"}`, []Cause{{"/tier", `value must be one of "standard", "aggressive", "passive"`, 0}}},
		{"session/turn", `{"sessionId":"s1","turn":3,"userMessage":"fix the tests"}`, nil},
		{"session/turn", `{"sessionId":"s1"}`, []Cause{{"/turn", missing, 0}}},
		{"session/turn", `{"sessionId":"s1","turn":-1}`, []Cause{{"/turn", "must be >= 0 but found -1", 0}}},
		{"session/close", `{"sessionId":"s1"}`, nil},
		{"session/close", `{"sessionID":"s1"}`, []Cause{{"/sessionId", missing, 0}}},
		// the decision
		{"session/requestPermission", `{"sessionId":"s1","turn":3,"toolCall":{"toolCallId":"c7","tool":"bash","kind":"execute",
			"title":"Run the tests","rawInput":{"command":"go test ./..."},"locations":[{"path":"/repo/go.mod"}]}}`, nil},
		{"session/requestPermission", `{"sessionId":"s1"}`, []Cause{{"/toolCall", missing, 0}}},
		{"session/requestPermission", ``, []Cause{{"/sessionId", missing, 0}, {"/toolCall", missing, 0}}},
		{"session/requestPermission", `{"sessionId":"s1","toolCall":{"tool":"bash","kind":"exec"}}`,
			[]Cause{{"/toolCall/kind", `value must be one of "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"`, 0}}},
		{"session/requestPermission", `{"sessionId":"s1","toolCall":{"tool":"bash","rawInput":"ls"}}`,
			[]Cause{{"/toolCall/rawInput", "expected object, but got string", 0}}},
		{"session/requestPermission", `{"sessionId":"s1","toolCall":{"tool":"read","locations":[{"path":"/a"},{"line":2}]}}`,
			[]Cause{{"/toolCall/locations/1/path", missing, 0}}},
		// escalation (peer → editor)
		{"permission/ask", `{"sessionId":"s1","toolCallId":"c7","toolCall":{"tool":"bash"},"risk":"high","reason":"why",
			"options":["once","reject"],"alwaysCovers":"bash: go test *"}`, nil},
		{"permission/ask", `{"sessionId":"s1","toolCall":{},"risk":"severe","reason":"r","options":[]}`,
			[]Cause{{"/options", "minimum 1 items required, but found 0 items", 0}, {"/risk", `value must be one of "low", "medium", "high", "critical"`, 0}}},
		{"permission/ask", `{"sessionId":"s1","toolCall":{},"risk":"low","reason":"r","options":["once","once","maybe"]}`,
			[]Cause{{"/options", "items at index 0 and 1 are equal", 0}, {"/options/2", `value must be one of "once", "always", "reject"`, 0}}},
		// introspection
		{"permission/check", `{"toolCall":{"tool":"Read","rawInput":{"path":".env"}}}`, nil},
		{"permission/check", `{"sessionId":"s1"}`, []Cause{{"/toolCall", missing, 0}}},
		{"permission/audit", ``, nil},
		{"permission/audit", `{"sessionId":"s1","after":"00000007","limit":50}`, nil},
		{"permission/audit", `{"limit":-5}`, []Cause{{"/limit", "must be >= 0 but found -5", 0}}},
		{"permission/rules", `{"sessionId":"s1"}`, nil},
		{"permission/rules", `{}`, []Cause{{"/sessionId", missing, 0}}},
		{"grants/list", ``, nil},
		{"grants/list", `{}`, nil},
		{"grants/revoke", `{"id":"g1"}`, nil},
		{"grants/revoke", `{"id":""}`, []Cause{{"/id", "length must be >= 1, but got 0", 0}}},
		{"grants/revoke", `{"id":1}`, []Cause{{"/id", "expected string, but got number", 0}}},
		// ACP
		{"session/request_permission", `{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":"ls","kind":"execute","status":"pending",
			"rawInput":"anything goes in ACP","content":[{"type":"text"}]},"options":[{"optionId":"o1","name":"Allow","kind":"allow_once"},
			{"optionId":"o2","name":"Reject","kind":"reject_once"}],"_meta":{"x":1}}`, nil},
		{"session/request_permission", `{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":null,"kind":null,"status":null,
			"locations":[{"path":"/a","line":null}],"content":null,"_meta":null},"options":[],"_meta":null}`, nil},
		{"session/request_permission", `{"sessionId":"s1","toolCall":{"toolCallId":"c1","title":7,"locations":[{"path":"/a","line":-1}]},"options":[]}`,
			[]Cause{{"/toolCall/locations/0/line", "must be >= 0 but found -1", 0}, {"/toolCall/title", "expected string, but got number", 0}}},
		{"session/requestPermission", `{"sessionId":"s1","toolCall":{"kind":null}}`, []Cause{{"/toolCall/kind", "expected string, but got null", 0}}},
		{"session/request_permission", `{"sessionId":"s1","toolCall":{"title":"ls"},"options":[{"optionId":"o1","name":"Allow","kind":"allow"}]}`,
			[]Cause{{"/options/0/kind", `value must be one of "allow_once", "allow_always", "reject_once", "reject_always"`, 0}, {"/toolCall/toolCallId", missing, 0}}},
		{"session/request_permission", `{"sessionId":"s1","toolCall":{"toolCallId":"c1"},"options":[{"optionId":"o1","kind":"allow_once"}],"_meta":[]}`,
			[]Cause{{"/_meta", "expected object, but got array", 0}, {"/options/0/name", missing, 0}}},
		{"session/update", `{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"ls","kind":"execute"}}`, nil},
		{"session/update", `{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`, nil},
		{"session/update", `{"sessionId":"s1","update":{"toolCallId":"c1"}}`, []Cause{{"/update/sessionUpdate", missing, 0}}},
		{"session/update", `{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","title":null,"kind":null,
			"status":null,"locations":null,"content":null,"rawInput":null}}`, nil},
		{"session/update", `{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","kind":"exec","locations":[{"path":""}]}}`,
			[]Cause{{"/update/kind", `value must be one of "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"`, 0},
				{"/update/locations/0/path", "length must be >= 1, but got 0", 0}}},
		{"session/update", `{"sessionId":"s1","update":{"sessionUpdate":"tool_call","title":"ls"}}`, []Cause{{"/update/toolCallId", missing, 0}}},
		{"session/cancel", `{"sessionId":"s1"}`, nil},
		{"session/cancel", `{"sessionId":7}`, []Cause{{"/sessionId", "expected string, but got number", 0}}},
		// not JSON at all
		{"session/open", `{"sessionId":`, []Cause{{"", "not valid JSON: unexpected EOF", 0}}},
	}
	for i, tt := range tests {
		t.Run(strconv.Itoa(i)+"_"+tt.method, func(t *testing.T) {
			err := ValidateParams(tt.method, json.RawMessage(tt.params))
			if tt.causes == nil {
				assert.NoError(t, err)
				return
			}
			var ve *Error
			require.True(t, errors.As(err, &ve), "want *Error, got %v", err)
			want, _ := ParamsSchema(tt.method)
			assert.Equal(t, want, ve.Schema)
			assert.Equal(t, tt.causes, ve.Causes)
		})
	}
}

// TestEveryMethodHasSchemas parses protocol/methods.go so that a method added
// there without an entry in methodSpecs fails here, not in production.
func TestEveryMethodHasSchemas(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../protocol/methods.go", nil, 0)
	require.NoError(t, err)
	known := map[string]bool{}
	for _, m := range methodSpecs {
		known[m.name] = true
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		vs, ok := node.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 || len(vs.Names[0].Name) < 7 || vs.Names[0].Name[:6] != "Method" {
			return true
		}
		lit, ok := vs.Values[0].(*ast.BasicLit)
		require.True(t, ok, "%s is not a string literal", vs.Names[0].Name)
		name, err := strconv.Unquote(lit.Value)
		require.NoError(t, err)
		n++
		assert.True(t, known[name], "method %q (%s) has no entry in methodSpecs", name, vs.Names[0].Name)
		return true
	})
	assert.Equal(t, 19, n, "methods declared in protocol/methods.go")
	assert.Len(t, methodSpecs, n, "methodSpecs lists each method once")
}

func TestSchemaFileNames(t *testing.T) {
	tests := []struct {
		method, params, result string
	}{
		{"session/requestPermission", "session-requestPermission.params.schema.json", "session-requestPermission.result.schema.json"},
		{"permission/ask", "permission-ask.params.schema.json", "permission-ask.result.schema.json"},
		{"$/cancelRequest", "cancelRequest.params.schema.json", ""},
		{"$/cancel_request", "cancel_request.params.schema.json", ""},
		{"session/update", "session-update.params.schema.json", ""},
		{"shutdown", "", "shutdown.result.schema.json"},
		{"initialized", "", ""},
		{"no/such", "", ""},
	}
	files := Files()
	for _, tt := range tests {
		p, okP := ParamsSchema(tt.method)
		r, okR := ResultSchema(tt.method)
		assert.Equal(t, tt.params, p, tt.method)
		assert.Equal(t, tt.params != "", okP, tt.method)
		assert.Equal(t, tt.result, r, tt.method)
		assert.Equal(t, tt.result != "", okR, tt.method)
		if okP {
			assert.Contains(t, files, p)
		}
		if okR {
			assert.Contains(t, files, r)
		}
	}
	assert.Len(t, ParamsSchemas(), 16)
	assert.Len(t, ResultSchemas(), 11)
	ParamsSchemas()["initialize"] = "changed"
	p, _ := ParamsSchema("initialize")
	assert.Equal(t, "initialize.params.schema.json", p, "ParamsSchemas returns a copy")
	assert.Contains(t, files, PermissionReplySchema)
	assert.Contains(t, files, PolicySchema)
	assert.Len(t, files, 29)
}
