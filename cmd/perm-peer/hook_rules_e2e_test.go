package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookRuleClearsRebase drives Claude Code's PreToolUse through the
// binary with a user policy: git rebase is human-only (a history rewrite)
// until the user's allow rule names the subcommand (Bash(git rebase:*));
// a wildcard (Bash(git:*), Bash(*)) never clears it, and the named rule
// clears nothing else.
func TestHookRuleClearsRebase(t *testing.T) {
	cases := []struct {
		allow, command, want string
	}{
		{`"Bash(git rebase:*)"`, "git rebase origin/main", "allow"},
		{`"Bash(git rebase:*)"`, "git rebase -i HEAD~3", "allow"},
		{`"Bash(git rebase:*)"`, "git reset --hard origin/main", "ask"},
		{`"Bash(git:*)"`, "git rebase origin/main", "ask"},
		{`"Bash(*)"`, "git rebase origin/main", "ask"},
		{``, "git rebase origin/main", "ask"},
		{`"Bash(git commit --amend:*)"`, "git commit --amend --no-edit", "allow"},
		{`"Bash(git commit:*)"`, "git commit --amend --no-edit", "ask"},
	}
	for _, c := range cases {
		e := newHookEnv(t)
		pol := filepath.Join(e.cfg, "perm-peer", "policy.json")
		if err := os.MkdirAll(filepath.Dir(pol), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(pol, []byte(`{"allow":[`+c.allow+`]}`), 0o600); err != nil {
			t.Fatal(err)
		}
		got, why := preDecision(t, e.run("claude-code", e.claude("PreToolUse", bashInput("t1", c.command))))
		if got != c.want {
			t.Errorf("allow [%s], %s: %s (%s), want %s", c.allow, c.command, got, why, c.want)
		}
	}
}

// TestHookClaudeSettingsClearRebase: the allow rules of the user's own
// Claude Code settings clear a human-only git rebase exactly as a
// perm-peer policy rule naming it does (SPEC §10.2: Claude alone would run
// it without a dialog, so the hook must not add one). Trusted: the user's
// ~/.claude/settings.json (or $CLAUDE_CONFIG_DIR/settings.json) and an
// untracked .claude/settings.local.json. Never a file the repository
// ships, never a wildcard, never Claude's deny/ask lists, never a floor,
// and a plain ask stays without a verdict (Claude's rule decides it).
func TestHookClaudeSettingsClearRebase(t *testing.T) {
	const (
		rebase = `{"permissions":{"allow":["Bash(git rebase:*)"]}}`
		nobody = `{"permissions":{"allow":[]}}`
	)
	cases := []struct {
		name    string
		files   map[string]string // relative to the test's home ("~") or project ("p/")
		git     string            // "": .git is an empty directory; "untracked", "tracked": a real repository
		env     []string          // relative paths under home for CLAUDE_CONFIG_DIR
		command string
		want    string // allow, ask, deny, or "none" (no verdict: Claude decides)
	}{
		{name: "user rule", files: map[string]string{"~/.claude/settings.json": rebase}, command: "git rebase origin/main", want: "allow"},
		{name: "user rule amend", files: map[string]string{"~/.claude/settings.json": `{"permissions":{"allow":["Bash(git commit --amend:*)"]}}`}, command: "git commit --amend --no-edit", want: "allow"},
		{name: "user wildcard", files: map[string]string{"~/.claude/settings.json": `{"permissions":{"allow":["Bash(git:*)","Bash(*)"]}}`}, command: "git rebase origin/main", want: "ask"},
		{name: "deny and ask lists", files: map[string]string{"~/.claude/settings.json": `{"permissions":{"deny":["Bash(git rebase:*)"],"ask":["Bash(git rebase:*)"]}}`}, command: "git rebase origin/main", want: "ask"},
		{name: "outside the project", files: map[string]string{"~/.claude/settings.json": rebase}, command: "cd /tmp && git rebase origin/main", want: "ask"},
		{name: "not JSON", files: map[string]string{"~/.claude/settings.json": `{"permissions":{"allow":["Bash(git rebase:*)"]`}, command: "git rebase origin/main", want: "ask"},
		{name: "config dir", files: map[string]string{"~/alt/settings.json": rebase, "~/.claude/settings.json": nobody}, env: []string{"alt"}, command: "git rebase origin/main", want: "allow"},
		{name: "config dir elsewhere", files: map[string]string{"~/alt/settings.json": nobody, "~/.claude/settings.json": rebase}, env: []string{"alt"}, command: "git rebase origin/main", want: "ask"},
		{name: "project settings.json", files: map[string]string{"p/.claude/settings.json": rebase}, git: "untracked", command: "git rebase origin/main", want: "ask"},
		{name: "tracked local", files: map[string]string{"p/.claude/settings.local.json": rebase}, git: "tracked", command: "git rebase origin/main", want: "ask"},
		{name: "untracked local", files: map[string]string{"p/.claude/settings.local.json": rebase}, git: "untracked", command: "git rebase origin/main", want: "allow"},
		{name: "local, git unreadable", files: map[string]string{"p/.claude/settings.local.json": rebase}, command: "git rebase origin/main", want: "ask"},
		{name: "floor", files: map[string]string{"~/.claude/settings.json": `{"permissions":{"allow":["Bash(rm:*)","Bash(*)"]}}`}, command: "rm -rf ~", want: "deny"},
		{name: "plain ask", files: map[string]string{"~/.claude/settings.json": `{"permissions":{"allow":["Bash(curl:*)"]}}`}, command: "curl https://example.com", want: "none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newHookEnv(t)
			home := filepath.Dir(e.project)
			if c.git != "" {
				gitRepo(t, e.project)
			}
			for rel, text := range c.files {
				path := filepath.Join(home, strings.TrimPrefix(rel, "~/"))
				if strings.HasPrefix(rel, "p/") {
					path = filepath.Join(e.project, strings.TrimPrefix(rel, "p/"))
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if c.git == "tracked" {
				runGit(t, e.project, "add", "-f", ".claude/settings.local.json")
			}
			for _, d := range c.env {
				e.extraEnv = append(e.extraEnv, "CLAUDE_CONFIG_DIR="+filepath.Join(home, d))
			}
			r := e.run("claude-code", e.claude("PreToolUse", bashInput("t1", c.command)))
			if c.want == "none" {
				if r.code != 0 || r.stdout != "" {
					t.Fatalf("%s: exit %d stdout %q, want no verdict", c.command, r.code, r.stdout)
				}
				return
			}
			if got, why := preDecision(t, r); got != c.want {
				t.Errorf("%s: %s (%s), want %s; stderr %s", c.command, got, why, c.want, r.stderr)
			}
		})
	}
}

// TestHookClaudeSettingsNotAtPermissionRequest: a PermissionRequest comes
// after Claude's own rules sent the call to a dialog (an ask rule, or its
// allow rule did not match): Claude's allow rules must not answer it.
func TestHookClaudeSettingsNotAtPermissionRequest(t *testing.T) {
	e := newHookEnv(t)
	settings := filepath.Join(filepath.Dir(e.project), ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(`{"permissions":{"allow":["Bash(git rebase:*)"],"ask":["Bash(git rebase -i:*)"]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.run("claude-code", e.claude("PermissionRequest", bashInput("t1", "git rebase -i HEAD~3")))
	if r.code != 0 || strings.Contains(r.stdout, `"allow"`) {
		t.Fatalf("PermissionRequest git rebase -i: exit %d stdout %q, want no allow", r.code, r.stdout)
	}
	r = e.run("claude-code", e.claude("PreToolUse", bashInput("t2", "git rebase origin/main")))
	if got, why := preDecision(t, r); got != "allow" {
		t.Fatalf("PreToolUse git rebase origin/main: %s (%s), want allow", got, why)
	}
}

// gitRepo makes dir a real git repository (in place of newHookEnv's empty .git).
func gitRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	runGit(t, dir, "init", "-q")
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}
