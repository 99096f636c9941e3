package schemas

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

// hotMethods are the methods the peer decodes on its hot path, with params
// every host sends and that the strict check must take.
var hotMethods = map[string][]string{
	protocol.MethodRequestPermission: {
		`{"sessionId":"s","turn":1,"toolCall":{"toolCallId":"c1","tool":"bash","kind":"execute","rawInput":{"command":"git status"}}}`,
		`{"sessionId":"s","toolCall":{"tool":"Edit","title":"edit a.go","rawInput":{"file_path":"/r/a.go","old_string":"a\"b","new_string":"\u00e9\n"},"locations":[{"path":"/r/a.go","line":3},{"path":"b","line":null}]}}`,
	},
	protocol.MethodACPRequestPermission: {
		`{"sessionId":"s","toolCall":{"toolCallId":"t1","kind":"execute","rawInput":{"command":"make"}},"options":[{"optionId":"y","name":"Allow","kind":"allow_once"},{"optionId":"n","name":"Reject","kind":"reject_once"}]}`,
	},
	protocol.MethodPermissionCheck: {
		`{"toolCall":{"tool":"bash","rawInput":{"command":"ls -la"}}}`,
		`{"sessionId":"s","toolCall":{"tool":"Read","rawInput":{"file_path":"README.md"}}}`,
	},
	protocol.MethodSessionTurn: {
		`{"sessionId":"s","turn":3,"userMessage":"tidy up"}`,
		`{"sessionId":"s","turn":0}`,
	},
	protocol.MethodACPSessionUpdate: {
		`{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Run make","kind":"execute","status":"pending","rawInput":{"command":"make"}}}`,
		`{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`,
	},
}

// near-misses the strict check must leave to the validator, whatever the
// validator then says.
var declined = map[string][]string{
	protocol.MethodRequestPermission: {
		`{"sessionId":"s","toolCall":{"tool":"bash","rawInput":{"command":"rm -rf ~/","command":"git status"}}}`, // repeated key
		`{"sessionId":"s","toolCall":{"tool":"bash","Tool":"x"}}`,                                                // folds to a field
		`{"sessionId":"s","toolCall":{"tool":"bash","KIND":"bogus","kind":"execute"}}`,
		`{"sessionId":"s","SessionID":"t","toolCall":{}}`,
		`{"sessionId":"s","toolCall":{},"extra":1}`,                  // not declared
		`{"sessionId":"s","turn":1.0,"toolCall":{}}`,                 // an integer to the validator only
		`{"sessionId":"s","toolCall":{"tool":"bash"},"t\u0075rn":1}`, // an escaped key
		`{"sessionId":"s","toolCall":{"tool":5}}`,                    // wrong type
		`{"toolCall":{}}`,                                 // missing
		`{"sessionId":"","toolCall":{}}`,                  // too short
		`{"sessionId":"s","toolCall":{"kind":"destroy"}}`, // not in the enum
		`{"sessionId":"s","turn":-1,"toolCall":{}}`,       // below the minimum
		`{"sessionId":"s","toolCall":{"rawInput":[1]}}`,   // not an object
		`{"sessionId":"s","toolCall":{"locations":[{"line":1}]}}`,
		`[]`, `null`, `"x"`, `{`,
	},
	protocol.MethodSessionTurn: {
		`{"sessionId":"s","turn":1,"usermessage":"x"}`,
		`{"sessionId":"s","turn":1,"userMessage":"a","userMessage":"b"}`,
	},
}

// Every params object a host sends on the hot path is taken by the strict
// check, which must then agree with the validator and decode.
func TestCertainTakesHotParams(t *testing.T) {
	for method, all := range hotMethods {
		for _, p := range all {
			assert.True(t, Certain(method, []byte(p)), "%s %s", method, p)
			agree(t, method, []byte(p))
		}
	}
}

func TestCertainDeclines(t *testing.T) {
	for method, all := range declined {
		for _, p := range all {
			assert.False(t, Certain(method, []byte(p)), "%s %s", method, p)
			agree(t, method, []byte(p))
		}
	}
}

func TestFoldedKey(t *testing.T) {
	for in, want := range map[string]string{
		`{"sessionId":"s","toolCall":{"tool":"bash","Tool":"x"}}`:               "/toolCall/Tool",
		`{"sessionId":"s","SESSIONID":"t","toolCall":{}}`:                       "/SESSIONID",
		`{"sessionId":"s","toolCall":{"locations":[{"path":"a","Line":2}]}}`:    "/toolCall/locations/0/Line",
		`{"sessionId":"s","toolCall":{"rawInput":{"command":"a","Command":1}}}`: "", // rawInput declares nothing
		`{"sessionId":"s","toolCall":{}}`:                                       "",
	} {
		assert.Equal(t, want, FoldedKey(protocol.MethodRequestPermission, []byte(in)), in)
	}
}

// agree is the differential property: the strict check's acceptance implies
// the validator's, no folded key, and a clean decode into the method's
// params type.
func agree(t testing.TB, method string, params []byte) {
	if !Certain(method, params) {
		return
	}
	if err := ValidateParams(method, params); err != nil {
		t.Fatalf("%s %s: the strict check accepts what the validator rejects: %v", method, params, err)
	}
	if p := FoldedKey(method, params); p != "" {
		t.Fatalf("%s %s: accepted with a folded key at %s", method, params, p)
	}
	v := reflect.New(paramsType(t, method)).Interface()
	if err := json.Unmarshal(params, v); err != nil {
		t.Fatalf("%s %s: accepted but does not decode: %v", method, params, err)
	}
}

func paramsType(t testing.TB, method string) reflect.Type {
	for _, m := range methodSpecs {
		if m.name == method {
			return reflect.TypeOf(m.params)
		}
	}
	t.Fatalf("no params type for %s", method)
	return nil
}

func fuzzStrict(f *testing.F, method string) {
	for _, p := range append(hotMethods[method], declined[method]...) {
		f.Add([]byte(p))
	}
	for _, p := range declined[protocol.MethodRequestPermission] {
		f.Add([]byte(p))
	}
	require.NotNil(f, paramsShape(method))
	f.Fuzz(func(t *testing.T, params []byte) { agree(t, method, params) })
}

func FuzzStrictRequestPermission(f *testing.F) {
	fuzzStrict(f, protocol.MethodRequestPermission)
}
func FuzzStrictACPRequestPermission(f *testing.F) {
	fuzzStrict(f, protocol.MethodACPRequestPermission)
}
func FuzzStrictCheck(f *testing.F)       { fuzzStrict(f, protocol.MethodPermissionCheck) }
func FuzzStrictSessionTurn(f *testing.F) { fuzzStrict(f, protocol.MethodSessionTurn) }
func FuzzStrictSessionUpdate(f *testing.F) {
	fuzzStrict(f, protocol.MethodACPSessionUpdate)
}
