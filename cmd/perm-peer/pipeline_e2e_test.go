package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func options(ask msg) []string {
	var out []string
	for _, o := range ask.params()["options"].([]any) {
		out = append(out, o.(string))
	}
	return out
}

// TestAlwaysGrants: "always" covers the same call for the rest of the
// session (decidedBy session) and, as a persistent project grant, in other
// sessions (decidedBy grant) until it is revoked.
func TestAlwaysGrants(t *testing.T) {
	p := startPeer(t, peerOpts{framing: "lsp"})
	p.initialize(true)
	var asked msg
	r := p.call("session/requestPermission", permParams("s1", bashCall("a1", "make lint")), func(ask msg) any {
		asked = ask
		return map[string]any{"reply": "always"}
	})
	if got := options(asked); strings.Join(got, ",") != "once,always,reject" {
		t.Fatalf("options: %v", got)
	}
	covers, _ := asked.params()["alwaysCovers"].(string)
	if !strings.Contains(covers, "make lint") {
		t.Fatalf("alwaysCovers %q does not name the command", covers)
	}
	if k, _, meta := reply(r); k != "always" || meta["decidedBy"] != "user" {
		t.Fatalf("always reply: %v", r)
	}
	r = p.call("session/requestPermission", permParams("s1", bashCall("a2", "make lint")), nil)
	if k, _, meta := reply(r); k != "once" || meta["decidedBy"] != "session" {
		t.Fatalf("same session: %v", r)
	}
	r = p.call("session/requestPermission", permParams("s2", bashCall("a3", "make lint")), nil)
	if k, _, meta := reply(r); k != "once" || meta["decidedBy"] != "grant" {
		t.Fatalf("other session: %v", r)
	}
	// A different command is not covered.
	r = p.call("session/requestPermission", permParams("s2", bashCall("a4", "make deploy")), func(msg) any { return map[string]any{"reply": "reject"} })
	if k, fb, meta := reply(r); k != "reject" || meta["decidedBy"] != "user" || fb != "rejected by the user" {
		t.Fatalf("uncovered command: %v", r)
	}

	list := p.call("grants/list", map[string]any{}, nil)
	grants := list.result()["grants"].([]any)
	if len(grants) != 1 {
		t.Fatalf("want one grant, got %v", grants)
	}
	g := grants[0].(map[string]any)
	if g["covers"] != covers || g["id"] == "" {
		t.Fatalf("grant: %v", g)
	}
	if m := p.call("grants/revoke", map[string]any{"id": g["id"]}, nil); m.errCode() != 0 {
		t.Fatalf("revoke: %v", m)
	}
	if m := p.call("grants/revoke", map[string]any{"id": g["id"]}, nil); m.errCode() != -32602 {
		t.Fatalf("revoking twice: %v", m)
	}
	for _, s := range []string{"s1", "s2"} {
		var reasked bool
		r = p.call("session/requestPermission", permParams(s, bashCall("a5", "make lint")), func(msg) any {
			reasked = true
			return map[string]any{"reply": "once"}
		})
		if !reasked {
			t.Fatalf("%s: a revoked grant still covers the call: %v", s, r)
		}
	}
}

// TestAlwaysNotOfferedForCompound: a compound command gets no "always", and
// an "always" answer anyway runs once and grants nothing.
func TestAlwaysNotOfferedForCompound(t *testing.T) {
	p := startPeer(t, peerOpts{framing: "ndjson"})
	p.initialize(true)
	var asked msg
	r := p.call("session/requestPermission", permParams("s1", bashCall("x1", "make a && make b")), func(ask msg) any {
		asked = ask
		return map[string]any{"reply": "always"}
	})
	for _, o := range options(asked) {
		if o == "always" {
			t.Fatalf("always offered for a compound command: %v", asked.params())
		}
	}
	if k, _, _ := reply(r); k != "once" {
		t.Fatalf("want once, got %v", r)
	}
	if g := p.call("grants/list", map[string]any{}, nil).result()["grants"].([]any); len(g) != 0 {
		t.Fatalf("a grant was created: %v", g)
	}
}

