package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

// binPath is the perm-peer binary built once by TestMain.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "perm-peer-conformance-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "perm-peer")
	if out, err := exec.Command("go", "build", "-o", binPath, "../cmd/perm-peer").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build perm-peer: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// TestOurPeerPassesEverything runs the whole embedded suite against our own
// binary over both framings: every vector must pass.
func TestOurPeerPassesEverything(t *testing.T) {
	vectors, err := Load(Vectors())
	require.NoError(t, err)
	want := 0
	for _, v := range vectors {
		for _, fr := range AllFramings {
			if v.runsOn(fr) {
				want++
			}
		}
	}
	rep, err := Run(context.Background(), []string{binPath}, Options{})
	require.NoError(t, err)
	var table bytes.Buffer
	require.NoError(t, rep.WriteTable(&table))
	assert.Len(t, rep.Results, want)
	assert.Equal(t, want, rep.Passed)
	assert.Zero(t, rep.Failed, "failures:\n%s", table.String())
	assert.True(t, rep.OK())
	assert.Contains(t, table.String(), fmt.Sprintf("%d passed, 0 failed", want))
}

// TestFramingPlaceholder runs a few vectors with the peer forced into each
// framing through the {framing} placeholder.
func TestFramingPlaceholder(t *testing.T) {
	rep, err := Run(context.Background(), []string{binPath, "serve", "--framing", "{framing}"}, Options{Filter: "permission-escalation-note"})
	require.NoError(t, err)
	require.Len(t, rep.Results, 2)
	for _, r := range rep.Results {
		assert.True(t, r.Pass, "%s [%s]: %s", r.Vector, r.Framing, r.Failure)
	}
	// Forcing the wrong framing must fail every vector, not hang.
	rep, err = Run(context.Background(), []string{binPath, "serve", "--framing", "lsp"},
		Options{Filter: "permission-fast-path", Framings: []Framing{NDJSON}, Timeout: 2 * time.Second})
	require.NoError(t, err)
	require.Len(t, rep.Results, 1)
	assert.False(t, rep.Results[0].Pass)
	assert.Equal(t, 1, rep.Failed)
}

// TestEveryMethodCovered: every method of protocol/methods.go is exercised
// by some vector, sent by the runner or expected from the peer.
func TestEveryMethodCovered(t *testing.T) {
	methods := []string{
		protocol.MethodInitialize, protocol.MethodInitialized, protocol.MethodShutdown, protocol.MethodExit,
		protocol.MethodCancelRequest, protocol.MethodACPCancelRequest, protocol.MethodSessionOpen,
		protocol.MethodSessionTurn, protocol.MethodSessionClose, protocol.MethodRequestPermission,
		protocol.MethodPermissionAsk, protocol.MethodPermissionCheck, protocol.MethodPermissionAudit,
		protocol.MethodPermissionRules, protocol.MethodGrantsList, protocol.MethodGrantsRevoke,
		protocol.MethodACPRequestPermission, protocol.MethodACPSessionUpdate, protocol.MethodACPSessionCancel,
	}
	vectors, err := Load(Vectors())
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, v := range vectors {
		for _, s := range v.Steps {
			if len(s.Send) > 0 {
				var m struct{ Method string }
				require.NoError(t, json.Unmarshal(s.Send, &m))
				seen[m.Method] = true
			}
			for _, e := range []*ExpectMessage{s.ExpectRequest, s.ExpectNotification} {
				if e != nil {
					seen[e.Method] = true
				}
			}
		}
	}
	for _, m := range methods {
		assert.True(t, seen[m], "no vector exercises %s", m)
	}
}

