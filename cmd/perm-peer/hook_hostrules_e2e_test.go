package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// geminiSystemSettings is where this env's Gemini system settings would
// be (GEMINI_CLI_SYSTEM_SETTINGS_PATH): absent unless a test writes it.
func (e *hookEnv) geminiSystemSettings() string {
	return filepath.Join(e.cfg, "gemini-system-settings.json")
}

// hostFiles writes files relative to the test's home ("~/"), project
// ("p/") or config directory ("cfg/").
func (e *hookEnv) hostFiles(files map[string]string) {
	e.t.Helper()
	home := filepath.Dir(e.project)
	for rel, text := range files {
		path := filepath.Join(home, strings.TrimPrefix(rel, "~/"))
		switch {
		case strings.HasPrefix(rel, "p/"):
			path = filepath.Join(e.project, strings.TrimPrefix(rel, "p/"))
		case strings.HasPrefix(rel, "cfg/"):
			path = filepath.Join(e.cfg, strings.TrimPrefix(rel, "cfg/"))
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			e.t.Fatal(err)
		}
	}
}

// geminiVerdict is the BeforeTool answer: "deny", "ask" or "none" ({}:
// Gemini's own policy decides).
func geminiVerdict(t *testing.T, r hookResult) (string, string) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d (stderr %q), want 0", r.code, r.stderr)
	}
	var out struct {
		Decision string `json:"decision"`
		Reason   string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	if out.Decision == "" {
		return "none", ""
	}
	return out.Decision, out.Reason
}

