package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGlobThroughSymlinkE2E (relia3 N2): a cloned repo can ship up -> ..;
// rm -rf up/* then deletes every sibling of the project. Through the
// binary, every front end refuses it as rm -rf ../* (a floor): check, the
// hooks of the four hosts (Claude Code in auto mode, which approves plain
// asks) and serve's session/requestPermission; and a glob under a link to
// another directory is a human-only write outside the project, which auto
// mode must not approve.
func TestGlobThroughSymlinkE2E(t *testing.T) {
	e := newHookEnv(t)
	other := filepath.Join(filepath.Dir(e.project), "other")
	if err := os.MkdirAll(filepath.Join(other, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"up": "..", "ext": other} {
		if err := os.Symlink(target, filepath.Join(e.project, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(e.cfg, "perm-peer"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.cfg, "perm-peer", "policy.json"), []byte(`{"mode":"auto"}`), 0o600); err != nil {
		t.Fatal(err)
	}

	t.Run("check", func(t *testing.T) {
		for cmd, want := range map[string]string{"rm -rf up/*": "deny", "rm -rf u?/*": "deny", "rm -rf ext/*/*.log": "ask"} {
			c := exec.Command(binPath, "check", "--project", e.project, "--cwd", e.project, "--json", "--", cmd)
			c.Env = append(os.Environ(), "HOME="+filepath.Dir(e.project), "XDG_CONFIG_HOME="+e.cfg, "XDG_STATE_HOME="+e.st)
			out, _ := c.Output()
			var v struct {
				Decision  string `json:"decision"`
				HumanOnly bool   `json:"humanOnly"`
			}
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("%s: %q: %v", cmd, out, err)
			}
			if v.Decision != want || want == "ask" && !v.HumanOnly {
				t.Fatalf("%s: %+v, want %s (human-only when an ask)", cmd, v, want)
			}
		}
	})
	t.Run("claude-code auto mode", func(t *testing.T) {
		for cmd, want := range map[string]string{"rm -rf up/*": "deny", "rm -rf ./up/*": "deny", "rm -rf ext/*/*.log": "ask", "ls src": "allow"} {
			env := *e
			env.t = t
			d, why := preDecision(t, env.run("claude-code", e.claude("PreToolUse", bashInput("u1", cmd))))
			if d != want {
				t.Fatalf("%s: %s (%s), want %s", cmd, d, why, want)
			}
		}
	})
	t.Run("other hosts", func(t *testing.T) {
		cases := []struct {
			host, want string
			in         map[string]any
		}{
			{"gemini", "deny", geminiTool(e, "run_shell_command", map[string]any{"command": "rm -rf up/*"})},
			{"cursor", "deny", cursorShell(e, "rm -rf up/*")},
			{"codex", "deny", map[string]any{"session_id": "cx-1", "cwd": e.project, "hook_event_name": "PreToolUse", "permission_mode": "default",
				"tool_name": "Bash", "tool_input": map[string]any{"command": "rm -rf up/*"}, "tool_use_id": "c1"}},
		}
		for _, c := range cases {
			env := *e
			env.t = t
			r := env.run(c.host, c.in)
			if got := hostVerdict(t, c.host, r.stdout); r.code != 0 || got != c.want {
				t.Fatalf("%s: exit %d verdict %q (%q), want %s", c.host, r.code, got, r.stdout, c.want)
			}
		}
	})
	t.Run("serve", func(t *testing.T) {
		p := startPeer(t, peerOpts{framing: "ndjson", project: e.project})
		p.initialize(false)
		r := p.call("session/requestPermission", permParams("s", bashCall("n2", "rm -rf up/*")), nil)
		if k, _, meta := reply(r); k != "reject" || meta["decidedBy"] != "floor" {
			t.Fatalf("serve rm -rf up/*: %v, want a floor reject", r)
		}
	})
}