// TestRunnerReportsFailures runs deliberately wrong vectors against our
// peer, and the suite against peers that are not perm-peer: each must be
// reported as a failure with its reason, never as a pass or a hang.
func TestRunnerReportsFailures(t *testing.T) {
	bad, err := fs.Sub(os.DirFS("testdata"), "bad")
	require.NoError(t, err)
	canned, err := fs.Sub(os.DirFS("testdata"), "canned")
	require.NoError(t, err)
	tests := []struct {
		name    string
		cmd     []string
		vectors fs.FS
		filter  string
		want    string // in the failure of every result ("|" separates alternatives)
	}{
		{"wrong reply", []string{binPath}, bad, "wrong-reply", `/result/reply: want "once", got "reject"`},
		{"unexpected message", []string{binPath}, bad, "unexpected-message", "unexpected message(s)"},
		{"wrong exit status", []string{binPath}, bad, "wrong-exit", "peer exited with status 1, want 0"},
		{"error instead of result", []string{binPath}, bad, "wrong-error", "want a result, got error"},
		{"unbound variable", []string{binPath}, bad, "unbound-var", `$var "nope" is not bound`},
		// Whether the write or the read notices first is a race.
		{"peer exits at once", []string{"true"}, canned, "", "peer closed its output|write to peer"},
		{"peer writes prose", []string{"sh", "-c", "echo hello; cat >/dev/null"}, canned, "", "not a JSON object"},
		{"peer echoes requests", []string{"cat"}, canned, "", "no response to id 1"},
		{"result breaks the schema", []string{"sh", "-c",
			`read -r line; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"one"}}'; cat >/dev/null`},
			canned, "", "does not fit initialize.result.schema.json"},
		{"response without jsonrpc", []string{"sh", "-c", `read -r line; echo '{"id":1,"result":{}}'; cat >/dev/null`},
			canned, "", `without "jsonrpc":"2.0"`},
		{"peer exits 3", []string{"sh", "-c", `read -r line; echo '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"serverInfo":{"name":"x","version":"1"},"capabilities":{"modes":[],"judge":{"enabled":false},"acp":true}}}'; cat >/dev/null; exit 3`},
			canned, "", "exited with status 3, want 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Run(context.Background(), tt.cmd, Options{Vectors: tt.vectors, Filter: tt.filter, Timeout: 2 * time.Second})
			require.NoError(t, err)
			require.NotEmpty(t, rep.Results)
			assert.False(t, rep.OK())
			assert.Equal(t, len(rep.Results), rep.Failed)
			for _, r := range rep.Results {
				assert.False(t, r.Pass)
				found := false
				for _, alt := range strings.Split(tt.want, "|") {
					found = found || strings.Contains(r.Failure, alt)
				}
				assert.True(t, found, "[%s] failure %q does not contain %q", r.Framing, r.Failure, tt.want)
			}
		})
	}
}

// TestRelativePeerPath: a relative program path is resolved against the
// runner's directory, not the vector's temporary project.
func TestRelativePeerPath(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	rel, err := filepath.Rel(wd, binPath)
	require.NoError(t, err)
	require.False(t, filepath.IsAbs(rel))
	rep, err := Run(context.Background(), []string{rel}, Options{Filter: "lifecycle-initialize", Framings: []Framing{LSP}})
	require.NoError(t, err)
	require.NotEmpty(t, rep.Results)
	for _, r := range rep.Results {
		assert.True(t, r.Pass, "%s: %s", r.Vector, r.Failure)
	}
	assert.Equal(t, binPath, rep.Command[0])
}

func TestRunErrors(t *testing.T) {
	_, err := Run(context.Background(), nil, Options{})
	assert.ErrorContains(t, err, "no peer command")
	_, err = Run(context.Background(), []string{binPath}, Options{Filter: "no-such-vector"})
	assert.ErrorContains(t, err, `no vector matches "no-such-vector"`)
	_, err = Run(context.Background(), []string{binPath}, Options{Vectors: fstest.MapFS{}})
	assert.ErrorContains(t, err, "no vectors")
	rep, err := Run(context.Background(), []string{filepath.Join(t.TempDir(), "missing-peer")}, Options{Filter: "lifecycle-initialize"})
	require.NoError(t, err)
	require.NotEmpty(t, rep.Results)
	for _, r := range rep.Results {
		assert.Contains(t, r.Failure, "start peer")
	}
}

