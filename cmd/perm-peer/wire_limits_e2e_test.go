package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// dupKeyRequest is a permission request whose rawInput repeats "command":
// a host whose JSON parser keeps the first copy runs rm -rf ~/, one that
// keeps the last runs git status.
func dupKeyRequest(id int, session string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/requestPermission","params":{"sessionId":%q,"turn":1,`+
		`"toolCall":{"toolCallId":"dup","tool":"bash","kind":"execute","rawInput":{"command":"rm -rf ~/","command":"git status"}}}}`, id, session)
}

// TestDuplicateKeyRawInputNeverOnce: the call reaches the gate as the bytes
// that arrived, so the repeated key makes it human-only: in auto and ask
// mode, headless or asked, it is never approved without a person, and the
// audit keeps both copies (jsonrpc2 used to re-marshal params through a
// map: the gate saw only git status and allowed it).
func TestDuplicateKeyRawInputNeverOnce(t *testing.T) {
	for _, fr := range framings {
		for _, mode := range []string{"auto", "ask"} {
			for _, prompt := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/prompt=%v", fr, mode, prompt), func(t *testing.T) {
					p := startPeer(t, peerOpts{framing: fr})
					p.initialize(prompt)
					session := "dup-" + mode
					if m := p.call("session/open", map[string]any{"sessionId": session, "mode": mode}, nil); m.errCode() != 0 {
						t.Fatalf("session/open: %v", m)
					}
					p.sendRaw([]byte(dupKeyRequest(7, session)), true)
					asked := false
					m := p.await(7, func(ask msg) any {
						asked = true
						if !strings.Contains(fmt.Sprint(ask.params()["reason"]), "repeats the key command") {
							t.Errorf("the ask does not say why: %v", ask.params())
						}
						return map[string]any{"reply": "reject"}
					})
					k, _, meta := reply(m)
					if k != "reject" {
						t.Fatalf("a call with a repeated rawInput key was answered %q: %v", k, m)
					}
					if prompt != asked {
						t.Fatalf("prompt=%v but asked=%v (%v)", prompt, asked, m)
					}
					want := map[bool]string{false: "headless", true: "user"}[prompt]
					if meta["decidedBy"] != want {
						t.Fatalf("decidedBy %v, want %s: %v", meta["decidedBy"], want, m)
					}
					a := p.call("permission/audit", map[string]any{"sessionId": session}, nil)
					recs, _ := a.result()["records"].([]any)
					if len(recs) != 1 {
						t.Fatalf("want one record, got %v", a)
					}
					rec, _ := json.Marshal(recs[0])
					if !strings.Contains(string(rec), "human.duplicate-key") ||
						!strings.Contains(string(rec), "rm -rf ~/") || !strings.Contains(string(rec), "git status") {
						t.Fatalf("the audit lost a copy of the repeated key: %s", rec)
					}
				})
			}
		}
	}
}

// nextRaw returns the next message from the peer with its bytes.
func (p *peerProc) nextRaw() (msg, []byte) {
	p.t.Helper()
	select {
	case m, ok := <-p.msgs:
		if !ok {
			p.t.Fatalf("peer closed its output; stderr:\n%s", p.stderr.String())
		}
		return m, <-p.raw
	case <-time.After(hangLimit):
		p.t.Fatalf("no message from peer within %s", hangLimit)
	}
	return nil, nil
}

// awaitSkippingErrors is await for a request whose permission/ask gets a
// bad answer: the peer's error frames about that answer (id null) are
// skipped and counted.
func (p *peerProc) awaitSkippingErrors(id int) (reply msg, nullErrors int) {
	p.t.Helper()
	for {
		m := p.next()
		switch {
		case m.method() != "":
			continue // $/cancelRequest
		case m.id() == nil && m.errCode() != 0:
			nullErrors++
			continue
		}
		if n, ok := m.id().(float64); ok && int(n) == id {
			return m, nullErrors
		}
		p.t.Fatalf("unexpected message while waiting for %d: %v", id, m)
	}
}

// TestBadAskAnswerRejectsHeadless (H1): an editor answer to permission/ask
// that the frame reader rejects ends that ask, as a headless reject, when
// its id can be read: it used to be dropped, and the request waited until
// stdin closed (no ask timeout by default).
func TestBadAskAnswerRejectsHeadless(t *testing.T) {
	huge := strings.Repeat("a", 4<<20)
	answers := map[string]func(id string) []byte{
		"over 4 MiB": func(id string) []byte {
			return []byte(`{"jsonrpc":"2.0","id":"` + id + `","result":{"reply":"once","feedback":"` + huge + `"}}`)
		},
		"invalid UTF-8": func(id string) []byte {
			return []byte(`{"jsonrpc":"2.0","id":"` + id + `","result":{"reply":"once","feedback":"caf` + "\xe9" + `"}}`)
		},
		"truncated": func(id string) []byte { return []byte(`{"jsonrpc":"2.0","id":"` + id + `","result":{"reply":"on`) },
		"jsonrpc 1.0": func(id string) []byte {
			return []byte(`{"jsonrpc":"1.0","id":"` + id + `","result":{"reply":"once"}}`)
		},
		"method and result": func(id string) []byte {
			return []byte(`{"jsonrpc":"2.0","id":"` + id + `","method":"x","result":{"reply":"once"}}`)
		},
	}
	for _, fr := range framings {
		for name, answer := range answers {
			t.Run(fr+"/"+name, func(t *testing.T) {
				p := startPeer(t, peerOpts{framing: fr})
				p.initialize(true)
				id := p.request("session/requestPermission", permParams("s1", bashCall("c1", "make deploy")))
				ask := p.next()
				if ask.method() != "permission/ask" {
					t.Fatalf("want permission/ask, got %v", ask)
				}
				p.sendRaw(answer(ask.id().(string)), true)
				m, nullErrors := p.awaitSkippingErrors(id)
				k, _, meta := reply(m)
				if k != "reject" || meta["decidedBy"] != "headless" {
					t.Fatalf("a bad answer must end the ask as a headless reject: %v", m)
				}
				if !strings.Contains(fmt.Sprint(meta["reason"]), "unreadable answer") {
					t.Fatalf("the reason does not say why: %v", meta)
				}
				if nullErrors != 1 {
					t.Fatalf("want one error frame (id null) about the bad answer, got %d", nullErrors)
				}
				stillServes(t, p, "after")
			})
		}
	}
}