// TestHookGeminiSettingsClearRebase: the shell prefixes the user allows in
// Gemini CLI's own settings (tools.allowed of ~/.gemini/settings.json,
// allow rules of ~/.gemini/policies/*.toml) clear a human-only git rebase as a perm-peer rule naming it would, so
// the hook leaves the call to Gemini ({}) instead of refusing what Gemini
// alone would run (SPEC §10.2). Without the rule the call is refused with
// "ask the user" (Gemini's -p cannot ask). Never a file the repository
// ships, never when a later settings layer may replace the list or the
// policy directory, never a rule narrowed to a mode, never a
// prefix the gate would read wider, never a floor.
func TestHookGeminiSettingsClearRebase(t *testing.T) {
	const (
		rebase = `{"tools": {"allowed": ["run_shell_command(git rebase)"]}}`
		empty  = `{"tools": {"allowed": []}}`
		policy = "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"git rebase\"\ndecision = \"allow\"\npriority = 100\n"
	)
	cases := []struct {
		name    string
		files   map[string]string
		env     []string // relative to the test's home, for GEMINI_CLI_HOME
		command string
		want    string
	}{
		{name: "no settings", command: "git rebase origin/main", want: "deny"},
		{name: "user rule", files: map[string]string{"~/.gemini/settings.json": rebase}, command: "git rebase origin/main", want: "none"},
		{name: "user rule, bare rebase", files: map[string]string{"~/.gemini/settings.json": rebase}, command: "git rebase", want: "none"},
		{name: "ShellTool alias, comments", files: map[string]string{"~/.gemini/settings.json": "{\n  // mine\n  \"tools\": {/* ok */ \"allowed\": [\"ShellTool(git rebase)\"]}\n}"}, command: "git rebase origin/main", want: "none"},
		{name: "sudo named whole", files: map[string]string{"~/.gemini/settings.json": `{"tools":{"allowed":["run_shell_command(sudo apt-get update)"]}}`}, command: "sudo apt-get update", want: "none"},
		{name: "another rewrite", files: map[string]string{"~/.gemini/settings.json": rebase}, command: "git reset --hard origin/main", want: "deny"},
		{name: "shorter word", files: map[string]string{"~/.gemini/settings.json": `{"tools":{"allowed":["run_shell_command(git reb)"]}}`}, command: "git rebase origin/main", want: "deny"},
		{name: "every command", files: map[string]string{"~/.gemini/settings.json": `{"tools":{"allowed":["run_shell_command","run_shell_command(git)"]}}`}, command: "git rebase origin/main", want: "deny"},
		{name: "wildcard is not Gemini's", files: map[string]string{"~/.gemini/settings.json": `{"tools":{"allowed":["run_shell_command(git *)"]}}`}, command: "git rebase origin/main", want: "deny"},
		{name: "double space", files: map[string]string{"~/.gemini/settings.json": `{"tools":{"allowed":["run_shell_command(git  rebase)"]}}`}, command: "git rebase origin/main", want: "deny"},
		{name: "key case", files: map[string]string{"~/.gemini/settings.json": `{"Tools":{"Allowed":["run_shell_command(git rebase)"]}}`}, command: "git rebase origin/main", want: "deny"},
		{name: "not JSON", files: map[string]string{"~/.gemini/settings.json": `{"tools":{"allowed":["run_shell_command(git rebase)"]}`}, command: "git rebase origin/main", want: "deny"},
		{name: "gemini home", files: map[string]string{"~/alt/.gemini/settings.json": rebase, "~/.gemini/settings.json": empty}, env: []string{"alt"}, command: "git rebase origin/main", want: "none"},
		{name: "gemini home elsewhere", files: map[string]string{"~/alt/.gemini/settings.json": empty, "~/.gemini/settings.json": rebase}, env: []string{"alt"}, command: "git rebase origin/main", want: "deny"},
		{name: "project settings", files: map[string]string{"p/.gemini/settings.json": rebase}, command: "git rebase origin/main", want: "deny"},
		{name: "project replaces the list", files: map[string]string{"~/.gemini/settings.json": rebase, "p/.gemini/settings.json": empty}, command: "git rebase origin/main", want: "deny"},
		{name: "project unreadable", files: map[string]string{"~/.gemini/settings.json": rebase, "p/.gemini/settings.json": `{`}, command: "git rebase origin/main", want: "deny"},
		{name: "project other keys", files: map[string]string{"~/.gemini/settings.json": rebase, "p/.gemini/settings.json": `{"tools":{"exclude":[]}}`}, command: "git rebase origin/main", want: "none"},
		{name: "system replaces the list", files: map[string]string{"~/.gemini/settings.json": rebase, "cfg/gemini-system-settings.json": empty}, command: "git rebase origin/main", want: "deny"},
		{name: "outside the project", files: map[string]string{"~/.gemini/settings.json": rebase}, command: "cd /tmp && git rebase origin/main", want: "deny"},
		{name: "floor", files: map[string]string{"~/.gemini/settings.json": `{"tools":{"allowed":["run_shell_command(rm)","run_shell_command(rm -rf)"]}}`}, command: "rm -rf ~", want: "deny"},
		{name: "policy file", files: map[string]string{"~/.gemini/policies/mine.toml": policy}, command: "git rebase origin/main", want: "none"},
		{name: "policy file for yolo only", files: map[string]string{"~/.gemini/policies/mine.toml": policy + "modes = [\"yolo\"]\n"}, command: "git rebase origin/main", want: "deny"},
		{name: "policy file not plain", files: map[string]string{"~/.gemini/policies/mine.toml": policy + "[rule.toolAnnotations]\nreadOnlyHint = true\n"}, command: "git rebase origin/main", want: "deny"},
		{name: "policyPaths elsewhere", files: map[string]string{"~/.gemini/policies/mine.toml": policy, "~/.gemini/settings.json": `{"policyPaths": ["/etc/other"]}`}, command: "git rebase origin/main", want: "deny"},
		{name: "project sets policyPaths", files: map[string]string{"~/.gemini/policies/mine.toml": policy, "p/.gemini/settings.json": `{"policyPaths": []}`}, command: "git rebase origin/main", want: "deny"},
		{name: "project policies", files: map[string]string{"p/.gemini/policies/mine.toml": policy}, command: "git rebase origin/main", want: "deny"},
		{name: "gemini home policies", files: map[string]string{"~/alt/.gemini/policies/mine.toml": policy}, env: []string{"alt"}, command: "git rebase origin/main", want: "none"},
		{name: "plain ask stays Gemini's", files: map[string]string{"~/.gemini/settings.json": `{"tools":{"allowed":["run_shell_command(curl)"]}}`}, command: "curl https://example.com", want: "none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newHookEnv(t)
			e.hostFiles(c.files)
			for _, d := range c.env {
				e.extraEnv = append(e.extraEnv, "GEMINI_CLI_HOME="+filepath.Join(filepath.Dir(e.project), d))
			}
			got, why := geminiVerdict(t, e.run("gemini", geminiTool(e, "run_shell_command", map[string]any{"command": c.command})))
			if got != c.want {
				t.Errorf("%s: %s (%s), want %s", c.command, got, why, c.want)
			}
			if c.want == "deny" && strings.HasPrefix(c.command, "git rebase") && !strings.Contains(why, "ask the user") {
				t.Errorf("%s: reason %q, want the human-only refusal", c.command, why)
			}
		})
	}
}