func TestCheckIsADryRun(t *testing.T) {
	p := startPeer(t, peerOpts{framing: "ndjson"})
	p.initialize(true)
	r := p.call("permission/check", map[string]any{"toolCall": bashCall("k1", "rm -rf /")}, nil)
	res := r.result()
	if res["decision"] != "deny" || res["risk"] != "critical" || len(res["reasons"].([]any)) == 0 {
		t.Fatalf("check: %v", r)
	}
	if recs := p.call("permission/audit", map[string]any{}, nil).result()["records"].([]any); len(recs) != 0 {
		t.Fatalf("check wrote %d audit records", len(recs))
	}
}

func TestModes(t *testing.T) {
	p := startPeer(t, peerOpts{framing: "ndjson"})
	p.initialize(false)
	for _, mode := range []string{"auto", "full"} {
		sid := "m-" + mode
		p.call("session/open", map[string]any{"sessionId": sid, "mode": mode}, nil)
		r := p.call("session/requestPermission", permParams(sid, bashCall("m1", "make deploy")), nil)
		if k, _, meta := reply(r); k != "once" || meta["decidedBy"] != "mode" {
			t.Fatalf("%s mode, open call: %v", mode, r)
		}
		r = p.call("session/requestPermission", permParams(sid, bashCall("m2", "rm -rf ~")), nil)
		if k, _, meta := reply(r); k != "reject" || meta["decidedBy"] != "floor" {
			t.Fatalf("%s mode, floor: %v", mode, r)
		}
	}
	// Human-only: auto mode cannot clear it, full mode can.
	r := p.call("session/requestPermission", permParams("m-auto", bashCall("m3", "git push --force origin main")), nil)
	if k, _, meta := reply(r); k != "reject" || meta["decidedBy"] != "headless" {
		t.Fatalf("auto mode must not clear a human-only call: %v", r)
	}
	r = p.call("session/requestPermission", permParams("m-full", bashCall("m4", "git push --force origin main")), nil)
	if k, _, meta := reply(r); k != "once" || meta["decidedBy"] != "mode" {
		t.Fatalf("full mode clears a human-only call: %v", r)
	}
	// ask mode (the default) escalates.
	r = p.call("session/requestPermission", permParams("m-default", bashCall("m5", "make deploy")), nil)
	if k, _, meta := reply(r); k != "reject" || meta["decidedBy"] != "headless" {
		t.Fatalf("ask mode, headless: %v", r)
	}
}

// TestSubagentAfterRestart: a note given in a parent session is a rule of a
// subagent opened by another peer process later.
func TestSubagentAfterRestart(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	p := startPeer(t, peerOpts{framing: "ndjson", db: db})
	p.initialize(true)
	p.call("session/open", map[string]any{"sessionId": "parent"}, nil)
	p.call("session/requestPermission", permParams("parent", bashCall("p1", "make migrate")), func(msg) any {
		return map[string]any{"reply": "reject", "feedback": "never migrate without a backup"}
	})
	_ = p.in.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	q := startPeer(t, peerOpts{framing: "lsp", db: db})
	q.initialize(true)
	q.call("session/open", map[string]any{"sessionId": "child", "parentSessionId": "parent"}, nil)
	r := q.call("permission/rules", map[string]any{"sessionId": "child"}, nil)
	rendered, _ := r.result()["rendered"].(string)
	if !strings.Contains(rendered, `User rejected bash: make migrate`) || !strings.Contains(rendered, "never migrate without a backup") {
		t.Fatalf("child rules after restart:\n%s", rendered)
	}
	out, err := runCLI("rules", "--session", "child", "--db", db)
	if err != nil || out != rendered {
		t.Fatalf("perm-peer rules differs from permission/rules (%v):\n%s\nvs\n%s", err, out, rendered)
	}
}

