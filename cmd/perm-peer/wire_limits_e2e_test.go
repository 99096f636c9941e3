package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
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
