package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hookEnv is a project (a git checkout) with its own state and config
// directories, as a host's hook process would see them.
type hookEnv struct {
	t        *testing.T
	project  string
	cfg, st  string
	session  string
	trans    string
	extraEnv []string
}

func newHookEnv(t *testing.T) *hookEnv {
	t.Helper()
	tmp := t.TempDir()
	e := &hookEnv{t: t, project: filepath.Join(tmp, "project"), cfg: filepath.Join(tmp, "cfg"), st: filepath.Join(tmp, "state"),
		session: "sess-1", trans: filepath.Join(tmp, "transcript.jsonl")}
	for _, d := range []string{filepath.Join(e.project, ".git"), filepath.Join(e.project, "src"), e.cfg, e.st} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

type hookResult struct {
	code           int
	stdout, stderr string
}

// run feeds one hook input to `perm-peer hook HOST ARGS...`.
func (e *hookEnv) run(host string, input any, args ...string) hookResult {
	e.t.Helper()
	raw, ok := input.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(input); err != nil {
			e.t.Fatal(err)
		}
	}
	cmd := exec.Command(binPath, append([]string{"hook", host}, args...)...)
	cmd.Dir = e.project
	// the test's home and config, never the developer's Claude, Gemini,
	// Codex or system settings
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+e.cfg, "XDG_STATE_HOME="+e.st, "HOME="+filepath.Dir(e.project), "CLAUDE_CODE_SESSION_ATTENDED=1",
		"CLAUDE_CONFIG_DIR=", "GEMINI_CLI_HOME=", "CODEX_HOME=", "GEMINI_CLI_SYSTEM_SETTINGS_PATH="+e.geminiSystemSettings())
	cmd.Env = append(cmd.Env, e.extraEnv...)
	cmd.Stdin = bytes.NewReader(raw)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if x, ok := err.(*exec.ExitError); ok {
		code = x.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return hookResult{code: code, stdout: out.String(), stderr: errb.String()}
}

// claude is a Claude Code hook input of this env's session, with fields.
func (e *hookEnv) claude(event string, fields map[string]any) map[string]any {
	in := map[string]any{"session_id": e.session, "transcript_path": e.trans, "cwd": e.project,
		"permission_mode": "default", "hook_event_name": event}
	for k, v := range fields {
		in[k] = v
	}
	return in
}

func bashInput(id, command string) map[string]any {
	m := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": command, "description": "d"}}
	if id != "" {
		m["tool_use_id"] = id
	}
	return m
}

// audit is the project's audit log, oldest first.
func (e *hookEnv) audit() []map[string]any {
	e.t.Helper()
	cmd := exec.Command(binPath, "audit", "--json", "--project", e.project)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+e.st)
	out, err := cmd.Output()
	if err != nil {
		e.t.Fatalf("audit: %v", err)
	}
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			e.t.Fatalf("audit line %q: %v", line, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// rejectedInDialog plays one turn of a Claude Code session: the prompt,
// then command as call id, which perm-peer leaves to Claude (no verdict at
// PreToolUse or PermissionRequest), and the user's rejection of it in
// Claude's dialog with note.
func (e *hookEnv) rejectedInDialog(prompt, id, command, note string) {
	e.t.Helper()
	e.run("claude-code", e.claude("UserPromptSubmit", map[string]any{"prompt": prompt}))
	if r := e.run("claude-code", e.claude("PreToolUse", bashInput(id, command))); r.stdout != "" {
		e.t.Fatalf("%s: %+v, want no verdict (the host asks)", command, r)
	}
	if r := e.run("claude-code", e.claude("PermissionRequest", bashInput("", command))); r.stdout != "" {
		e.t.Fatalf("PermissionRequest: %+v, want no verdict (Claude shows its dialog)", r)
	}
	e.userRejected(id, note)
}

// userRejected writes this env's transcript as Claude Code 2.1 does when
// the user rejects tool call id in its dialog and says why.
func (e *hookEnv) userRejected(id, note string) {
	e.t.Helper()
	lines := []map[string]any{
		{"type": "assistant", "message": map[string]any{"content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash"}}}},
		{"type": "user", "toolDenialKind": "user-rejected", "userFeedback": note,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "is_error": true,
				"content": "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\n" + note}}}},
	}
	var b bytes.Buffer
	for _, l := range lines {
		raw, _ := json.Marshal(l)
		b.Write(append(raw, '\n'))
	}
	if err := os.WriteFile(e.trans, b.Bytes(), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// preDecision is the permissionDecision of a PreToolUse answer.
func preDecision(t *testing.T, r hookResult) (decision, reason string) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit %d (stderr %q), want 0", r.code, r.stderr)
	}
	var out struct {
		HookSpecificOutput struct {
			HookEventName            string `json:"hookEventName"`
			PermissionDecision       string `json:"permissionDecision"`
			PermissionDecisionReason string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout %q: %v", r.stdout, err)
	}
	if out.HookSpecificOutput.HookEventName != "PreToolUse" {
		t.Fatalf("hookEventName %q", out.HookSpecificOutput.HookEventName)
	}
	return out.HookSpecificOutput.PermissionDecision, out.HookSpecificOutput.PermissionDecisionReason
}