// TestACPWithoutInitialize: an ACP agent sends no initialize; the peer picks
// the option matching its decision, and remembers session/update tool calls.
func TestACPWithoutInitialize(t *testing.T) {
	p := startPeer(t, peerOpts{framing: "ndjson"})
	opts := []map[string]any{
		{"optionId": "yes", "name": "Allow", "kind": "allow_once"},
		{"optionId": "yes-all", "name": "Always", "kind": "allow_always"},
		{"optionId": "no", "name": "Reject", "kind": "reject_once"},
	}
	outcome := func(m msg) (string, string, map[string]any) {
		r := m.result()
		o, _ := r["outcome"].(map[string]any)
		meta, _ := r["_meta"].(map[string]any)
		id, _ := o["optionId"].(string)
		return o["outcome"].(string), id, meta
	}
	// Announced first, then asked about by id only.
	p.notify("session/update", map[string]any{"sessionId": "acp1", "update": map[string]any{
		"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Delete everything", "kind": "execute",
		"status": "pending", "rawInput": map[string]any{"command": "rm -rf /"}}})
	r := p.call("session/request_permission", map[string]any{"sessionId": "acp1", "toolCall": map[string]any{"toolCallId": "t1"}, "options": opts}, nil)
	if o, id, meta := outcome(r); o != "selected" || id != "no" || meta["decidedBy"] != "floor" {
		t.Fatalf("floor via remembered update: %v", r)
	}
	r = p.call("session/request_permission", map[string]any{"sessionId": "acp1", "toolCall": map[string]any{
		"toolCallId": "t2", "kind": "read", "title": "Read README", "rawInput": map[string]any{"path": filepath.Join(p.project, "README.md")}}, "options": opts}, nil)
	if o, id, _ := outcome(r); o != "selected" || id != "yes" {
		t.Fatalf("read: %v", r)
	}
	r = p.call("session/request_permission", map[string]any{"sessionId": "acp1", "toolCall": map[string]any{
		"toolCallId": "t3", "kind": "execute", "rawInput": map[string]any{"command": "make deploy"}}, "options": opts}, nil)
	if o, id, meta := outcome(r); o != "selected" || id != "no" || meta["decidedBy"] != "headless" {
		t.Fatalf("needs a human, none present: %v", r)
	}
	// No reject option offered: cancelled, never an allow.
	r = p.call("session/request_permission", map[string]any{"sessionId": "acp1", "toolCall": map[string]any{
		"toolCallId": "t4", "kind": "execute", "rawInput": map[string]any{"command": "make deploy"}}, "options": opts[:2]}, nil)
	if o, _, _ := outcome(r); o != "cancelled" {
		t.Fatalf("no matching option: %v", r)
	}
	// Our own methods still need initialize.
	if m := p.call("permission/check", map[string]any{"toolCall": bashCall("x", "ls")}, nil); m.errCode() != -32002 {
		t.Fatalf("permission/check before initialize: %v", m)
	}
}

// runCLI runs the binary with args and returns stdout.
func runCLI(args ...string) (string, error) {
	cmd := exec.Command(binPath, args...)
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("perm-peer %v: %w", args, err)
	}
	return string(out), nil
}

// A session's working directory holds across processes and down to its
// subagents: permission/check in a later process, and a subagent opened
// without a cwd, read relative paths from where the session works. With
// the cwd "/", "cat etc/hostname" reads /etc/hostname, outside the project
// (it asks; headless, that is a reject); read from the project it would be
// a project file, allowed.
func TestSessionCwdAfterRestartAndInSubagents(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a.db")
	p := startPeer(t, peerOpts{framing: "ndjson", db: db})
	p.initialize(false)
	p.call("session/open", map[string]any{"sessionId": "root", "cwd": "/"}, nil)
	p.call("session/open", map[string]any{"sessionId": "sub", "parentSessionId": "root"}, nil)
	r := p.call("session/requestPermission", permParams("sub", bashCall("c1", "cat etc/hostname")), nil)
	if k, _, meta := reply(r); k != "reject" || meta["decidedBy"] != "headless" {
		t.Fatalf("a subagent did not inherit its parent's cwd: %v", r)
	}
	_ = p.in.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	q := startPeer(t, peerOpts{framing: "ndjson", db: db})
	q.initialize(false)
	c := q.call("permission/check", map[string]any{"sessionId": "root", "toolCall": bashCall("c2", "cat etc/hostname")}, nil)
	if c.result()["decision"] != "ask" {
		t.Fatalf("permission/check ignored the stored session's cwd: %v", c)
	}
}
