package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

var framings = []string{"lsp", "ndjson"}

// TestEndToEnd drives the real binary as an editor would, over both framings,
// through the walking skeleton's cases.
func TestEndToEnd(t *testing.T) {
	for _, fr := range framings {
		t.Run(fr, func(t *testing.T) {
			p := startPeer(t, peerOpts{framing: fr})

			// Before initialize: -32002.
			if m := p.call("session/requestPermission", permParams("s1", bashCall("c0", "ls")), nil); m.errCode() != -32002 {
				t.Fatalf("before initialize: want -32002, got %v", m)
			}

			init := p.initialize(true).result()
			if init["protocolVersion"] != float64(1) || init["serverInfo"].(map[string]any)["name"] != "perm-peer" {
				t.Fatalf("initialize result: %v", init)
			}
			p.notify("initialized", map[string]any{})
			if m := p.call("session/open", map[string]any{"sessionId": "s1", "agent": "test-agent"}, nil); m.errCode() != 0 || len(m.result()) != 0 {
				t.Fatalf("session/open: %v", m)
			}
			p.notify("session/turn", map[string]any{"sessionId": "s1", "turn": 1, "userMessage": "look around"})

			// Fast path: a read inside the project.
			m := p.call("session/requestPermission", permParams("s1", map[string]any{
				"toolCallId": "c1", "tool": "read", "kind": "read", "rawInput": map[string]any{"path": "README.md"}}), nil)
			if k, _, meta := reply(m); k != "once" || meta["decidedBy"] != "gate" {
				t.Fatalf("fast path: %v", m)
			}

			// Hard floor.
			m = p.call("session/requestPermission", permParams("s1", bashCall("c2", "rm -rf /")), nil)
			k, fb, meta := reply(m)
			if k != "reject" || meta["decidedBy"] != "floor" || meta["risk"] != "critical" {
				t.Fatalf("floor: %v", m)
			}
			if !strings.Contains(fb, "policy") || strings.Contains(fb, "user rejected") {
				t.Fatalf("floor feedback must name the policy, got %q", fb)
			}

			// Escalation answered with a note.
			var asked msg
			m = p.call("session/requestPermission", permParams("s1", bashCall("c3", "make lint")), func(ask msg) any {
				asked = ask
				return map[string]any{"reply": "once", "feedback": "lint is fine"}
			})
			if asked == nil {
				t.Fatal("no permission/ask was sent")
			}
			ap := asked.params()
			if ap["sessionId"] != "s1" || ap["toolCallId"] != "c3" || ap["reason"] == "" {
				t.Fatalf("ask params: %v", ap)
			}
			k, fb, meta = reply(m)
			if k != "once" || fb != "lint is fine" || meta["decidedBy"] != "user" ||
				meta["toolResultNote"] != "User approved this tool call with feedback: lint is fine" || meta["auditId"] == "" {
				t.Fatalf("escalation: %v", m)
			}

			// A garbage frame gets -32700 with id null, and the peer goes on.
			p.sendRaw([]byte(`{"jsonrpc": "2.0", "id": 9, "method": `), true)
			if g := p.next(); g.errCode() != -32700 || g.id() != nil {
				t.Fatalf("garbage frame: %v", g)
			}
			// JSON that is not a request: -32600.
			p.sendRaw([]byte(`{"hello":"world"}`), true)
			if g := p.next(); g.errCode() != -32600 {
				t.Fatalf("not a request: %v", g)
			}
			// Unknown method: -32601.
			if m := p.call("permission/nope", map[string]any{}, nil); m.errCode() != -32601 {
				t.Fatalf("unknown method: %v", m)
			}
			// Invalid params: -32602 naming the field.
			m = p.call("session/requestPermission", map[string]any{"sessionId": 7, "toolCall": map[string]any{}}, nil)
			if m.errCode() != -32602 || !strings.Contains(fmt.Sprint(m["error"]), "sessionId") {
				t.Fatalf("invalid params: %v", m)
			}

			// Cancel a request waiting on the user: -32800, and the ask is withdrawn.
			id := p.request("session/requestPermission", permParams("s1", bashCall("c4", "make deploy")))
			ask := p.next()
			if ask.method() != "permission/ask" {
				t.Fatalf("want permission/ask, got %v", ask)
			}
			cancelMethod, cancelKey := "$/cancelRequest", "id"
			if fr == "ndjson" {
				cancelMethod, cancelKey = "$/cancel_request", "requestId"
			}
			p.notify(cancelMethod, map[string]any{cancelKey: id})
			var gotCancel, gotWithdraw bool
			for !gotCancel || !gotWithdraw {
				m := p.next()
				switch {
				case m.method() == "$/cancelRequest" && m.params()["id"] == ask.id():
					gotWithdraw = true
				case m.id() == float64(id):
					if m.errCode() != -32800 {
						t.Fatalf("cancelled request: want -32800, got %v", m)
					}
					gotCancel = true
				default:
					t.Fatalf("unexpected message during cancel: %v", m)
				}
			}

			// The peer still serves after all that.
			m = p.call("session/requestPermission", permParams("s1", bashCall("c5", "git status")), nil)
			if k, _, _ := reply(m); k != "once" {
				t.Fatalf("after bad input: %v", m)
			}

			if m := p.call("shutdown", nil, nil); m.errCode() != 0 || m["result"] != nil {
				t.Fatalf("shutdown: %v", m)
			}
			p.notify("exit", nil)
			if code := p.wait(); code != 0 {
				t.Fatalf("exit after shutdown: code %d", code)
			}
		})
	}
}