// TestHookClaudeCodeSession drives one Claude Code session through the
// binary, one process per hook call: the turn carries from the prompt to
// every later call, and a call left to the human is audited as the user's
// once when it ran.
func TestHookClaudeCodeSession(t *testing.T) {
	e := newHookEnv(t)
	if r := e.run("claude-code", e.claude("UserPromptSubmit", map[string]any{"prompt": "tidy the build"})); r.code != 0 || r.stdout != "" {
		t.Fatalf("UserPromptSubmit: %+v", r)
	}
	if d, _ := preDecision(t, e.run("claude-code", e.claude("PreToolUse", bashInput("t1", "ls src")))); d != "allow" {
		t.Fatalf("ls src: %s, want allow", d)
	}
	d, why := preDecision(t, e.run("claude-code", e.claude("PreToolUse", bashInput("t2", "rm -rf ~"))))
	if d != "deny" || !strings.Contains(why, "blocked by policy") {
		t.Fatalf("rm -rf ~: %s %q, want deny by policy", d, why)
	}
	push := bashInput("t3", "git push origin main")
	// a plain ask: no verdict, Claude's own rules decide (SPEC §10.2)
	if r := e.run("claude-code", e.claude("PreToolUse", push)); r.code != 0 || r.stdout != "" {
		t.Fatalf("git push: %+v, want no verdict", r)
	}
	// Claude's dialog is about to show for the call left to it: no verdict.
	perm := bashInput("", "git push origin main")
	if r := e.run("claude-code", e.claude("PermissionRequest", perm)); r.code != 0 || r.stdout != "" {
		t.Fatalf("PermissionRequest of a pending ask: %+v, want no verdict", r)
	}
	// A PermissionRequest for a call the hook did not leave to the human
	// (Claude's own ask rule) is decided: a read inside the project is allowed.
	read := map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": filepath.Join(e.project, "src", "a.go")}}
	r := e.run("claude-code", e.claude("PermissionRequest", read))
	if r.code != 0 || !strings.Contains(r.stdout, `"behavior":"allow"`) {
		t.Fatalf("PermissionRequest of a project read: %+v, want allow", r)
	}
	// The human approved the push: it ran.
	post := e.claude("PostToolUse", push)
	post["tool_response"] = map[string]any{"stdout": "ok"}
	for i := 0; i < 2; i++ { // a repeated PostToolUse is audited once
		if r := e.run("claude-code", post); r.code != 0 || r.stdout != "" {
			t.Fatalf("PostToolUse: %+v", r)
		}
	}
	if r := e.run("claude-code", e.claude("UserPromptSubmit", map[string]any{"prompt": "now the docs"})); r.code != 0 {
		t.Fatalf("second prompt: %+v", r)
	}
	if d, _ := preDecision(t, e.run("claude-code", e.claude("PreToolUse", bashInput("t4", "cat README.md")))); d != "allow" {
		t.Fatalf("cat README.md: %s", d)
	}

	recs := e.audit()
	want := []struct {
		cmd, decision, source string
		turn                  float64
	}{
		{"ls src", "once", "auto", 1},
		{"rm -rf ~", "reject", "auto", 1},
		{"", "once", "auto", 1}, // the Read
		{"git push origin main", "once", "user", 1},
		{"cat README.md", "once", "auto", 2},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d audit records, want %d: %v", len(recs), len(want), recs)
	}
	for i, w := range want {
		rec := recs[i]
		if rec["sessionId"] != e.session || rec["turn"] != w.turn || rec["decision"] != w.decision || rec["source"] != w.source {
			t.Errorf("record %d: session %v turn %v decision %v source %v; want %s %v %s %s",
				i, rec["sessionId"], rec["turn"], rec["decision"], rec["source"], e.session, w.turn, w.decision, w.source)
		}
		if w.cmd != "" && !strings.Contains(fmt.Sprint(rec["toolCall"]), w.cmd) {
			t.Errorf("record %d is not %q: %v", i, w.cmd, rec["toolCall"])
		}
	}
}

