package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// reviewEnv is one user's machine: a home with two git projects (web and
// api), and the user's config and state directories, shared by every
// perm-peer process the test runs (hooks, serve, the review commands).
type reviewEnv struct {
	t                *testing.T
	home, cfg, state string
	web, api         string
	env              []string
	hookSeq          int
}

func newReviewEnv(t *testing.T) *reviewEnv {
	t.Helper()
	tmp := t.TempDir()
	e := &reviewEnv{t: t, home: filepath.Join(tmp, "home"), cfg: filepath.Join(tmp, "cfg"), state: filepath.Join(tmp, "state")}
	e.web = filepath.Join(e.home, "code", "web")
	e.api = filepath.Join(e.home, "code", "api")
	for _, d := range []string{filepath.Join(e.web, ".git"), filepath.Join(e.web, "src"), filepath.Join(e.api, ".git"), e.cfg, e.state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// CLAUDE_CODE_SESSION_ATTENDED=1: Claude Code runs interactively, a person sees its dialogs
	e.env = append(os.Environ(), "XDG_CONFIG_HOME="+e.cfg, "XDG_STATE_HOME="+e.state, "HOME="+e.home, "TZ=UTC", "CLAUDE_CODE_SESSION_ATTENDED=1", "CLAUDE_CONFIG_DIR=")
	return e
}

// pp runs `perm-peer ARGS...` in dir and returns stdout, stderr and the exit code.
func (e *reviewEnv) pp(dir string, args ...string) (string, string, int) {
	e.t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Dir, cmd.Env = dir, e.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if x, ok := err.(*exec.ExitError); ok {
		code = x.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// ok runs perm-peer and fails the test unless it exits 0.
func (e *reviewEnv) ok(dir string, args ...string) string {
	e.t.Helper()
	out, errs, code := e.pp(dir, args...)
	if code != 0 {
		e.t.Fatalf("perm-peer %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

// hook runs one hook call of host with input (cwd and session set by the caller).
func (e *reviewEnv) hook(host string, input map[string]any) string {
	e.t.Helper()
	raw, _ := json.Marshal(input)
	cmd := exec.Command(binPath, "hook", host)
	cmd.Env = e.env
	cmd.Stdin = bytes.NewReader(raw)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		e.t.Fatalf("hook %s: %v (stderr %q)", host, err, errb.String())
	}
	return out.String()
}

func (e *reviewEnv) claude(event, cwd, command string) map[string]any {
	return e.claudeIn("claude-1", event, cwd, command)
}

// claudeIn is a Claude Code hook event of session.
func (e *reviewEnv) claudeIn(session, event, cwd, command string) map[string]any {
	if event == "PreToolUse" { // a call's later events carry its PreToolUse's id
		e.hookSeq++
	}
	in := map[string]any{"session_id": session, "transcript_path": filepath.Join(e.home, "none.jsonl"), "cwd": cwd,
		"permission_mode": "default", "hook_event_name": event, "tool_name": "Bash",
		"tool_input": map[string]any{"command": command}, "tool_use_id": "tu" + string(rune('a'+e.hookSeq))}
	if event == "PostToolUse" {
		in["tool_response"] = map[string]any{"stdout": "ok"}
	}
	return in
}

func (e *reviewEnv) codex(cwd, command string) map[string]any {
	return map[string]any{"session_id": "codex-1", "transcript_path": nil, "cwd": cwd, "hook_event_name": "PreToolUse",
		"model": "gpt-5", "tool_name": "Bash", "tool_input": map[string]any{"command": command}, "tool_use_id": "cx1"}
}

// servePeer starts `perm-peer serve` on project with the user's default DB.
func (e *reviewEnv) servePeer(project string) *peerProc {
	cmd := exec.Command(binPath, "serve", "--project", project)
	cmd.Env = e.env
	cmd.Stderr = &bytes.Buffer{}
	return launch(e.t, cmd, peerOpts{framing: "ndjson", project: project})
}

// hookDecision is the permissionDecision of a Claude PreToolUse answer,
// "" for no verdict (the host's own permissions decide).
func hookDecision(t *testing.T, stdout string) string {
	t.Helper()
	if strings.TrimSpace(stdout) == "" {
		return ""
	}
	var out struct {
		HookSpecificOutput struct {
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("hook answer %q: %v", stdout, err)
	}
	return out.HookSpecificOutput.PermissionDecision
}

// record plays the day: Claude Code (hooks) in web, Codex (hooks) and an
// editor's agent (serve) in api.
func (e *reviewEnv) record() {
	t := e.t
	if d := hookDecision(t, e.hook("claude-code", e.claude("PreToolUse", filepath.Join(e.web, "src"), "ls -la"))); d != "allow" {
		t.Fatalf("ls: %s", d)
	}
	if d := hookDecision(t, e.hook("claude-code", e.claude("PreToolUse", e.web, "npm test"))); d != "" {
		t.Fatalf("npm test: %q, want no verdict (left to Claude's own dialog)", d)
	}
	e.hook("claude-code", e.claude("PermissionRequest", e.web, "npm test")) // Claude shows its dialog
	e.hook("claude-code", e.claude("PostToolUse", e.web, "npm test"))       // the user approved it
	if d := hookDecision(t, e.hook("claude-code", e.claude("PreToolUse", e.web, "rm -rf /"))); d != "deny" {
		t.Fatalf("rm -rf /: %s", d)
	}
	if out := e.hook("codex", e.codex(e.api, "cat README.md")); strings.Contains(out, "deny") {
		t.Fatalf("codex cat: %s", out)
	}
	p := e.servePeer(e.api)
	p.initialize(true)
	p.notify("initialized", map[string]any{})
	if m := p.call("session/open", map[string]any{"sessionId": "zed-1", "agent": "zed-agent", "cwd": e.api}, nil); m.errCode() != 0 {
		t.Fatalf("session/open: %v", m)
	}
	m := p.call("session/requestPermission", permParams("zed-1", bashCall("z1", "make lint")), func(msg) any {
		return map[string]any{"reply": "once", "feedback": "lint is fine"}
	})
	if k, _, _ := reply(m); k != "once" {
		t.Fatalf("make lint: %v", m)
	}
}

// logRows is `perm-peer log --json` parsed.
func (e *reviewEnv) logRows(dir string, args ...string) []map[string]any {
	e.t.Helper()
	out := e.ok(dir, append([]string{"log", "--json"}, args...)...)
	var rows []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			e.t.Fatalf("log line %q: %v", line, err)
		}
		rows = append(rows, r)
	}
	return rows
}

// TestLogAcrossProjectsAndAgents: one log of every project and agent,
// newest first, from any directory, with its filters.
func TestLogAcrossProjectsAndAgents(t *testing.T) {
	e := newReviewEnv(t)
	e.record()

	rows := e.logRows(e.home, "--since", "today")
	var got []string
	for _, r := range rows {
		got = append(got, r["agent"].(string)+" "+filepath.Base(r["project"].(string))+" "+r["outcome"].(string)+" "+r["action"].(string))
	}
	want := []string{
		"zed-agent api allowed bash: make lint",
		"codex api allowed bash: cat README.md",
		"claude-code web denied bash: rm -rf /",
		"claude-code web allowed bash: npm test",
		"claude-code web allowed bash: ls -la",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("log, newest first:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rows[0]["by"] != "you, when asked" || rows[0]["note"] != "lint is fine" || rows[2]["by"] != "hard floor" || rows[4]["by"] != "known safe" {
		t.Fatalf("who decided, in words: %v / %v / %v", rows[0]["by"], rows[2]["by"], rows[4]["by"])
	}
	// IDs are PROJECT:SEQ, the same project prefix within a project, another across
	webID, apiID := rows[3]["id"].(string), rows[1]["id"].(string)
	if !strings.HasSuffix(webID, ":2") || !strings.HasSuffix(rows[2]["id"].(string), ":3") || strings.Split(webID, ":")[0] == strings.Split(apiID, ":")[0] {
		t.Fatalf("ids: %s %s %s", webID, rows[2]["id"], apiID)
	}

	// the table, with a header, paths relative to the project
	table := e.ok(e.home, "log")
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "TIME") || !strings.Contains(lines[0], "DECIDED BY") || !strings.Contains(lines[0], "NOTE") {
		t.Fatalf("table:\n%s", table)
	}
	if !strings.Contains(table, "~/code/web") || !strings.Contains(table, "you, when asked") || strings.Contains(table, e.home) {
		t.Fatalf("table shows projects under ~ and the decider in words:\n%s", table)
	}

	// filters: a subdirectory resolves to its project; agent; decision; session
	for _, c := range []struct {
		args []string
		n    int
	}{
		{[]string{"--project", filepath.Join(e.web, "src")}, 3},
		{[]string{"--project", e.api}, 2},
		{[]string{"--agent", "codex"}, 1},
		{[]string{"--decision", "denied"}, 1},
		{[]string{"--decision", "asked"}, 2},
		{[]string{"--session", "zed-1"}, 1},
		{[]string{"--since", "1h", "--agent", "claude-code", "--decision", "allowed"}, 2},
		{[]string{"--since", "2000-01-01", "--limit", "2"}, 2},
	} {
		if got := e.logRows(e.home, c.args...); len(got) != c.n {
			t.Errorf("log %v: %d rows, want %d", c.args, len(got), c.n)
		}
	}
	if rows := e.logRows(filepath.Join(e.web, "src"), "--project", "."); len(rows) != 3 {
		t.Errorf("log --project . from web/src: %d rows", len(rows))
	}
	if _, errs, code := e.pp(e.home, "log", "--since", "last tuesday"); code != exitUsage || !strings.Contains(errs, "--since") {
		t.Errorf("bad --since: exit %d %q", code, errs)
	}
	if _, errs, code := e.pp(e.home, "log", "--decision", "maybe"); code != exitUsage && code != exitFailed || !strings.Contains(errs, "unknown decision") {
		t.Errorf("bad --decision: exit %d %q", code, errs)
	}

	// the old single-project commands resolve a subdirectory too
	if out := e.ok(filepath.Join(e.web, "src"), "audit"); strings.Count(out, "\n") != 3 {
		t.Errorf("audit from web/src:\n%s", out)
	}
	// rules without --session: the project's latest session
	if _, errs, code := e.pp(e.api, "rules"); code != 0 || !strings.Contains(errs, "zed-1") {
		t.Errorf("rules: exit %d %q", code, errs)
	}
}

// TestWhy explains a recorded call by its ID, and a short ID inside its
// project; check --explain explains a call not in the log.
func TestWhy(t *testing.T) {
	e := newReviewEnv(t)
	e.record()
	rows := e.logRows(e.home, "--agent", "claude-code")
	if len(rows) != 3 {
		t.Fatalf("claude-code rows: %v", rows)
	}
	asked, floor := rows[1]["id"].(string), rows[0]["id"].(string)

	out := e.ok(e.home, "why", asked)
	for _, want := range []string{
		"recorded: allowed by you, when asked",
		"today:    ask",
		"no rule decides it: you are asked (ask mode)",
		"always:   Bash(npm test *)",
		"perm-peer allow " + asked + " ",
		"perm-peer allow " + asked + " --user",
		"perm-peer deny " + asked + " ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("why %s lacks %q:\n%s", asked, want, out)
		}
	}
	// the short form inside the project, from a subdirectory
	seq := strings.Split(asked, ":")[1]
	if short := e.ok(filepath.Join(e.web, "src"), "why", seq); short != out {
		t.Errorf("why %s in web/src differs:\n%s", seq, short)
	}
	out = e.ok(e.home, "why", floor)
	if !strings.Contains(out, "a hard floor") || !strings.Contains(out, "nothing can allow it") || strings.Contains(out, "perm-peer allow") {
		t.Errorf("why of a floor:\n%s", out)
	}
	for _, bad := range []string{"ffffff:1", "nope", asked + "9"} {
		if _, errs, code := e.pp(e.home, "why", bad); code == 0 || errs == "" {
			t.Errorf("why %s: exit %d %q", bad, code, errs)
		}
	}

	// a deny rule of the user's policy: the file and line it is written in
	pol := filepath.Join(e.cfg, "perm-peer", "policy.json")
	if err := os.MkdirAll(filepath.Dir(pol), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pol, []byte("{\n  \"mode\": \"ask\",\n  \"deny\": [\n    \"Bash(npm publish *)\"\n  ]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out = e.ok(e.web, "check", "--explain", "--", "npm publish --tag next")
	if !strings.Contains(out, "your deny rule Bash(npm publish *)") || !strings.Contains(out, pol+":4") || !strings.Contains(out, "remove the deny rule") {
		t.Errorf("check --explain of a deny rule:\n%s", out)
	}
	if out := e.ok(e.web, "check", "--", "npm test"); strings.Contains(out, "the mode decides") || !strings.Contains(out, "you are asked") {
		t.Errorf("check speaks plain words:\n%s", out)
	}
}

// TestReviewLoop is the user's loop, one command per step: list today's
// decisions across projects and agents, find why one was asked, allow it
// for the project, and see the next identical call allowed.
func TestReviewLoop(t *testing.T) {
	e := newReviewEnv(t)
	e.record()

	rows := e.logRows(e.home, "--since", "today", "--decision", "asked", "--agent", "claude-code")
	if len(rows) != 1 || rows[0]["action"] != "bash: npm test" {
		t.Fatalf("asked rows: %v", rows)
	}
	id := rows[0]["id"].(string)
	if why := e.ok(e.home, "why", id); !strings.Contains(why, "perm-peer allow "+id) {
		t.Fatalf("why:\n%s", why)
	}
	// a dry run writes nothing
	if out := e.ok(e.home, "allow", id, "--dry-run"); !strings.Contains(out, "would save Bash(npm test *)") {
		t.Fatalf("dry run:\n%s", out)
	}
	if d := hookDecision(t, e.hook("claude-code", e.claude("PreToolUse", e.web, "npm test"))); d != "" {
		t.Fatalf("after a dry run: %q", d)
	}
	out := e.ok(e.home, "allow", id)
	if !strings.Contains(out, "saved Bash(npm test *) for ~/code/web") || !strings.Contains(out, "grants revoke 1") {
		t.Fatalf("allow:\n%s", out)
	}
	// the next identical call, and one the same pattern covers, are allowed; another is not
	for cmd, want := range map[string]string{"npm test": "allow", "npm test -- --watch=false": "allow", "npm publish": ""} {
		if d := hookDecision(t, e.hook("claude-code", e.claude("PreToolUse", e.web, cmd))); d != want {
			t.Errorf("%s after allow: %s, want %s", cmd, d, want)
		}
	}
	// only in that project
	if out := e.hook("codex", e.codex(e.api, "npm test")); strings.Contains(out, "allow") {
		t.Errorf("npm test in api: %s", out)
	}
	// the grant is listed, accounted for by the chain, and the log says who made it
	if g := e.ok(e.web, "grants", "list"); !strings.Contains(g, "Bash(npm test *)") {
		t.Errorf("grants list:\n%s", g)
	}
	if v := e.ok(e.web, "audit", "verify"); !strings.Contains(v, "chain ok") {
		t.Errorf("verify: %s", v)
	}
	if rows := e.logRows(e.home, "--project", e.web, "--decision", "always"); len(rows) != 1 || rows[0]["by"] != "you, with perm-peer allow" {
		t.Errorf("the allow in the log: %v", rows)
	}
	if out := e.ok(e.home, "allow", id); !strings.Contains(out, "already allowed") {
		t.Errorf("allow twice:\n%s", out)
	}
}

// TestAllowForTheSession: allow --session saves the narrowest rule for the
// recorded call's session only; the project-wide allow is still there to
// take, and the refusals are the same.
func TestAllowForTheSession(t *testing.T) {
	e := newReviewEnv(t)
	preTool := func(session, cmd string) string {
		return hookDecision(t, e.hook("claude-code", e.claudeIn(session, "PreToolUse", e.web, cmd)))
	}
	if d := preTool("claude-1", "npm test"); d != "" {
		t.Fatalf("npm test: %q, want no verdict", d)
	}
	e.hook("claude-code", e.claude("PermissionRequest", e.web, "npm test")) // Claude shows its dialog
	e.hook("claude-code", e.claude("PostToolUse", e.web, "npm test"))       // the user approved it
	if d := preTool("claude-1", "rm -rf /"); d != "deny" {
		t.Fatalf("rm -rf /: %q", d)
	}
	byAction := map[string]string{}
	for _, r := range e.logRows(e.home) {
		byAction[r["action"].(string)] = r["id"].(string)
	}
	id := byAction["bash: npm test"]
	for _, args := range [][]string{{"allow", id, "--session", "--user"}, {"deny", id, "--session"}} {
		if _, errs, code := e.pp(e.home, args...); code != exitUsage || !strings.Contains(errs, "--session is for allow") {
			t.Errorf("%v: exit %d %q", args, code, errs)
		}
	}
	if _, errs, code := e.pp(e.home, "allow", byAction["bash: rm -rf /"], "--session"); code != exitFailed || !strings.Contains(errs, "hard floor") {
		t.Errorf("allow --session of a floor: exit %d %q", code, errs)
	}

	out := e.ok(e.home, "allow", id, "--session")
	if !strings.Contains(out, "saved Bash(npm test *) for session claude-1 of ~/code/web") {
		t.Fatalf("allow --session:\n%s", out)
	}
	for _, c := range []struct{ session, cmd, want string }{
		{"claude-1", "npm test", "allow"},
		{"claude-1", "npm test -- --watch=false", "allow"}, // the same pattern
		{"claude-1", "npm publish", ""},
		{"claude-2", "npm test", ""}, // another session decides as before
	} {
		if d := preTool(c.session, c.cmd); d != c.want {
			t.Errorf("%s in %s after allow --session: %q, want %q", c.cmd, c.session, d, c.want)
		}
	}
	// the session's grant is listed as the session's, and the chain accounts for it
	if g := e.ok(e.web, "grants", "list"); !strings.Contains(g, "s1   Bash(npm test *)                  only in session claude-1  covers \"bash: npm test *  (this session)\"") {
		t.Errorf("grants list:\n%s", g)
	}
	if v := e.ok(e.web, "audit", "verify"); !strings.Contains(v, "chain ok") {
		t.Errorf("verify: %s", v)
	}
	if out := e.ok(e.home, "allow", id, "--session"); !strings.Contains(out, "already allowed") {
		t.Errorf("allow --session twice:\n%s", out)
	}
	// revoked, the session's next call is decided as before; saved again, allowed again
	if out := e.ok(e.web, "grants", "revoke", "s1"); !strings.Contains(out, "revoked grant s1 Bash(npm test *)") {
		t.Errorf("grants revoke s1: %s", out)
	}
	if d := preTool("claude-1", "npm test"); d != "" {
		t.Errorf("npm test in claude-1 after the revoke: %q, want no verdict", d)
	}
	if out := e.ok(e.home, "allow", id, "--session"); !strings.Contains(out, "grants revoke s2") {
		t.Errorf("allow --session again:\n%s", out)
	}
	// a replay decides each recorded call with its own session's grants:
	// under a candidate that denies npm test, claude-1's npm test goes
	// from allowed (by s2) to denied; no other session's was allowed
	cand := filepath.Join(e.home, "deny-npm-test.json")
	if err := os.WriteFile(cand, []byte(`{"deny": ["Bash(npm test)"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Changes []struct {
			Entry         struct{ Session, Action string }
			Before, After string
		}
	}
	if err := json.Unmarshal([]byte(e.ok(e.home, "replay", "--policy", cand, "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	before := map[string]string{}
	for _, c := range rep.Changes {
		if c.Entry.Action == "bash: npm test" {
			before[c.Entry.Session] = c.Before + "→" + c.After
		}
	}
	if before["claude-1"] != "allow→deny" || strings.HasPrefix(before["claude-2"], "allow") {
		t.Errorf("replay of npm test by session: %v", before)
	}
	// the session's grant does not stand in the way of the project's
	if out := e.ok(e.home, "allow", id, "--project"); !strings.Contains(out, "saved Bash(npm test *) for ~/code/web") {
		t.Fatalf("allow --project after --session:\n%s", out)
	}
	if d := preTool("claude-2", "npm test"); d != "allow" {
		t.Errorf("npm test in claude-2 after allow --project: %q", d)
	}
}

// TestAllowDenyRefuseAndEdit: allow and deny write the right file without
// losing what the user wrote, and refuse a rule that could never apply.
func TestAllowDenyRefuseAndEdit(t *testing.T) {
	e := newReviewEnv(t)
	e.record()
	byAction := map[string]string{}
	for _, r := range e.logRows(e.home) {
		byAction[r["action"].(string)] = r["id"].(string)
	}
	// a hard floor, and a call only a person may approve, refuse an allow with the reason
	if _, errs, code := e.pp(e.home, "allow", byAction["bash: rm -rf /"]); code != exitFailed || !strings.Contains(errs, "hard floor") {
		t.Errorf("allow of a floor: exit %d %q", code, errs)
	}
	e.hook("claude-code", e.claude("PreToolUse", e.web, "git push --force"))
	e.hook("claude-code", e.claude("PermissionRequest", e.web, "git push --force"))
	e.hook("claude-code", e.claude("PostToolUse", e.web, "git push --force"))
	push := e.logRows(e.home, "--limit", "1")[0]
	if push["action"] != "bash: git push --force" {
		t.Fatalf("newest: %v", push)
	}
	if _, errs, code := e.pp(e.home, "allow", push["id"].(string)); code != exitFailed || !strings.Contains(errs, "only a person") {
		t.Errorf("allow of a human-only call: exit %d %q", code, errs)
	}

	// --user edits the user's policy in place: comments are not JSON, but
	// order, spacing and unknown-to-us formatting are kept
	pol := filepath.Join(e.cfg, "perm-peer", "policy.json")
	if err := os.MkdirAll(filepath.Dir(pol), 0o700); err != nil {
		t.Fatal(err)
	}
	orig := "{\n    \"mode\":  \"ask\",\n    \"allow\": [\"Bash(go test *)\"],\n    \"sensitive\": [\"secrets/**\"]\n}\n"
	if err := os.WriteFile(pol, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	out := e.ok(e.home, "allow", byAction["bash: make lint"], "--user")
	want := "{\n    \"mode\":  \"ask\",\n    \"allow\": [\"Bash(go test *)\", \"Bash(make lint *)\"],\n    \"sensitive\": [\"secrets/**\"]\n}\n"
	if got, _ := os.ReadFile(pol); string(got) != want {
		t.Fatalf("user policy after allow --user:\n%s\nwant:\n%s\n(output %s)", got, want, out)
	}
	if fi, _ := os.Stat(pol); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}
	if !strings.Contains(out, "+     \"allow\": [\"Bash(go test *)\", \"Bash(make lint *)\"],") {
		t.Errorf("the change shown:\n%s", out)
	}
	if out := e.ok(e.api, "check", "--", "make lint"); !strings.Contains(out, "decision:  allow") {
		t.Errorf("make lint after allow --user:\n%s", out)
	}

	// deny goes into the project's policy (which may add deny rules)
	out = e.ok(e.home, "deny", byAction["bash: cat README.md"])
	projPol := filepath.Join(e.api, ".perm-peer", "policy.json")
	got, err := os.ReadFile(projPol)
	if err != nil || !strings.Contains(string(got), "\"deny\": [\n    \"Bash(cat README.md)\"") {
		t.Fatalf("project policy after deny: %s %v (output %s)", got, err, out)
	}
	if out := e.hook("codex", e.codex(e.api, "cat README.md")); !strings.Contains(out, "deny") && !strings.Contains(out, "block") {
		t.Errorf("cat README.md after deny: %s", out)
	}
	// and a bad file is left untouched with a precise error
	if err := os.WriteFile(pol, []byte("{\"allow\": \"Bash(x)\"}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errs, code := e.pp(e.home, "allow", byAction["bash: npm test"], "--user"); code == 0 || errs == "" {
		t.Errorf("allow into a bad file: exit %d %q", code, errs)
	}
	if got, _ := os.ReadFile(pol); string(got) != "{\"allow\": \"Bash(x)\"}" {
		t.Errorf("a bad file was changed: %s", got)
	}
}

// TestReplayRecordedHistory records 250 calls through a real peer and
// replays them under a candidate policy: what it would allow, ask and deny.
func TestReplayRecordedHistory(t *testing.T) {
	e := newReviewEnv(t)
	p := e.servePeer(e.api)
	p.initialize(true)
	p.notify("initialized", map[string]any{})
	if m := p.call("session/open", map[string]any{"sessionId": "h", "agent": "zed-agent", "cwd": e.api}, nil); m.errCode() != 0 {
		t.Fatalf("session/open: %v", m)
	}
	shapes := []string{"cat f%d.go", "go test ./p%d/...", "npm test -- --shard=%d", "git log -n %d", "git push origin b%d",
		"ls -la d%d", "make build%d", "rm -rf /%d", "curl https://example.com/%d", "npm install pkg@1.%d.0"}
	const n = 250
	for i := 0; i < n; i++ {
		cmd := fmt.Sprintf(shapes[i%len(shapes)], i)
		p.call("session/requestPermission", permParams("h", bashCall(fmt.Sprintf("c%d", i), cmd)), func(msg) any {
			return map[string]any{"reply": "once"}
		})
	}
	if rows := e.logRows(e.home, "--limit", "0"); len(rows) != n {
		t.Fatalf("recorded %d calls, want %d", len(rows), n)
	}
	cand := filepath.Join(e.home, "candidate.json")
	if err := os.WriteFile(cand, []byte(`{"allow": ["Bash(npm test *)", "Bash(go test *)"], "deny": ["Bash(git push *)"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Calls, MoreAllowed, MoreAsked, NewlyDenied, NoLongerDenied int
		Transitions                                                map[string]int
		Changes                                                    []map[string]any
	}
	if err := json.Unmarshal([]byte(e.ok(e.home, "replay", "--policy", cand, "--since", "today", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	// 25 of each shape: go test and npm test are asked today and allowed by the
	// candidate; git push is asked today and denied; rm -rf /N stays a floor
	if rep.Calls != n || rep.MoreAllowed != 50 || rep.NewlyDenied != 25 || rep.MoreAsked != 0 || rep.NoLongerDenied != 0 ||
		rep.Transitions["ask→allow"] != 50 || rep.Transitions["ask→deny"] != 25 || len(rep.Changes) != 75 {
		t.Fatalf("replay: %+v", rep)
	}
	// nothing was written: the log and the policy are as they were
	if rows := e.logRows(e.home, "--limit", "0"); len(rows) != n {
		t.Fatalf("replay wrote to the log: %d rows", len(rows))
	}
	out := e.ok(e.home, "replay", "--policy", cand, "--project", e.api, "--limit", "3")
	for _, want := range []string{"replayed 250 recorded calls", "more allowed      50", "newly denied      25", "ask→deny", "… 72 more"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay table lacks %q:\n%s", want, out)
		}
	}
	if _, errs, code := e.pp(e.home, "replay", "--policy", filepath.Join(e.home, "missing.json")); code != exitStartup || !strings.Contains(errs, "missing.json") {
		t.Errorf("missing candidate: exit %d %q", code, errs)
	}
}

// TestPolicyLintAndTest: lint names each useless rule with its line, test
// runs the examples, and a failing example stops the peer from loading the
// policy (the hook denies, naming it).
func TestPolicyLintAndTest(t *testing.T) {
	e := newReviewEnv(t)
	pol := filepath.Join(e.cfg, "perm-peer", "policy.json")
	if err := os.MkdirAll(filepath.Dir(pol), 0o700); err != nil {
		t.Fatal(err)
	}
	text := `{
  "allow": [
    "Bash(npm test *)",
    "Bash(npm test --watch)",
    "Bash(rm -rf /)",
    "Bash(sudo *)",
    "Bash(git push *)",
    "Raed"
  ],
  "deny": ["Bash(git push *)"],
  "ask": ["Bash(git push --tags)"],
  "examples": [
    {"call": "npm test", "want": "allow"},
    {"tool": "Read", "path": ".env", "want": "ask"},
    {"call": "git push origin main", "want": "ask"}
  ]
}
`
	if err := os.WriteFile(pol, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(e.web, ".perm-peer"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.web, ".perm-peer", "policy.json"), []byte("{\n  \"mode\": \"full\",\n  \"allow\": [\"Bash(make *)\"]\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := e.pp(filepath.Join(e.web, "src"), "policy", "lint")
	if code != exitFailed {
		t.Fatalf("lint: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		pol + ":4: warning: Bash(npm test --watch) is already covered by allow Bash(npm test *)",
		pol + ":5: warning: Bash(rm -rf /) can never allow \"rm -rf /\": a hard floor denies it",
		pol + ":6: warning: Bash(sudo *) can never allow \"sudo\": only a person may approve it",
		pol + ":7: warning: Bash(git push *) is also in deny (/deny/0), which beats allow",
		pol + ":8: warning: Raed names no tool",
		pol + ":11: warning: Bash(git push --tags) never asks for \"git push --tags\": your deny rule Bash(git push *) denies it",
		pol + ":15: error: example \"git push origin main\" is deny, it wants ask",
		"policy.json:3: warning: allow Bash(make *) is ignored: a project's file may not loosen",
		"policy.json:2: warning: mode is ignored in a project's file",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("lint lacks %q:\n%s", want, out)
		}
	}
	out, _, code = e.pp(e.web, "policy", "test")
	if code != exitFailed || !strings.Contains(out, "3 examples, 1 failed") || !strings.Contains(out, "FAIL "+pol+":15") || !strings.Contains(out, "ok   "+pol+":13") {
		t.Errorf("policy test: exit %d\n%s", code, out)
	}
	// the peer will not load a policy whose example fails: the hook denies, naming it
	raw, _ := json.Marshal(e.claude("PreToolUse", e.web, "ls"))
	hook := exec.Command(binPath, "hook", "claude-code")
	hook.Env, hook.Stdin = e.env, bytes.NewReader(raw)
	var herr bytes.Buffer
	hook.Stderr = &herr
	if err := hook.Run(); err == nil || hook.ProcessState.ExitCode() != 2 || !strings.Contains(herr.String(), "/examples/2") {
		t.Errorf("hook with a failing example: %v %q", err, herr.String())
	}
	if _, errs, code := e.pp(e.web, "check", "--", "ls"); code != exitStartup || !strings.Contains(errs, "/examples/2") {
		t.Errorf("check with a failing example: exit %d %q", code, errs)
	}
	// fixed, it loads and passes
	fixed := strings.Replace(text, `"call": "git push origin main", "want": "ask"`, `"call": "git push origin main", "want": "deny"`, 1)
	if err := os.WriteFile(pol, []byte(fixed), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := e.ok(e.web, "policy", "test"); !strings.Contains(out, "3 examples, 0 failed") {
		t.Errorf("policy test, fixed:\n%s", out)
	}
	// a candidate file is linted in place of the user's
	cand := filepath.Join(e.home, "cand.json")
	if err := os.WriteFile(cand, []byte(`{"allow": ["Bash(npm test *)"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, code := e.pp(e.api, "policy", "lint", cand); code != exitOK || !strings.Contains(out, "no problems") {
		t.Errorf("lint of a clean candidate: exit %d\n%s", code, out)
	}
}

// TestRejectionNamesASaferWay: the agent told "no" is told the safer way
// where there is one, through a real hook call and a real peer.
func TestRejectionNamesASaferWay(t *testing.T) {
	e := newReviewEnv(t)
	if err := os.WriteFile(filepath.Join(e.web, ".env"), []byte("TOKEN=x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]string{
		"git push --force origin main": "use git push --force-with-lease",
		"cat .env":                     "read .env.example",
		"rm -rf ../api":                "ask the user to change files outside it",
	} {
		in := e.claude("PreToolUse", e.web, cmd)
		in["permission_mode"] = "bypassPermissions" // no one to ask: refused
		var out struct {
			HookSpecificOutput struct {
				PermissionDecision       string `json:"permissionDecision"`
				PermissionDecisionReason string `json:"permissionDecisionReason"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(e.hook("claude-code", in)), &out); err != nil {
			t.Fatal(err)
		}
		if out.HookSpecificOutput.PermissionDecision != "deny" || !strings.Contains(out.HookSpecificOutput.PermissionDecisionReason, want) {
			t.Errorf("%s: %+v", cmd, out.HookSpecificOutput)
		}
	}
	p := e.servePeer(e.web)
	p.initialize(false) // an editor that cannot prompt
	p.notify("initialized", map[string]any{})
	m := p.call("session/requestPermission", permParams("s", bashCall("c", "rm -rf /")), nil)
	if k, fb, _ := reply(m); k != "reject" || !strings.Contains(fb, "Instead: delete only what you created") {
		t.Errorf("rm -rf / through serve: %s %q", k, fb)
	}
}

// TestGrantsListsHostAlways: a hook user's "don't ask again" answers, which
// Claude Code keeps in its own settings, are listed and revocable.
func TestGrantsListsHostAlways(t *testing.T) {
	e := newReviewEnv(t)
	settings := filepath.Join(e.web, ".claude", "settings.local.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := "{\n  \"hooks\": {\"PreToolUse\": []},\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(npm test:*)\",\n      \"Bash(make lint)\"\n    ]\n  }\n}\n"
	if err := os.WriteFile(settings, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	out := e.ok(filepath.Join(e.web, "src"), "grants", "list")
	if !strings.Contains(out, "claude-code:1") || !strings.Contains(out, "Bash(npm test:*)") || !strings.Contains(out, "settings.local.json:5") ||
		!strings.Contains(out, "claude-code:2") {
		t.Fatalf("grants list:\n%s", out)
	}
	out = e.ok(e.web, "grants", "revoke", "claude-code:1")
	if !strings.Contains(out, "revoked claude-code:1 Bash(npm test:*)") {
		t.Fatalf("revoke: %s", out)
	}
	want := "{\n  \"hooks\": {\"PreToolUse\": []},\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(make lint)\"\n    ]\n  }\n}\n"
	if got, _ := os.ReadFile(settings); string(got) != want {
		t.Fatalf("settings after revoke:\n%s", got)
	}
	if _, errs, code := e.pp(e.web, "grants", "revoke", "claude-code:9"); code != exitFailed || !strings.Contains(errs, "no host grant") {
		t.Errorf("revoke unknown: %d %q", code, errs)
	}
}
