package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runSetupCmd(t *testing.T, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"setup"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	out, err := cmd.CombinedOutput()
	code := 0
	if x, ok := err.(*exec.ExitError); ok {
		code = x.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// TestSetupClaudeCodeMerges: setup keeps the user's settings and other
// hooks, adds perm-peer's four events with the binary's absolute path,
// and a second run changes nothing.
func TestSetupClaudeCodeMerges(t *testing.T) {
	dir := t.TempDir()
	settings := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := `{"model": "opus", "permissions": {"allow": ["Bash(npm test)"]},
  "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "lint-hook"}]}]}, "zzz": 1}`
	if err := os.WriteFile(settings, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, code := runSetupCmd(t, dir, "claude-code", "--project", dir, "--dry-run"); code != 0 || !strings.Contains(out, "would change") {
		t.Fatalf("dry run: %d %s", code, out)
	}
	if b, _ := os.ReadFile(settings); string(b) != orig {
		t.Fatalf("--dry-run wrote the file:\n%s", b)
	}
	out, code := runSetupCmd(t, dir, "claude-code", "--project", dir)
	if code != 0 || !strings.Contains(out, "added PreToolUse") || !strings.Contains(out, "added UserPromptSubmit") {
		t.Fatalf("setup: %d %s", code, out)
	}
	first, _ := os.ReadFile(settings)
	var got struct {
		Model       string                       `json:"model"`
		Permissions map[string][]string          `json:"permissions"`
		Zzz         int                          `json:"zzz"`
		Hooks       map[string][]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(first, &got); err != nil {
		t.Fatalf("%v\n%s", err, first)
	}
	if got.Model != "opus" || got.Permissions["allow"][0] != "Bash(npm test)" || got.Zzz != 1 {
		t.Fatalf("the user's settings changed:\n%s", first)
	}
	if keys := topKeys(t, first); strings.Join(keys, ",") != "model,permissions,hooks,zzz" {
		t.Fatalf("key order %v", keys)
	}
	pre := got.Hooks["PreToolUse"]
	if len(pre) != 2 || !strings.Contains(string(pre[0]), "lint-hook") {
		t.Fatalf("the user's PreToolUse hook was not kept first: %s", first)
	}
	want := binPath + " hook claude-code"
	for _, ev := range []string{"PreToolUse", "PermissionRequest", "UserPromptSubmit", "PostToolUse"} {
		entries := got.Hooks[ev]
		var e struct {
			Hooks []struct {
				Type, Command string
				Timeout       int
			}
		}
		if len(entries) == 0 || json.Unmarshal(entries[len(entries)-1], &e) != nil || len(e.Hooks) != 1 ||
			e.Hooks[0].Command != want || e.Hooks[0].Type != "command" || e.Hooks[0].Timeout != 30 {
			t.Fatalf("%s: %s, want a command hook running %q", ev, entries, want)
		}
	}
	out, code = runSetupCmd(t, dir, "claude-code", "--project", dir)
	if code != 0 || !strings.Contains(out, "nothing changed") {
		t.Fatalf("second run: %d %s", code, out)
	}
	if second, _ := os.ReadFile(settings); string(second) != string(first) {
		t.Fatalf("second run rewrote the file")
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want the original 0600", fi.Mode().Perm())
	}
}

func topKeys(t *testing.T, raw []byte) []string {
	o, err := parseObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	return o.keys
}

// TestSetupOtherHosts writes each host's file in its own shape.
func TestSetupOtherHosts(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "src")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ host, file, want string }{
		{"codex", ".codex/hooks.json", `"PermissionRequest"`},
		{"gemini", ".gemini/settings.json", `"timeout": 30000`},
		{"cursor", ".cursor/hooks.json", `"version": 1`},
	} {
		out, code := runSetupCmd(t, sub, c.host) // default: the git top-level of the working directory
		if code != 0 {
			t.Fatalf("%s: %d %s", c.host, code, out)
		}
		b, err := os.ReadFile(filepath.Join(dir, c.file))
		if err != nil || !strings.Contains(string(b), c.want) || !strings.Contains(string(b), binPath+" hook "+c.host) {
			t.Fatalf("%s: %v\n%s", c.host, err, b)
		}
		if out, _ := runSetupCmd(t, sub, c.host); !strings.Contains(out, "nothing changed") {
			t.Fatalf("%s second run: %s", c.host, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".gemini", "settings.json"), []byte(`{"hooks": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := runSetupCmd(t, sub, "gemini"); code != exitFailed || !strings.Contains(out, "nothing was changed") {
		t.Fatalf("broken settings: %d %s", code, out)
	}
	out, code := runSetupCmd(t, dir, "zed")
	if code != 0 || !strings.Contains(out, `"agent_servers"`) || !strings.Contains(out, `"claude-agent-acp"`) ||
		!strings.Contains(out, `"--acp"`) || !strings.Contains(out, `"codex-acp"`) || !strings.Contains(out, `"opencode"`) {
		t.Fatalf("setup zed: %d %s", code, out)
	}
}