// TestHookClaudeCodeUserRejectionBecomesRule: the user rejected a call
// left to Claude's dialog and said why; the next hook call of the session
// reads it from the transcript and keeps it as a user rule.
func TestHookClaudeCodeUserRejectionBecomesRule(t *testing.T) {
	e := newHookEnv(t)
	e.rejectedInDialog("ship it", "toolu_9", "git push origin main", "never push to main, open a PR")
	if d, _ := preDecision(t, e.run("claude-code", e.claude("PreToolUse", bashInput("toolu_10", "ls")))); d != "allow" {
		t.Fatalf("ls: %s", d)
	}
	e.run("claude-code", e.claude("PreToolUse", bashInput("toolu_11", "ls src"))) // settles nothing twice
	recs := e.audit()
	var users []map[string]any
	for _, r := range recs {
		if r["source"] == "user" {
			users = append(users, r)
		}
	}
	if len(users) != 1 || users[0]["decision"] != "reject" || users[0]["turn"] != float64(1) ||
		!strings.Contains(fmt.Sprint(users[0]["reply"]), "never push to main, open a PR") {
		t.Fatalf("user records %v, want one reject with the user's words", users)
	}
	cmd := exec.Command(binPath, "rules", "--session", e.session, "--project", e.project)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+e.st)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "User rejected") || !strings.Contains(string(out), "never push to main") {
		t.Fatalf("rules: %v\n%s", err, out)
	}
}

