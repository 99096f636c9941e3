package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perm-peer/perm-peer/internal/cdp"
)

// uiWorld is a user's machine: two projects (git checkouts) sharing one
// state and config directory, so `perm-peer ui` sees both.
type uiWorld struct {
	t            *testing.T
	tmp          string
	st, cfg      string
	projA, projB string
}

func newUIWorld(t *testing.T) *uiWorld {
	t.Helper()
	tmp := t.TempDir()
	w := &uiWorld{t: t, tmp: tmp, st: filepath.Join(tmp, "state"), cfg: filepath.Join(tmp, "cfg"),
		projA: filepath.Join(tmp, "shop"), projB: filepath.Join(tmp, "blog")}
	for _, d := range []string{filepath.Join(w.projA, ".git"), filepath.Join(w.projB, ".git"), w.st, w.cfg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// env is the user's environment; Claude Code runs in a terminal, where a
// person sees its dialogs.
func (w *uiWorld) env() []string {
	return append(os.Environ(), "XDG_STATE_HOME="+w.st, "XDG_CONFIG_HOME="+w.cfg, "HOME="+w.tmp, "CLAUDE_CODE_SESSION_ATTENDED=1", "CLAUDE_CONFIG_DIR=")
}

// hook runs one hook call of host in project dir through the binary.
func (w *uiWorld) hook(host, dir string, input map[string]any) string {
	w.t.Helper()
	raw, _ := json.Marshal(input)
	cmd := exec.Command(binPath, "hook", host)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, w.env(), bytes.NewReader(raw)
	out, err := cmd.Output()
	if err != nil {
		w.t.Fatalf("hook %s %v: %v", host, input, err)
	}
	return string(out)
}

// claude is one Claude Code hook event of session sid in dir.
func (w *uiWorld) claude(dir, sid, event string, fields map[string]any) string {
	in := map[string]any{"session_id": sid, "transcript_path": filepath.Join(w.tmp, sid+".jsonl"), "cwd": dir,
		"permission_mode": "default", "hook_event_name": event}
	for k, v := range fields {
		in[k] = v
	}
	return w.hook("claude-code", dir, in)
}

// codex is one Codex PreToolUse of a shell command in dir.
func (w *uiWorld) codex(dir, command string) string {
	return w.hook("codex", dir, map[string]any{"session_id": "cx-1", "turn_id": "turn-1", "transcript_path": nil, "cwd": dir,
		"hook_event_name": "PreToolUse", "model": "gpt", "permission_mode": "default",
		"tool_name": "Bash", "tool_input": map[string]any{"command": command}, "tool_use_id": "cx-" + command})
}

// claudeVerdict is a Claude Code PreToolUse verdict; "" is none: a call
// left to Claude's own dialog (SPEC §10.2).
func claudeVerdict(t *testing.T, stdout string) string {
	t.Helper()
	if stdout == "" {
		return ""
	}
	return hookDecision(t, stdout)
}

// scriptNote is what the user typed when rejecting a call: text that would
// run if the page did not escape it.
const scriptNote = `<script>document.title="pwned"</script><img src=x onerror="document.title='pwned'"> not on Fridays`

// record plays a day: Claude Code in both projects, Codex in one; the user
// rejects "make deploy" in Claude's dialog (perm-peer leaves it to the
// dialog: no verdict) with scriptNote.
func (w *uiWorld) record() {
	t := w.t
	t.Helper()
	bash := func(id, command string) map[string]any {
		return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": command, "description": "d"}, "tool_use_id": id}
	}
	w.claude(w.projA, "cc-a", "UserPromptSubmit", map[string]any{"prompt": "ship the shop"})
	for _, c := range []struct{ id, cmd, want string }{
		{"a1", "ls", "allow"}, {"a2", "git status", "allow"}, {"a3", "rm -rf ~", "deny"}, {"a4", "make deploy", ""},
	} {
		if d := claudeVerdict(t, w.claude(w.projA, "cc-a", "PreToolUse", bash(c.id, c.cmd))); d != c.want {
			t.Fatalf("claude %q: %s, want %s", c.cmd, d, c.want)
		}
	}
	// Claude shows its dialog; what it writes when the user rejects there.
	if out := w.claude(w.projA, "cc-a", "PermissionRequest", bash("", "make deploy")); out != "" {
		t.Fatalf("PermissionRequest of make deploy: %q, want no verdict", out)
	}
	lines := []map[string]any{
		{"type": "assistant", "message": map[string]any{"content": []any{map[string]any{"type": "tool_use", "id": "a4", "name": "Bash"}}}},
		{"type": "user", "toolDenialKind": "user-rejected", "userFeedback": scriptNote,
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "a4", "is_error": true,
				"content": "The user doesn't want to proceed with this tool use. The tool use was rejected. To tell you how to proceed, the user said:\n" + scriptNote}}}},
	}
	var b bytes.Buffer
	for _, l := range lines {
		raw, _ := json.Marshal(l)
		b.Write(append(raw, '\n'))
	}
	if err := os.WriteFile(filepath.Join(w.tmp, "cc-a.jsonl"), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if d := hookDecision(t, w.claude(w.projA, "cc-a", "PreToolUse", bash("a5", "cat README.md"))); d != "allow" {
		t.Fatalf("cat README.md: %s", d)
	}
	w.claude(w.projB, "cc-b", "UserPromptSubmit", map[string]any{"prompt": "write a post"})
	hookDecision(t, w.claude(w.projB, "cc-b", "PreToolUse", bash("b1", "ls drafts")))
	for _, c := range []string{"git log", "rm -rf /", "cat .env"} {
		w.codex(w.projB, c)
	}
}

