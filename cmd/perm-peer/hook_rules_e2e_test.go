package main

import (
	"os"
	"path/filepath"
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