// TestHookFailsClosed: every failure answers deny in the host's blocking
// form (never exit 1), except where the event cannot block (a prompt).
func TestHookFailsClosed(t *testing.T) {
	e := newHookEnv(t)
	pre := e.claude("PreToolUse", bashInput("t1", "ls"))
	cases := []struct {
		name, host string
		input      any
		args       []string
		setup      func(t *testing.T, e *hookEnv) func()
		wantExit   int
		wantStdout string // substring
		wantErr    string // substring of stderr
	}{
		{name: "garbage", host: "claude-code", input: []byte("not json"), wantExit: 2, wantErr: "unreadable hook input"},
		{name: "two objects", host: "claude-code", input: []byte(`{"a":1}{"b":2}`), wantExit: 2, wantErr: "unreadable"},
		{name: "empty", host: "claude-code", input: []byte(""), wantExit: 2, wantErr: "unreadable"},
		{name: "unknown event", host: "claude-code", input: e.claude("Frobnicate", bashInput("t1", "ls")), wantExit: 2, wantErr: `unknown hook event "Frobnicate"`},
		{name: "no session", host: "claude-code", input: map[string]any{"cwd": e.project, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}}, wantExit: 2, wantErr: "no session id"},
		{name: "relative cwd", host: "claude-code", input: map[string]any{"session_id": "s", "cwd": "project", "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{}}, wantExit: 2, wantErr: "not an absolute path"},
		{name: "tool input not an object", host: "claude-code", input: e.claude("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": "ls"}), wantExit: 2, wantErr: "not a JSON object"},
		{name: "no tool name", host: "claude-code", input: e.claude("PreToolUse", map[string]any{"tool_input": map[string]any{}}), wantExit: 2, wantErr: "without a tool_name"},
		{name: "unknown host", host: "vim", input: pre, wantExit: 2, wantErr: "unknown host"},
		{name: "malformed policy", host: "claude-code", input: pre, setup: badPolicy, wantExit: 2, wantErr: "cannot start"},
		{name: "malformed policy, PermissionRequest", host: "claude-code", input: e.claude("PermissionRequest", bashInput("", "ls")), setup: badPolicy,
			wantExit: 0, wantStdout: `"behavior":"deny"`},
		{name: "malformed policy, prompt never blocks", host: "claude-code", input: e.claude("UserPromptSubmit", map[string]any{"prompt": "hi"}), setup: badPolicy,
			wantExit: 0, wantErr: "cannot start"},
		{name: "db busy", host: "claude-code", input: pre, args: []string{"--timeout", "4s"}, setup: busyDB, wantExit: 2, wantErr: "locked by another process"},
		{name: "judge past the bound", host: "claude-code", input: e.claude("PreToolUse", bashInput("t5", "make deploy")), args: []string{"--timeout", "1s"},
			setup: hangingJudge, wantExit: 2, wantErr: "did not decide within 1s"},
		{name: "codex garbage", host: "codex", input: []byte("{"), wantExit: 2, wantErr: "unreadable"},
		{name: "codex malformed policy", host: "codex", input: pre, setup: badPolicy, wantExit: 2, wantErr: "cannot start"},
		{name: "gemini unknown event", host: "gemini", input: map[string]any{"session_id": "g", "cwd": e.project, "hook_event_name": "BeforeModel"}, wantExit: 2, wantErr: "unknown hook event"},
		{name: "gemini malformed policy", host: "gemini", input: geminiTool(e, "run_shell_command", map[string]any{"command": "ls"}), setup: badPolicy, wantExit: 2, wantErr: "cannot start"},
		{name: "cursor garbage", host: "cursor", input: []byte("]"), wantExit: 2, wantStdout: `"permission":"deny"`},
		{name: "cursor malformed policy", host: "cursor", input: cursorShell(e, "ls"), setup: badPolicy, wantExit: 2, wantStdout: `"permission":"deny"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := *e
			env.t = t
			if c.setup != nil {
				defer c.setup(t, &env)()
			}
			r := env.run(c.host, c.input, c.args...)
			if r.code != c.wantExit || !strings.Contains(r.stdout, c.wantStdout) || !strings.Contains(r.stderr, c.wantErr) {
				t.Fatalf("exit %d stdout %q stderr %q; want exit %d, stdout with %q, stderr with %q",
					r.code, r.stdout, r.stderr, c.wantExit, c.wantStdout, c.wantErr)
			}
			if c.wantExit == 0 && c.wantStdout == "" && r.stdout != "" {
				t.Fatalf("stdout %q, want none", r.stdout)
			}
		})
	}
	for _, rec := range e.audit() {
		if rec["decision"] != "reject" {
			t.Errorf("a failure path allowed a call: %v", rec)
		}
	}
}

func badPolicy(t *testing.T, e *hookEnv) func() {
	p := filepath.Join(e.cfg, "perm-peer", "policy.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"rules": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	return func() { os.Remove(p) }
}

func busyDB(t *testing.T, e *hookEnv) func() {
	// the DB must exist for its lock to be the only thing in the way
	if r := e.run("claude-code", e.claude("UserPromptSubmit", map[string]any{"prompt": "x"})); r.code != 0 {
		t.Fatalf("prepare the DB: %+v", r)
	}
	matches, _ := filepath.Glob(filepath.Join(e.st, "perm-peer", "*.db"))
	if len(matches) != 1 {
		t.Fatalf("DB files %v", matches)
	}
	return lockDB(t, matches[0])
}

// hangingJudge is an AI-mode policy whose judge never answers in time.
func hangingJudge(t *testing.T, e *hookEnv) func() {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	p := filepath.Join(e.cfg, "perm-peer", "policy.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	pol := fmt.Sprintf(`{"mode":"ai","judge":{"endpoint":%q,"model":"m","timeoutMs":10000}}`, srv.URL+"/v1")
	if err := os.WriteFile(p, []byte(pol), 0o644); err != nil {
		t.Fatal(err)
	}
	return func() { os.Remove(p); close(done); srv.Close() }
}

func geminiTool(e *hookEnv, tool string, input map[string]any) map[string]any {
	return map[string]any{"session_id": "gem-1", "transcript_path": "/dev/null", "cwd": e.project, "hook_event_name": "BeforeTool",
		"timestamp": "2026-12-01T00:00:00Z", "tool_name": tool, "tool_input": input}
}

func cursorShell(e *hookEnv, command string) map[string]any {
	return map[string]any{"hook_event_name": "beforeShellExecution", "conversation_id": "cur-1", "generation_id": "g1",
		"workspace_roots": []string{e.project}, "command": command, "cwd": e.project}
}

// TestHookOtherHosts: Codex, Gemini CLI and Cursor get each verdict in the
// form their hooks accept (inputs built from their documented schemas).
func TestHookOtherHosts(t *testing.T) {
	e := newHookEnv(t)
	codexIn := func(event string, fields map[string]any) map[string]any {
		in := map[string]any{"session_id": "cx-1", "turn_id": "turn-1", "transcript_path": nil, "cwd": e.project,
			"hook_event_name": event, "model": "gpt", "permission_mode": "default"}
		for k, v := range fields {
			in[k] = v
		}
		return in
	}
	cases := []struct {
		name, host string
		input      any
		wantStdout string // exact ("" = none)
	}{
		{"codex allow is silent", "codex", codexIn("PreToolUse", bashInput("c1", "ls")), ""},
		{"codex deny", "codex", codexIn("PreToolUse", bashInput("c2", "rm -rf /")), "deny"},
		{"codex ask is silent", "codex", codexIn("PreToolUse", bashInput("c3", "git push")), ""},
		{"codex permission of a pending ask", "codex", codexIn("PermissionRequest", bashInput("", "git push")), ""},
		{"codex permission allow", "codex", codexIn("PermissionRequest", bashInput("", "git status")), "allow"},
		{"codex permission deny", "codex", codexIn("PermissionRequest", bashInput("", "rm -rf /")), "deny"},
		// Codex's PreToolUse cannot ask, and its own policy may run a read
		// unasked: a secret read is refused there
		{"codex secret read denies", "codex", codexIn("PreToolUse", bashInput("c5", "cat .env")), "deny"},
		{"gemini allow is empty", "gemini", geminiTool(e, "run_shell_command", map[string]any{"command": "ls"}), "{}\n"},
		{"gemini deny", "gemini", geminiTool(e, "run_shell_command", map[string]any{"command": "rm -rf /"}), "deny"},
		{"gemini plain ask is left to Gemini", "gemini", geminiTool(e, "run_shell_command", map[string]any{"command": "git push"}), "{}\n"},
		// Gemini's ask hangs `gemini -p`, which its hook cannot tell apart:
		// a human-only call is denied, telling the agent to ask the user
		{"gemini secret read denies", "gemini", geminiTool(e, "read_file", map[string]any{"file_path": filepath.Join(e.project, ".env")}), "deny"},
		{"gemini mcp asks", "gemini", map[string]any{"session_id": "gem-1", "cwd": e.project, "hook_event_name": "BeforeTool", "tool_name": "mcp_db_drop",
			"tool_input": map[string]any{}, "mcp_context": map[string]any{"server_name": "db", "tool_name": "drop"}}, "{}\n"},
		{"cursor allow", "cursor", cursorShell(e, "ls"), "allow"},
		{"cursor deny", "cursor", cursorShell(e, "rm -rf /"), "deny"},
		{"cursor plain ask is left to Cursor", "cursor", cursorShell(e, "git push"), "{}\n"},
		{"cursor human-only asks", "cursor", cursorShell(e, "cat .env"), "ask"},
		{"cursor read of a secret is refused", "cursor", map[string]any{"hook_event_name": "beforeReadFile", "conversation_id": "cur-1",
			"workspace_roots": []string{e.project}, "file_path": filepath.Join(e.project, ".env"), "content": "K=1"}, "deny"},
		{"cursor project read", "cursor", map[string]any{"hook_event_name": "beforeReadFile", "conversation_id": "cur-1",
			"workspace_roots": []string{e.project}, "file_path": "src/a.go"}, "allow"},
		{"cursor mcp asks", "cursor", map[string]any{"hook_event_name": "beforeMCPExecution", "conversation_id": "cur-1",
			"workspace_roots": []string{e.project}, "tool_name": "query", "tool_input": `{"sql":"select 1"}`, "url": "http://db"}, "{}\n"},
		{"cursor prompt", "cursor", map[string]any{"hook_event_name": "beforeSubmitPrompt", "conversation_id": "cur-1",
			"workspace_roots": []string{e.project}, "prompt": "hi"}, "continue"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := *e
			env.t = t
			r := env.run(c.host, c.input)
			if r.code != 0 {
				t.Fatalf("exit %d: %q", r.code, r.stderr)
			}
			got := hostVerdict(t, c.host, r.stdout)
			if got != c.wantStdout {
				t.Fatalf("verdict %q (stdout %q), want %q", got, r.stdout, c.wantStdout)
			}
		})
	}
}

// hostVerdict extracts the verdict word of a host answer ("" for none,
// "{}\n" for Gemini's empty object).
func hostVerdict(t *testing.T, host, stdout string) string {
	t.Helper()
	if stdout == "" || stdout == "{}\n" {
		return stdout
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("stdout %q: %v", stdout, err)
	}
	switch host {
	case "codex":
		h := out["hookSpecificOutput"].(map[string]any)
		if d, ok := h["permissionDecision"].(string); ok {
			if d != "deny" || h["permissionDecisionReason"] == "" {
				t.Fatalf("codex PreToolUse answered %v: only deny with a reason is valid", h)
			}
			return d
		}
		dec := h["decision"].(map[string]any)
		return dec["behavior"].(string)
	case "gemini":
		return out["decision"].(string)
	case "cursor":
		if _, ok := out["continue"]; ok {
			return "continue"
		}
		return out["permission"].(string)
	}
	t.Fatalf("host %s", host)
	return ""
}

// TestHookNoHumanModes: where the host asks no one (bypassPermissions,
// `claude -p`), a human-only call is denied with a reason that tells the
// agent to ask the user, and any other call is left to the host (its mode
// runs or refuses it); what became of it is audited as the host's, never
// the user's. Codex's headless bypassPermissions runs edits, tests and
// commits, and still never reads a secret.
func TestHookNoHumanModes(t *testing.T) {
	e := newHookEnv(t)
	in := e.claude("PreToolUse", bashInput("b1", "cat .env"))
	in["permission_mode"] = "bypassPermissions"
	d, why := preDecision(t, e.run("claude-code", in))
	if d != "deny" || !strings.Contains(why, "ask the user") {
		t.Fatalf("bypassPermissions cat .env: %s %q, want deny telling the agent to ask the user", d, why)
	}
	in = e.claude("PreToolUse", bashInput("b2", "git push origin main"))
	in["permission_mode"] = "bypassPermissions"
	if r := e.run("claude-code", in); r.code != 0 || r.stdout != "" {
		t.Fatalf("bypassPermissions git push: %+v, want no verdict", r)
	}
	in["hook_event_name"] = "PostToolUse" // Claude ran it in its bypass mode
	if r := e.run("claude-code", in); r.code != 0 {
		t.Fatalf("PostToolUse: %+v", r)
	}
	for i, cmd := range []string{"touch a.txt", "go test ./...", "git commit -am wip", "cat .env"} {
		codexIn := map[string]any{"session_id": "cx-2", "cwd": e.project, "hook_event_name": "PreToolUse", "permission_mode": "bypassPermissions",
			"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "tool_use_id": fmt.Sprint("c", i)}
		r := e.run("codex", codexIn)
		if want := cmd == "cat .env"; r.code != 0 || strings.Contains(r.stdout, "deny") != want {
			t.Errorf("codex bypassPermissions %s: %+v, want deny %v", cmd, r, want)
		}
	}
	recs := e.audit()
	if len(recs) != 3 {
		t.Fatalf("audit %v, want 3 records", recs)
	}
	for i, w := range []struct{ session, decision, by, source string }{
		{e.session, "reject", "headless", "system"}, {e.session, "once", "host", "host"}, {"cx-2", "reject", "headless", "system"},
	} {
		r := recs[i]
		if r["sessionId"] != w.session || r["decision"] != w.decision || r["decidedBy"] != w.by || r["source"] != w.source {
			t.Errorf("record %d: %v %v %v %v, want %v", i, r["sessionId"], r["decision"], r["decidedBy"], r["source"], w)
		}
	}
}

// TestHookCodexApplyPatch: Codex sends apply_patch's patch as
// tool_input.command (a string; an argv ["apply_patch", PATCH] in the
// shell form), and a Bash heredoc apply_patch <<'EOF' is applied by Codex
// too. The gate reads the patch's files: perm-peer's own policy is a floor
// (denied at both events), .git/hooks and ~/.bashrc are human-only (denied
// where Codex cannot ask, left to Codex's prompt at PermissionRequest),
// and an in-project patch is a plain ask (no answer), never a shell
// command's floor.
func TestHookCodexApplyPatch(t *testing.T) {
	e := newHookEnv(t)
	patch := func(op, path string) string {
		return "*** Begin Patch\n*** " + op + ": " + path + "\n+x\n*** End Patch\n"
	}
	in := func(event string, tool string, input map[string]any) map[string]any {
		return map[string]any{"session_id": "cx-p", "turn_id": "turn-1", "transcript_path": nil, "cwd": e.project,
			"hook_event_name": event, "model": "gpt-5", "permission_mode": "default", "tool_use_id": "t1",
			"tool_name": tool, "tool_input": input}
	}
	bashrc := filepath.Join(filepath.Dir(e.project), ".bashrc")
	cases := []struct {
		name        string
		tool        string
		input       map[string]any
		pre, perm   string // verdict at PreToolUse and at PermissionRequest
		reasonMatch string // in the PreToolUse reason when it denies
	}{
		{"policy write", "apply_patch", map[string]any{"command": patch("Add File", ".perm-peer/policy.json")}, "deny", "deny", "perm-peer's own"},
		{"policy write, argv form", "apply_patch", map[string]any{"command": []string{"apply_patch", patch("Add File", ".perm-peer/policy.json")}}, "deny", "deny", "perm-peer's own"},
		{"policy write by move", "apply_patch", map[string]any{"command": "*** Begin Patch\n*** Update File: a.json\n*** Move to: .perm-peer/policy.json\n*** End Patch\n"}, "deny", "deny", "perm-peer's own"},
		{"git hook", "apply_patch", map[string]any{"command": patch("Add File", ".git/hooks/pre-commit")}, "deny", "", "needs a human"},
		{"bashrc", "apply_patch", map[string]any{"command": patch("Update File", bashrc)}, "deny", "", "needs a human"},
		{"in-project patch", "apply_patch", map[string]any{"command": patch("Add File", "src/a.go")}, "", "", ""},
		{"heredoc policy write", "Bash", map[string]any{"command": "apply_patch <<'EOF'\n" + patch("Add File", ".perm-peer/policy.json") + "EOF"}, "deny", "deny", "perm-peer's own"},
		{"heredoc git hook", "Bash", map[string]any{"command": "apply_patch <<'EOF'\n" + patch("Add File", ".git/hooks/pre-commit") + "EOF"}, "deny", "", "needs a human"},
		{"heredoc in-project", "Bash", map[string]any{"command": "apply_patch <<'EOF'\n" + patch("Add File", "src/a.go") + "EOF"}, "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := *e
			env.t = t
			for _, ev := range []struct{ name, want string }{{"PreToolUse", c.pre}, {"PermissionRequest", c.perm}} {
				r := env.run("codex", in(ev.name, c.tool, c.input))
				if r.code != 0 {
					t.Fatalf("%s: exit %d: %q", ev.name, r.code, r.stderr)
				}
				if got := hostVerdict(t, "codex", r.stdout); got != ev.want {
					t.Fatalf("%s: verdict %q (stdout %q), want %q", ev.name, got, r.stdout, ev.want)
				}
				if strings.Contains(r.stdout, "mkfs") || ev.name == "PreToolUse" && !strings.Contains(r.stdout, c.reasonMatch) {
					t.Fatalf("%s: reason %q, want one naming %q", ev.name, r.stdout, c.reasonMatch)
				}
			}
		})
	}
}

// TestHookUserChangesMind: a call the user rejected with a note is
// rejected again with their note, until they allow it from the log
// (perm-peer allow ID): their later word wins, and the next identical call
// runs.
func TestHookUserChangesMind(t *testing.T) {
	e := newHookEnv(t)
	e.rejectedInDialog("deploy", "toolu_1", "make deploy", "not before the review")
	d, reason := preDecision(t, e.run("claude-code", e.claude("PreToolUse", bashInput("toolu_2", "make deploy"))))
	if d != "deny" || !strings.Contains(reason, "not before the review") {
		t.Fatalf("repeat: %s %q, want deny with the user's note", d, reason)
	}
	var rejected string
	for _, r := range e.audit() {
		if r["source"] == "user" && r["decision"] == "reject" {
			rejected = fmt.Sprint(r["id"])
		}
	}
	if rejected == "" {
		t.Fatalf("no user reject in the audit: %v", e.audit())
	}
	cmd := exec.Command(binPath, "allow", rejected, "--project-dir", e.project)
	cmd.Dir = e.project
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+e.cfg, "XDG_STATE_HOME="+e.st, "HOME="+filepath.Dir(e.project))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("allow %s: %v\n%s", rejected, err, out)
	}
	if d, reason := preDecision(t, e.run("claude-code", e.claude("PreToolUse", bashInput("toolu_3", "make deploy")))); d != "allow" {
		t.Fatalf("after allow: %s %q, want allow", d, reason)
	}
}