// uiProc is a running `perm-peer ui`.
type uiProc struct {
	cmd  *exec.Cmd
	url  string // with the token
	base string // http://127.0.0.1:PORT
	done chan error
}

func (w *uiWorld) startUI(args ...string) *uiProc {
	t := w.t
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"ui"}, args...)...)
	cmd.Env = w.env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &uiProc{cmd: cmd, done: make(chan error, 1)}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("perm-peer ui printed no URL: %v; stderr %s", err, stderr.String())
	}
	go func() { io.Copy(io.Discard, out); p.done <- cmd.Wait() }()
	m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/\?token=[0-9a-f]{32}\b`).FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("perm-peer ui printed %q, want http://127.0.0.1:PORT/?token=…", line)
	}
	p.url, p.base = m[0], m[1]
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// stop sends SIGINT (Ctrl-C) and wants a clean exit.
func (p *uiProc) stop(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.done:
		if err != nil {
			t.Fatalf("perm-peer ui after Ctrl-C: %v, want exit 0", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("perm-peer ui did not stop within 10 s of Ctrl-C")
	}
}

// browser is a headless Chromium with one page.
func browser(t *testing.T) *cdp.Page {
	t.Helper()
	bin, err := cdp.Path()
	if err != nil {
		t.Fatal(err)
	}
	b, err := cdp.Launch(bin, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	p, err := b.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// rowsOf is the text of each row of the page's decision table.
func rowsOf(t *testing.T, p *cdp.Page) []string {
	t.Helper()
	var rows []string
	if err := p.Eval(`[...document.querySelectorAll("table.log tbody tr[data-id]")].map(r => r.innerText)`, &rows); err != nil {
		t.Fatal(err)
	}
	return rows
}

func mustEval(t *testing.T, p *cdp.Page, expr string, out any) {
	t.Helper()
	if err := p.Eval(expr, out); err != nil {
		t.Fatal(err)
	}
}

// openUI records a day, starts perm-peer ui and opens its URL in a fresh
// headless browser.
func openUI(t *testing.T) (*uiWorld, *uiProc, *cdp.Page) {
	t.Helper()
	w := newUIWorld(t)
	w.record()
	ui := w.startUI()
	p := browser(t)
	if err := p.Navigate(ui.url); err != nil {
		t.Fatal(err)
	}
	return w, ui, p
}

// TestUIShowsHistoryInBrowser: a day recorded through the binary by two
// agents in two projects, looked at in a real browser.
func TestUIShowsHistoryInBrowser(t *testing.T) {
	_, ui, p := openUI(t)

	// today: the token became a cookie and left the address bar; both
	// projects and agents are there, and the counts add up.
	var href string
	mustEval(t, p, `location.href`, &href)
	if href != ui.base+"/" {
		t.Fatalf("after the token visit the page is %q, want %q", href, ui.base+"/")
	}
	text, _ := p.Text()
	for _, want := range []string{"shop", "blog", "claude-code", "codex", "make deploy", "rm -rf ~"} {
		if !strings.Contains(text, want) {
			t.Errorf("today does not show %q:\n%s", want, text)
		}
	}
	var legend []string
	mustEval(t, p, `[...document.querySelectorAll(".legend li")].map(l => l.innerText)`, &legend)
	if fmt.Sprint(legend) != "[claude-code 6 codex 3]" {
		t.Errorf("chart legend %q, want claude-code 6 and codex 3", legend)
	}
	var bars int
	mustEval(t, p, `document.querySelectorAll("svg.chart rect").length`, &bars)
	if bars < 2 {
		t.Errorf("%d bars in the chart, want one per agent at least", bars)
	}
	var counts map[string]int
	mustEval(t, p, `Object.fromEntries([...document.querySelectorAll(".count")].map(c => [c.querySelector("span").innerText, +c.querySelector("b").innerText]))`, &counts)
	// by hand: shop: ls, git status, cat README (gate), rm -rf ~ (floor), make deploy (you, rejected);
	// blog: ls drafts, git log (gate), rm -rf / (floor), cat .env (no one to ask: denied).
	if counts["allowed by the gate"] != 5 || counts["denied"] != 4 || counts["asked"] != 1 {
		t.Errorf("counts %v, want 5 allowed by the gate, 4 denied, 1 asked", counts)
	}

	// A picture of it: PERM_PEER_UI_SCREENSHOT=path keeps one (docs/ui.png).
	shot := filepath.Join(t.TempDir(), "today.png")
	if err := p.Screenshot(shot, 1280, true); err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(shot)
	if err != nil || len(png) < 10000 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot: %d bytes, %v", len(png), err)
	}
	if keep := os.Getenv("PERM_PEER_UI_SCREENSHOT"); keep != "" {
		if err := os.WriteFile(keep, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The user's note is shown as text, and ran nowhere.
	var title string
	mustEval(t, p, `document.title`, &title)
	var notes []string
	mustEval(t, p, `[...document.querySelectorAll("td.note")].map(n => n.textContent)`, &notes)
	if title == "pwned" || !strings.Contains(strings.Join(notes, "\n"), scriptNote) {
		t.Fatalf("title %q; notes %q: want the note as text", title, notes)
	}
	var injected int
	mustEval(t, p, `document.querySelectorAll("main script, main img").length`, &injected)
	if injected != 0 {
		t.Fatalf("%d script/img elements made from audit text", injected)
	}

	// decisions: the agent filter keeps Codex's three calls.
	if err := p.Navigate(ui.base + "/decisions"); err != nil {
		t.Fatal(err)
	}
	if n := len(rowsOf(t, p)); n != 9 {
		t.Fatalf("decisions: %d rows, want 9:\n%s", n, strings.Join(rowsOf(t, p), "\n"))
	}
	mustEval(t, p, `document.querySelector('select[name=agent]').value = "codex"`, nil)
	if err := p.ClickAndWait(`form.filters button[type=submit]`); err != nil {
		t.Fatal(err)
	}
	rows := rowsOf(t, p)
	if len(rows) != 3 {
		t.Fatalf("agent codex: %d rows, want 3:\n%s", len(rows), strings.Join(rows, "\n"))
	}
	for _, r := range rows {
		if !strings.Contains(r, "codex") || !strings.Contains(r, "blog") {
			t.Errorf("agent codex shows %q", r)
		}
	}
	// The text filter, typed as a person would.
	if err := p.Navigate(ui.base + "/decisions"); err != nil {
		t.Fatal(err)
	}
	mustEval(t, p, `document.querySelector('input[name=q]').value = "rm -rf"`, nil)
	if err := p.ClickAndWait(`form.filters button[type=submit]`); err != nil {
		t.Fatal(err)
	}
	rows = rowsOf(t, p)
	if len(rows) != 2 || !strings.Contains(strings.Join(rows, ""), "rm -rf ~") || !strings.Contains(strings.Join(rows, ""), "rm -rf /") {
		t.Fatalf("text rm -rf: rows %q, want the two rm -rf calls", rows)
	}

	// what if: a candidate policy pasted into the page, replayed.
	if err := p.Navigate(ui.base + "/whatif"); err != nil {
		t.Fatal(err)
	}
	mustEval(t, p, `document.querySelector("textarea[name=policy]").value = '{"allow": ["Bash(make deploy *)"], "deny": ["Bash(git status *)"]}'`, nil)
	if err := p.ClickAndWait(`form.whatif button[type=submit]`); err != nil {
		t.Fatal(err)
	}
	var summary string
	mustEval(t, p, `document.querySelector("p.summary").innerText`, &summary)
	// by hand: make deploy was asked (ask → allow), git status known safe (allow → deny), the other 7 stay.
	if summary != "9 recorded calls decided again: 1 more allowed, 0 more asked, 1 newly denied, 0 no longer denied." {
		t.Fatalf("replay summary %q", summary)
	}
	var changes []string
	mustEval(t, p, `[...document.querySelectorAll("tr.change")].map(r => r.innerText.replace(/\s+/g, " ").trim())`, &changes)
	if len(changes) != 2 || !strings.Contains(strings.Join(changes, "|"), "bash: make deploy ask allow") ||
		!strings.Contains(strings.Join(changes, "|"), "bash: git status allow deny") {
		t.Fatalf("replay changes %q", changes)
	}

	// projects: both chains verify.
	if err := p.Navigate(ui.base + "/projects"); err != nil {
		t.Fatal(err)
	}
	var chains []string
	mustEval(t, p, `[...document.querySelectorAll("table.log tbody tr")].map(r => r.innerText)`, &chains)
	if len(chains) != 2 || !strings.Contains(chains[0], "ok") || !strings.Contains(chains[1], "ok") {
		t.Fatalf("projects: %q, want two with a sound chain", chains)
	}
	ui.stop(t)
}

// TestUIRefusesOtherCallers: without the token, from another origin, or a
// cross-site form post in the user's own browser: nothing changes.
func TestUIRefusesOtherCallers(t *testing.T) {
	w := newUIWorld(t)
	w.record()
	ui := w.startUI()
	fingerprint := func() string {
		var b strings.Builder
		filepath.Walk(w.tmp, func(path string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() && !strings.HasSuffix(path, ".lock") && !strings.HasSuffix(path, ".want") &&
				!strings.Contains(path, "chromium") {
				raw, _ := os.ReadFile(path)
				fmt.Fprintf(&b, "%s %x\n", path, raw)
			}
			return nil
		})
		return b.String()
	}
	before := fingerprint()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(u string, hdr map[string]string) int {
		r, _ := http.NewRequest("GET", u, nil)
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		if k, ok := hdr["Host"]; ok {
			r.Host = k
		}
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	token := strings.TrimPrefix(ui.url, ui.base+"/?token=")
	if c := get(ui.base+"/", nil); c != 403 {
		t.Errorf("no token: %d, want 403", c)
	}
	if c := get(ui.base+"/decisions", nil); c != 403 {
		t.Errorf("no token, /decisions: %d, want 403", c)
	}
	if c := get(ui.url, map[string]string{"Origin": "http://evil.example"}); c != 403 {
		t.Errorf("another origin: %d, want 403", c)
	}
	if c := get(ui.url, map[string]string{"Host": "evil.example"}); c != 403 {
		t.Errorf("another host: %d, want 403", c)
	}
	post := url.Values{"project": {"x"}, "id": {"1"}, "effect": {"allow"}}
	for name, hdr := range map[string]map[string]string{
		"token cookie, no csrf, own origin": {"Cookie": "perm-peer-ui-" + ui.base[strings.LastIndex(ui.base, ":")+1:] + "=" + token, "Origin": ui.base},
		"no cookie":                         {"Origin": ui.base},
	} {
		r, _ := http.NewRequest("POST", ui.base+"/rule", strings.NewReader(post.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range hdr {
			r.Header.Set(k, v)
		}
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Errorf("POST %s: %d, want 403", name, resp.StatusCode)
		}
	}

	// A page on another loopback port (same site, other origin) posts a
	// form to the dashboard from the user's logged-in browser.
	p := browser(t)
	if err := p.Navigate(ui.url); err != nil {
		t.Fatal(err)
	}
	evil := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(rw, `<form id=f method=post action="%s/grants/revoke"><input name=project value=x><input name=id value=1><input name=csrf value=guess></form>