func TestLoadRejectsBadVectors(t *testing.T) {
	tests := []struct {
		name, file, want string
	}{
		{"unknown field", `{"description":"x","steps":[{"send":{"jsonrpc":"2.0","method":"exit"}}],"setps":[]}`, `unknown field "setps"`},
		{"unknown step field", `{"description":"x","steps":[{"sned":{}}]}`, `unknown field "sned"`},
		{"no description", `{"steps":[{"closeStdin":true}]}`, "description is required"},
		{"no steps", `{"description":"x","steps":[]}`, "no steps"},
		{"two actions", `{"description":"x","steps":[{"closeStdin":true,"expectExit":0}]}`, "exactly one action"},
		{"no action", `{"description":"x","steps":[{"note":"hi"}]}`, "exactly one action"},
		{"bad framing", `{"description":"x","framings":["websocket"],"steps":[{"closeStdin":true}]}`, `unknown framing "websocket"`},
		{"result and error", `{"description":"x","steps":[{"expect":{"id":1,"result":{},"error":{}}}]}`, "exactly one of result and error"},
		{"expect without id", `{"description":"x","steps":[{"expect":{"result":{}}}]}`, "needs an id"},
		{"answer without request", `{"description":"x","steps":[{"closeStdin":true,"answer":{"result":1}}]}`, "answer goes with expectRequest"},
		{"padTo without sendRaw", `{"description":"x","steps":[{"closeStdin":true,"padTo":9}]}`, "padTo goes with sendRaw"},
		{"request without method", `{"description":"x","steps":[{"expectRequest":{"params":{}}}]}`, "needs a method"},
		{"not JSON", `{"description":`, "decode"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(fstest.MapFS{"v.json": {Data: []byte(tt.file)}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "vector v.json")
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestEmbeddedVectorsLoad(t *testing.T) {
	vectors, err := Load(Vectors())
	require.NoError(t, err)
	names := make([]string, len(vectors))
	for i, v := range vectors {
		names[i] = v.Name
		assert.NotEmpty(t, v.Spec, "%s: name the SPEC section it checks", v.Name)
	}
	assert.True(t, slices.IsSorted(names))
	assert.Contains(t, names, "lifecycle-initialize")
	assert.Contains(t, names, "acp-tool-call-remembered")
}

func TestMatch(t *testing.T) {
	tests := []struct {
		name    string
		matcher string
		actual  string
		want    string // "" = match; else a substring of the reason
	}{
		{"subset object", `{"a":1}`, `{"a":1,"b":2}`, ""},
		{"missing key", `{"a":1}`, `{"b":1}`, "/a: missing"},
		{"wrong scalar", `{"a":"x"}`, `{"a":"y"}`, `/a: want "x", got "y"`},
		{"numbers by value", `{"a":1}`, `{"a":1.0}`, ""},
		{"array length", `[1,2]`, `[1]`, "want 2 elements, got 1"},
		{"array elementwise subset", `[{"a":1}]`, `[{"a":1,"b":2}]`, ""},
		{"exact rejects extra key", `{"$exact":{"a":1}}`, `{"a":1,"b":2}`, "want exactly"},
		{"exact null", `{"$exact":null}`, `null`, ""},
		{"exact empty object", `{"$exact":{}}`, `{}`, ""},
		{"absent ok", `{"feedback":{"$absent":true}}`, `{"reply":"once"}`, ""},
		{"absent violated", `{"feedback":{"$absent":true}}`, `{"feedback":""}`, "/feedback: want no such member"},
		{"any", `{"data":{"$any":true}}`, `{"data":null}`, ""},
		{"any missing", `{"data":{"$any":true}}`, `{}`, "/data: missing"},
		{"type string", `{"$type":"string"}`, `"x"`, ""},
		{"type integer", `{"$type":"integer"}`, `-32602`, ""},
		{"type integer rejects fraction", `{"$type":"integer"}`, `1.5`, "want a integer"},
		{"type mismatch", `{"$type":"array"}`, `{}`, "want a array"},
		{"contains", `{"$contains":"/sessionId"}`, `"invalid params: /sessionId: required"`, ""},
		{"contains not a string", `{"$contains":"x"}`, `5`, "want a string containing"},
		{"includes", `{"$includes":"once"}`, `["once","reject"]`, ""},
		{"includes missing", `{"$includes":"always"}`, `["once","reject"]`, "no element matches"},
		{"oneOf", `{"$oneOf":["grant","session"]}`, `"session"`, ""},
		{"oneOf none", `{"$oneOf":["grant","session"]}`, `"gate"`, "matches none of"},
		{"not", `{"$not":{"$contains":"user"}}`, `"blocked by policy"`, ""},
		{"not violated", `{"$not":{"$contains":"policy"}}`, `"blocked by policy"`, "must not match"},
		{"unknown operator", `{"$regex":"x"}`, `"x"`, "unknown matcher operator $regex"},
		{"nested pointer", `{"a":{"b":[0,{"c":true}]}}`, `{"a":{"b":[0,{"c":false}]}}`, "/a/b/1/c: want true, got false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := decodeJSON([]byte(tt.matcher))
			require.NoError(t, err)
			a, err := decodeJSON([]byte(tt.actual))
			require.NoError(t, err)
			got := vars{}.match("", m, a)
			if tt.want == "" {
				assert.Empty(t, got)
			} else {
				assert.Contains(t, got, tt.want)
			}
		})
	}
}

func TestMatchVars(t *testing.T) {
	vs := vars{}
	m, _ := decodeJSON([]byte(`{"id":{"$var":"ask"}}`))
	first, _ := decodeJSON([]byte(`{"id":"ask-1"}`))
	other, _ := decodeJSON([]byte(`{"id":"ask-2"}`))
	require.Empty(t, vs.match("", m, first))
	assert.Equal(t, "ask-1", vs["ask"])
	assert.Empty(t, vs.match("", m, first))
	assert.Contains(t, vs.match("", m, other), `want "ask-1" (bound to $ask), got "ask-2"`)

	// A failed $oneOf branch binds nothing.
	vs2 := vars{}
	alt, _ := decodeJSON([]byte(`{"$oneOf":[{"a":{"$var":"x"},"b":1},{"a":{"$var":"y"}}]}`))
	val, _ := decodeJSON([]byte(`{"a":7,"b":2}`))
	require.Empty(t, vs2.match("", alt, val))
	_, boundX := vs2["x"]
	assert.False(t, boundX)
	assert.Equal(t, json.Number("7"), vs2["y"])

	// Substitution for messages the runner sends.
	msg, _ := decodeJSON([]byte(`{"id":{"$var":"ask"},"root":"${project}/src","n":[{"$var":"ask"}]}`))
	out, err := vs.substitute(msg, map[string]string{"project": "/p"})
	require.NoError(t, err)
	b, _ := json.Marshal(out)
	assert.JSONEq(t, `{"id":"ask-1","root":"/p/src","n":["ask-1"]}`, string(b))
	_, err = vars{}.substitute(msg, nil)
	assert.ErrorContains(t, err, `$var "ask" is not bound yet`)
}

func TestReadFrame(t *testing.T) {
	tests := []struct {
		name    string
		fr      Framing
		in      string
		want    string
		wantErr string
	}{
		{"lsp", LSP, "Content-Length: 2\r\n\r\n{}", "{}", ""},
		{"lsp extra header", LSP, "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", "{}", ""},
		{"lsp no length", LSP, "Content-Type: x\r\n\r\n{}", "", "without Content-Length"},
		{"lsp bare LF", LSP, "Content-Length: 2\n\n{}", "", "not ended by CRLF"},
		{"lsp not a header", LSP, "hello\r\n", "", "not a header"},
		{"lsp short body", LSP, "Content-Length: 9\r\n\r\n{}", "", "ended inside a 9-byte body"},
		{"ndjson", NDJSON, "{\"a\":1}\n", `{"a":1}`, ""},
		{"ndjson no newline", NDJSON, "{\"a\":1}", "", "ended inside a line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readFrame(bufioReader(tt.in), tt.fr)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestWriteJSON(t *testing.T) {
	rep := Report{Command: []string{"p"}, Results: []Result{{Vector: "v", Framing: LSP, Pass: false, Failure: "boom"}}, Failed: 1}
	var buf bytes.Buffer
	require.NoError(t, rep.WriteJSON(&buf))
	var back Report
	require.NoError(t, json.Unmarshal(buf.Bytes(), &back))
	assert.Equal(t, "boom", back.Results[0].Failure)
	assert.False(t, back.OK())
	buf.Reset()
	require.NoError(t, rep.WriteTable(&buf))
	assert.Equal(t, "VECTOR  LSP   NDJSON\nv       FAIL  -\n\nFAIL v [lsp]: \n  boom\n\n0 passed, 1 failed\n", buf.String())
	assert.True(t, strings.HasSuffix(buf.String(), "0 passed, 1 failed\n"))
}

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }

// TestCLI drives `perm-peer conformance` as a user would and checks its exit
// status and output.
func TestCLI(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"all pass", []string{"--run", "lifecycle-initialize", "--", binPath}, 0, "VECTOR", ""},
		{"one framing", []string{"--run", "frame-batch", "--framing", "ndjson", "--", binPath}, 0, "frame-batch  -    PASS", ""},
		{"failure exits 1", []string{"--vectors", "testdata/bad", "--run", "wrong-reply", "--timeout", "5s", "--", binPath}, 1,
			"FAIL wrong-reply [lsp]", ""},
		{"json", []string{"--json", "--run", "session-unopened", "--", binPath}, 0, `"passed": 2`, ""},
		{"no command", []string{"--run", "x"}, 2, "", "no peer command"},
		{"bad framing", []string{"--framing", "tcp", "--", binPath}, 2, "", `unknown framing "tcp"`},
		{"vectors not a directory", []string{"--vectors", "no/such/dir", "--", binPath}, 2, "", "is not a directory"},
		{"no vector matches", []string{"--run", "no-such-vector", "--", binPath}, 3, "", `no vector matches "no-such-vector"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binPath, append([]string{"conformance"}, tt.args...)...)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.wantCode, code, "stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			assert.Contains(t, stdout.String(), tt.wantStdout)
			assert.Contains(t, stderr.String(), tt.wantStderr)
			if tt.wantStdout == "" {
				assert.Empty(t, stdout.String())
			}
		})
	}
}