// TestLargeIDsAnsweredWithTheirID (M4): ids up to 2^64-1 are served and
// answered with their own id (jsonrpc2 read numeric ids as int64: an
// id-less -32600 for 2^63 and above).
func TestLargeIDsAnsweredWithTheirID(t *testing.T) {
	for _, fr := range framings {
		p := startPeer(t, peerOpts{framing: fr})
		p.initialize(false)
		for _, id := range []string{"9223372036854775807", "9223372036854775808", "18446744073709551615"} {
			p.sendRaw([]byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"grants/list","params":{}}`), true)
			m, raw := p.nextRaw()
			if m.errCode() != 0 || !bytes.HasPrefix(raw, []byte(`{"id":`+id+`,"result":`)) {
				t.Fatalf("%s id %s: %s", fr, id, raw)
			}
		}
		p.sendRaw([]byte(`{"jsonrpc":"2.0","id":18446744073709551616,"method":"grants/list","params":{}}`), true)
		if m := p.next(); m.errCode() != -32600 || m.id() != nil {
			t.Fatalf("an id beyond 2^64-1: %v", m)
		}
	}
}

// TestFrameLimitSameInBothFramings (L1): a body of exactly the limit is
// read in both framings, one byte more is -32600 in both (NDJSON used to
// take 4 MiB + 1).
func TestFrameLimitSameInBothFramings(t *testing.T) {
	body := func(size int) []byte {
		head := `{"jsonrpc":"2.0","id":9,"method":"no/such","params":{"pad":"`
		tail := `"}}`
		return []byte(head + strings.Repeat("x", size-len(head)-len(tail)) + tail)
	}
	for _, fr := range framings {
		p := startPeer(t, peerOpts{framing: fr})
		p.initialize(false)
		p.sendRaw(body(4<<20), true)
		if m := p.next(); m.errCode() != -32601 {
			t.Fatalf("%s: a body of exactly 4 MiB: %v", fr, m)
		}
		p.sendRaw(body(4<<20+1), true)
		if m := p.next(); m.errCode() != -32600 || m.id() != nil {
			t.Fatalf("%s: a body of 4 MiB + 1: %v", fr, m)
		}
		stillServes(t, p, "after")
	}
}

// TestOversizeContentLengthAnsweredAtOnce (M8): an LSP Content-Length over
// the limit is answered when its header is read, before its body arrives;
// the body is then skipped and the next frame served. A length 256× over
// the limit is a lost stream: answered, and the peer stops reading.
func TestOversizeContentLengthAnsweredAtOnce(t *testing.T) {
	p := startPeer(t, peerOpts{framing: "lsp"})
	p.initialize(false)
	const n = 5 << 20
	p.sendRaw([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", n)), false)
	if m := p.next(); m.errCode() != -32600 || !strings.Contains(fmt.Sprint(m["error"]), "exceeds") {
		t.Fatalf("want -32600 before the body: %v", m)
	}
	p.sendRaw(bytes.Repeat([]byte("x"), n), false)
	stillServes(t, p, "after")

	lost := startPeer(t, peerOpts{framing: "lsp"})
	lost.initialize(false)
	lost.sendRaw([]byte("Content-Length: 3000000000\r\n\r\n"), false)
	if m := lost.next(); m.errCode() != -32600 || !strings.Contains(fmt.Sprint(m["error"]), "lost") {
		t.Fatalf("want -32600 naming a lost stream: %v", m)
	}
	if code := lost.wait(); code != 0 {
		t.Fatalf("a lost stream ends like EOF, exit 0; got %d", code)
	}
}

// TestFoldedKeyRejected: a params key that differs from a field only in
// letter case is -32602 naming it, never folded into the field (the
// validator ignores "KIND"; encoding/json would decode it into kind).
func TestFoldedKeyRejected(t *testing.T) {
	p := startPeer(t, peerOpts{framing: "ndjson"})
	p.initialize(false)
	p.sendRaw([]byte(`{"jsonrpc":"2.0","id":3,"method":"session/requestPermission","params":{"sessionId":"s","toolCall":{"toolCallId":"c","tool":"bash","kind":"execute","KIND":"bogus","rawInput":{"command":"ls"}}}}`), true)
	m := p.next()
	if m.errCode() != -32602 || !strings.Contains(fmt.Sprint(m["error"]), "/toolCall/KIND") {
		t.Fatalf("want -32602 at /toolCall/KIND: %v", m)
	}
	if n := auditCount(t, p, "s"); n != 0 {
		t.Fatalf("a rejected request left %d records", n)
	}
}