<form id=g method=post action="%s/rule"><input name=project value=x><input name=id value=1><input name=effect value=allow></form>
<button id=go onclick="document.getElementById('g').submit()">win a prize</button>`, ui.base, ui.base)
	}))
	defer evil.Close()
	if err := p.Navigate(evil.URL); err != nil {
		t.Fatal(err)
	}
	if err := p.ClickAndWait("#go"); err != nil {
		t.Fatal(err)
	}
	text, _ := p.Text()
	if !strings.Contains(text, "forbidden") {
		t.Errorf("cross-site post answered %q, want forbidden", text)
	}
	if after := fingerprint(); after != before {
		t.Errorf("files changed by refused requests")
	}
	ui.stop(t)
}

// TestUIAllowAndDenyCallsLikeThis: the buttons on the asks page, clicked
// in the browser, write what `perm-peer allow/deny ID` writes, after
// showing it, and the next identical call through the binary gets the new
// outcome.
func TestUIAllowAndDenyCallsLikeThis(t *testing.T) {
	w, ui, p := openUI(t)
	clickRow := func(page, action, button string) {
		t.Helper()
		if err := p.Navigate(ui.base + page); err != nil {
			t.Fatal(err)
		}
		var id string
		mustEval(t, p, fmt.Sprintf(`(() => { for (const r of document.querySelectorAll("tr[data-id]"))
			if (r.querySelector("td.action").innerText === %q) return r.dataset.id; return ""; })()`, action), &id)
		if id == "" {
			text, _ := p.Text()
			t.Fatalf("no row for %q on %s:\n%s", action, page, text)
		}
		if err := p.ClickAndWait(fmt.Sprintf(`tr[data-id=%q] a.%s`, id, button)); err != nil {
			var where string
			p.Eval(`location.href`, &where)
			t.Fatalf("click %s of %s (%s): %v; now at %s", button, action, id, err, where)
		}
	}

	// Allow: the user rejected "make deploy" in Claude's dialog, and now
	// wants it to run in this project.
	clickRow("/asks", "bash: make deploy", "allow")
	var rule string
	mustEval(t, p, `document.getElementById("rule").innerText`, &rule)
	if rule != "Bash(make deploy *)" {
		t.Fatalf("allow shows rule %q, want Bash(make deploy *)", rule)
	}
	grants := func() string {
		cmd := exec.Command(binPath, "grants", "list", "--project", w.projA)
		cmd.Env = w.env()
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	if g := grants(); strings.Contains(g, "make deploy") {
		t.Fatalf("a grant exists before the user confirmed: %s", g)
	}
	if err := p.ClickAndWait("#confirm-rule"); err != nil {
		t.Fatal(err)
	}
	flash, _ := p.Text()
	if !strings.Contains(flash, "allow: wrote Bash(make deploy *)") {
		t.Fatalf("after confirming: %s", flash)
	}
	if g := grants(); !strings.Contains(g, "Bash(make deploy *)") {
		t.Fatalf("grants after allow: %s", g)
	}
	bash := func(id, command string) map[string]any {
		return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": command, "description": "d"}, "tool_use_id": id}
	}
	// In a new session: in cc-a the user's rejection note still rejects
	// that exact call again (hook: a rejection's note holds for its session).
	w.claude(w.projA, "cc-a2", "UserPromptSubmit", map[string]any{"prompt": "deploy now"})
	if d := hookDecision(t, w.claude(w.projA, "cc-a2", "PreToolUse", bash("a6", "make deploy"))); d != "allow" {
		t.Fatalf("make deploy after allow: %s, want allow", d)
	}
	// The grant is the user's act in the audit log, and the chain accounts for it.
	cmd := exec.Command(binPath, "audit", "verify", "--project", w.projA)
	cmd.Env = w.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("audit verify after allow: %v %s", err, out)
	}

	// The grant is listed on the grants page; revoking it there makes the
	// next such call ask again.
	if err := p.Navigate(ui.base + "/grants"); err != nil {
		t.Fatal(err)
	}
	var listed []string
	mustEval(t, p, `[...document.querySelectorAll("table.log tbody tr")].map(r => r.innerText)`, &listed)
	if len(listed) != 1 || !strings.Contains(listed[0], "Bash(make deploy *)") || !strings.Contains(listed[0], "shop") {
		t.Fatalf("grants page: %q", listed)
	}
	if err := p.ClickAndWait(`table.log tbody tr button.deny`); err != nil {
		t.Fatal(err)
	}
	if g := grants(); strings.Contains(g, "make deploy") {
		t.Fatalf("grants after revoke: %s", g)
	}
	if d := claudeVerdict(t, w.claude(w.projA, "cc-a2", "PreToolUse", bash("a7", "make deploy"))); d != "" {
		t.Fatalf("make deploy after revoke: %q, want no verdict (Claude asks)", d)
	}

	// Always deny: Codex's "git log" in the blog, allowed as known safe:
	// from the decisions page to its why, and its "always deny".
	clickRow("/decisions", "bash: git log", "why")
	if err := p.ClickAndWait("a.button.deny"); err != nil {
		t.Fatal(err)
	}
	mustEval(t, p, `document.getElementById("rule") ? document.getElementById("rule").innerText : document.body.innerText`, &rule)
	if rule != "Bash(git log *)" && rule != "Bash(git log)" {
		t.Fatalf("deny shows %q", rule)
	}
	policy := filepath.Join(w.projB, ".perm-peer", "policy.json")
	if _, err := os.Stat(policy); err == nil {
		t.Fatal("the project policy exists before the user confirmed")
	}
	if err := p.ClickAndWait("#confirm-rule"); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(policy)
	if err != nil || !strings.Contains(string(raw), rule) {
		t.Fatalf("project policy after deny: %s %v", raw, err)
	}
	if out := w.codex(w.projB, "git log"); !strings.Contains(out, "deny") {
		t.Fatalf("git log after deny: %q, want deny", out)
	}
	ui.stop(t)
}