// codexPre is Codex's PreToolUse for a shell command (codex-rs hooks
// schema pre-tool-use.command.input).
func codexPre(e *hookEnv, command string) map[string]any {
	return map[string]any{"session_id": "cx-1", "turn_id": "turn-1", "transcript_path": nil, "cwd": e.project,
		"hook_event_name": "PreToolUse", "model": "gpt", "permission_mode": "default", "tool_name": "Bash",
		"tool_input": map[string]any{"command": command}, "tool_use_id": "call_1"}
}

// codexVerdict is Codex's PreToolUse answer: "deny" or "none" (Codex's
// approval policy and execpolicy decide).
func codexVerdict(t *testing.T, r hookResult) (string, string) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d (stderr %q), want 0", r.code, r.stderr)
	}
	if r.stdout == "" {
		return "none", ""
	}
	return preDecision(t, r)
}

// TestHookCodexRulesClearRebase: an allow prefix_rule of the user's own
// Codex execpolicy ($CODEX_HOME/rules/*.rules, else ~/.codex/rules) clears
// a human-only git rebase as a perm-peer rule naming it would, so
// PreToolUse stays silent and Codex runs it as it would alone, instead of
// the hook refusing it (SPEC §10.2). A file perm-peer cannot read exactly
// is left out whole; a project's .codex/rules never counts.
func TestHookCodexRulesClearRebase(t *testing.T) {
	const rebase = `prefix_rule(pattern=["git", "rebase"], decision="allow")` + "\n"
	cases := []struct {
		name    string
		files   map[string]string
		env     []string // relative to the test's home, for CODEX_HOME
		command string
		want    string
	}{
		{name: "no rules", command: "git rebase origin/main", want: "deny"},
		{name: "user rule", files: map[string]string{"~/.codex/rules/default.rules": rebase}, command: "git rebase origin/main", want: "none"},
		{name: "sudo named whole", files: map[string]string{"~/.codex/rules/default.rules": `prefix_rule(pattern=["sudo", "apt-get", "update"])`}, command: "sudo apt-get update", want: "none"},
		{name: "alternatives", files: map[string]string{"~/.codex/rules/git.rules": `prefix_rule(pattern=["git", ["commit", "rebase"]])`}, command: "git rebase origin/main", want: "none"},
		{name: "prompt rule", files: map[string]string{"~/.codex/rules/default.rules": `prefix_rule(pattern=["git", "rebase"], decision="prompt")`}, command: "git rebase origin/main", want: "deny"},
		{name: "program only", files: map[string]string{"~/.codex/rules/default.rules": `prefix_rule(pattern=["git"])`}, command: "git rebase origin/main", want: "deny"},
		{name: "another rewrite", files: map[string]string{"~/.codex/rules/default.rules": rebase}, command: "git reset --hard origin/main", want: "deny"},
		{name: "file with more than rules", files: map[string]string{"~/.codex/rules/default.rules": rebase + "X = 1\n"}, command: "git rebase origin/main", want: "deny"},
		{name: "examples", files: map[string]string{"~/.codex/rules/default.rules": `prefix_rule(pattern=["git", "rebase"], match=["git rebase main"])`}, command: "git rebase origin/main", want: "deny"},
		{name: "other extension", files: map[string]string{"~/.codex/rules/default.rules.bak": rebase}, command: "git rebase origin/main", want: "deny"},
		{name: "codex home", files: map[string]string{"~/alt/rules/default.rules": rebase}, env: []string{"alt"}, command: "git rebase origin/main", want: "none"},
		{name: "codex home elsewhere", files: map[string]string{"~/.codex/rules/default.rules": rebase}, env: []string{"alt"}, command: "git rebase origin/main", want: "deny"},
		{name: "project rules", files: map[string]string{"p/.codex/rules/default.rules": rebase}, command: "git rebase origin/main", want: "deny"},
		{name: "outside the project", files: map[string]string{"~/.codex/rules/default.rules": rebase}, command: "cd /tmp && git rebase origin/main", want: "deny"},
		{name: "floor", files: map[string]string{"~/.codex/rules/default.rules": `prefix_rule(pattern=["rm"])` + "\n" + `prefix_rule(pattern=["rm", "-rf"])`}, command: "rm -rf ~", want: "deny"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newHookEnv(t)
			e.hostFiles(c.files)
			for _, d := range c.env {
				e.extraEnv = append(e.extraEnv, "CODEX_HOME="+filepath.Join(filepath.Dir(e.project), d))
			}
			got, why := codexVerdict(t, e.run("codex", codexPre(e, c.command)))
			if got != c.want {
				t.Errorf("%s: %s (%s), want %s", c.command, got, why, c.want)
			}
		})
	}
}