func TestHeadlessReject(t *testing.T) {
	for _, fr := range framings {
		t.Run(fr, func(t *testing.T) {
			p := startPeer(t, peerOpts{framing: fr})
			p.initialize(false)
			m := p.call("session/requestPermission", permParams("s1", bashCall("c1", "make deploy")), nil)
			k, fb, meta := reply(m)
			if k != "reject" || meta["decidedBy"] != "headless" || strings.Contains(fb, "user rejected") {
				t.Fatalf("headless: %v", m)
			}
		})
	}
}

func TestExitCodes(t *testing.T) {
	t.Run("exit without shutdown", func(t *testing.T) {
		p := startPeer(t, peerOpts{framing: "lsp"})
		p.initialize(true)
		p.notify("exit", nil)
		if code := p.wait(); code != 1 {
			t.Fatalf("want exit code 1, got %d", code)
		}
	})
	t.Run("EOF", func(t *testing.T) {
		p := startPeer(t, peerOpts{framing: "ndjson"})
		p.initialize(true)
		_ = p.in.Close()
		if code := p.wait(); code != 0 {
			t.Fatalf("want exit code 0 on EOF, got %d", code)
		}
	})
}

// TestOversizeFrame: a frame over 4 MiB is answered -32600 and skipped.
func TestOversizeFrame(t *testing.T) {
	for _, fr := range framings {
		t.Run(fr, func(t *testing.T) {
			p := startPeer(t, peerOpts{framing: fr})
			p.initialize(true)
			big := `{"jsonrpc":"2.0","id":5,"method":"permission/check","params":{"toolCall":{"tool":"bash","rawInput":{"command":"` +
				strings.Repeat("a", 4<<20+10) + `"}}}}`
			p.sendRaw([]byte(big), true)
			if m := p.next(); m.errCode() != -32600 || m.id() != nil {
				t.Fatalf("oversize: %v", m)
			}
			m := p.call("session/requestPermission", permParams("s1", bashCall("c1", "ls")), nil)
			if k, _, _ := reply(m); k != "once" {
				t.Fatalf("after oversize frame: %v", m)
			}
		})
	}
}

// TestDemo runs `perm-peer demo` as `make demo` does: it plays its scripted
// session against its own binary and must end cleanly.
func TestDemo(t *testing.T) {
	out, err := runCLI("demo")
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	for _, want := range []string{`"decidedBy":"gate"`, `"decidedBy":"floor"`, "permission/ask", `"toolResultNote":"User approved this tool call with feedback: `, "User approved bash: make lint (standing) with note", "exited with code 0"} {
		if !strings.Contains(out, want) {
			t.Fatalf("demo transcript lacks %q:\n%s", want, out)
		}
	}
}

// TestInitializeRejectsBadProjectRoot: a relative or missing project root is
// invalid params, and the peer stays uninitialized.
func TestInitializeRejectsBadProjectRoot(t *testing.T) {
	p := startPeer(t, peerOpts{framing: "ndjson"})
	for _, root := range []string{"relative/dir", "/does/not/exist"} {
		m := p.call("initialize", map[string]any{"protocolVersion": 1, "project": map[string]any{"root": root}}, nil)
		if m.errCode() != -32602 || !strings.Contains(fmt.Sprint(m["error"]), "/project/root") {
			t.Fatalf("root %q: %v", root, m)
		}
	}
	if m := p.call("permission/check", map[string]any{"toolCall": bashCall("x", "ls")}, nil); m.errCode() != -32002 {
		t.Fatalf("after a failed initialize: %v", m)
	}
}

// An editor reply that repeats a key in another letter case is no answer:
// encoding/json would take the last copy ("once"), the editor may have
// meant the first. The call is rejected without the user, and nothing is
// granted.
func TestEditorReplyWithRepeatedKeyRejects(t *testing.T) {
	p := startPeer(t, peerOpts{framing: "ndjson"})
	p.initialize(true)
	m := p.call("session/requestPermission", permParams("s1", bashCall("c1", "make deploy")), func(msg) any {
		return json.RawMessage(`{"reply":"reject","REPLY":"once"}`)
	})
	if k, _, meta := reply(m); k != "reject" || meta["decidedBy"] == "user" {
		t.Fatalf("a reply with a repeated key was taken: %v", m)
	}
}
