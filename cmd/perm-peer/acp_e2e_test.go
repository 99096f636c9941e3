package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// acpProc is `perm-peer acp -- AGENT` driven as an editor over raw lines.
type acpProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
}

// acpEnv is a fresh project with its own HOME and XDG dirs.
func acpEnv(t *testing.T) (project string, env []string) {
	t.Helper()
	root := t.TempDir()
	project = filepath.Join(root, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	return project, append(os.Environ(), "HOME="+filepath.Join(root, "home"), "XDG_CONFIG_HOME="+filepath.Join(root, "config"),
		"XDG_STATE_HOME="+filepath.Join(root, "state"))
}

func startACP(t *testing.T, project string, env []string, args ...string) *acpProc {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"acp"}, args...)...)
	cmd.Dir, cmd.Env = project, env
	p := &acpProc{cmd: cmd, stderr: &strings.Builder{}}
	cmd.Stderr = p.stderr
	var err error
	if p.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.out = bufio.NewReader(out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return p
}

func (p *acpProc) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (p *acpProc) next(t *testing.T) string {
	t.Helper()
	line, err := p.out.ReadString('\n')
	if err != nil {
		t.Fatalf("read from perm-peer acp: %v (stderr: %s)", err, p.stderr)
	}
	return strings.TrimSuffix(line, "\n")
}

// exit closes the editor's end and returns perm-peer's exit code.
func (p *acpProc) exit(t *testing.T) int {
	t.Helper()
	p.in.Close()
	var ee *exec.ExitError
	if err := p.cmd.Wait(); errors.As(err, &ee) {
		return ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return 0
}

// TestACPProxyRelay runs `cat` as the agent: every line the editor writes
// comes back as a line the agent wrote. Lines perm-peer does not act on
// pass byte for byte both ways; a permission request "from the agent" is
// answered by perm-peer itself (and that answer, echoed by cat, comes back
// to the editor as the agent's response).
func TestACPProxyRelay(t *testing.T) {
	project, env := acpEnv(t)
	db := filepath.Join(t.TempDir(), "a.db")
	p := startACP(t, project, env, "--db", db, "--", "cat")

	odd := `{ "jsonrpc" : "2.0", "method":"_x/note", "params":{"b":1,"a":"\u00e9 é","_meta":{"k":[1,2.50]}} }`
	p.send(t, odd)
	if got := p.next(t); got != odd {
		t.Fatalf("relayed %q, want it byte for byte: %q", got, odd)
	}
	cancel := `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":42}}`
	p.send(t, cancel)
	if got := p.next(t); got != cancel {
		t.Fatalf("relayed %q, want %q", got, cancel)
	}
	errLine := `{"jsonrpc":"2.0","id":"x1","error":{"code":-32601,"message":"nope"}}`
	p.send(t, errLine)
	if got := p.next(t); got != errLine {
		t.Fatalf("relayed %q, want %q", got, errLine)
	}

	perm := `{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s1",` +
		`"toolCall":{"toolCallId":"c1","kind":"execute","title":"wipe","rawInput":{"command":"rm -rf /"}},` +
		`"options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`
	p.send(t, perm) // cat echoes it: perm-peer decides it and answers cat, never forwarding it
	var answer struct {
		ID     int `json:"id"`
		Result struct {
			Outcome struct{ Outcome, OptionID string } `json:"outcome"`
			Meta    struct{ DecidedBy string }         `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(p.next(t)), &answer); err != nil {
		t.Fatal(err)
	}
	if answer.ID != 7 || answer.Result.Outcome.OptionID != "no" || answer.Result.Meta.DecidedBy != "floor" {
		t.Fatalf("perm-peer's answer = %+v, want id 7, option no, decided by floor", answer)
	}
	if code := p.exit(t); code != 0 {
		t.Fatalf("exit code %d after the editor closed stdin and cat exited 0; stderr: %s", code, p.stderr)
	}
}

// TestACPProxyStartupErrors: perm-peer acp that cannot guard exits 3 with
// one sentence on stderr, and never starts the agent.
func TestACPProxyStartupErrors(t *testing.T) {
	project, env := acpEnv(t)
	marker := filepath.Join(t.TempDir(), "agent-ran")
	agent := []string{"--", "sh", "-c", "touch " + marker + "; cat"}
	badPolicy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(badPolicy, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
	}{
		{"bad policy", append([]string{"--policy", badPolicy, "--db", filepath.Join(t.TempDir(), "a.db")}, agent...)},
		{"unopenable db", append([]string{"--db", filepath.Join(notDir, "a.db")}, agent...)},
		{"agent not found", []string{"--db", filepath.Join(t.TempDir(), "a.db"), "--", "no-such-agent-perm-peer"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(binPath, append([]string{"acp"}, c.args...)...)
			cmd.Dir, cmd.Env = project, env
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Fatalf("exit = %v, want 3; output: %s", err, out)
			}
			if lines := strings.Split(strings.TrimSpace(string(out)), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "perm-peer acp: cannot start: ") {
				t.Fatalf("stderr = %q, want one sentence", out)
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the agent was started unprotected")
			}
		})
	}
}

// TestACPProxyExitCode: perm-peer exits with the agent's exit code.
func TestACPProxyExitCode(t *testing.T) {
	project, env := acpEnv(t)
	p := startACP(t, project, env, "--db", filepath.Join(t.TempDir(), "a.db"), "--", "sh", "-c", "exit 7")
	var ee *exec.ExitError
	if err := p.cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("exit = %v, want the agent's 7", err)
	}
}

// TestACPProxyJudgeFirst: in ai mode the judge decides before the editor is
// asked, with the prompt's text as its task; only its escalation reaches
// the editor, as the agent's own request.
func TestACPProxyJudgeFirst(t *testing.T) {
	project, env := acpEnv(t)
	m := newModelServer(t)
	policy := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(policy, []byte(`{"mode":"ai","judge":{"endpoint":"`+m.URL+`/v1","model":"test-model","timeoutMs":2000}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startACP(t, project, env, "--policy", policy, "--db", filepath.Join(t.TempDir(), "a.db"), "--", "cat")
	prompt := `{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"deploy the app"}]}}`
	p.send(t, prompt)
	if got := p.next(t); got != prompt { // echoed by cat: an agent request perm-peer does not act on
		t.Fatalf("got %q", got)
	}
	perm := func(id int, command string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/request_permission","params":{"sessionId":"s1",`+
			`"toolCall":{"toolCallId":"c%d","kind":"execute","title":"x","rawInput":{"command":%q}},`+
			`"options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}}`, id, id, command)
	}
	m.script(verdict("allow", "low"))
	p.send(t, perm(2, "frobnicate --now"))
	if got := p.next(t); !strings.Contains(got, `"id":2`) || !strings.Contains(got, `"optionId":"yes"`) || !strings.Contains(got, `"decidedBy":"judge"`) {
		t.Fatalf("the judge's allow: %s", got)
	}
	if !strings.Contains(m.prompt(0), "deploy the app") {
		t.Fatalf("the judge was not given the prompt's text: %s", m.prompt(0))
	}
	m.script(verdict("escalate", "medium"))
	line := perm(3, "frobnicate --later")
	p.send(t, line)
	if got := p.next(t); withoutID(t, got) != withoutID(t, line) || strings.Contains(got, `"id":3`) {
		t.Fatalf("the judge's escalation goes to the editor unchanged but for its id (perm-peer's own); got %q", got)
	}
	if m.calls() != 2 {
		t.Fatalf("%d judge calls, want 2", m.calls())
	}
}

// withoutID is line with its top-level id replaced by "ID".
func withoutID(t *testing.T, line string) string {
	t.Helper()
	m := regexp.MustCompile(`^\{"jsonrpc":"2.0","id":("[^"]*"|\d+),`).FindStringSubmatchIndex(line)
	if m == nil {
		t.Fatalf("no id at the start of %q", line)
	}
	return line[:m[2]] + `"ID"` + line[m[3]:]
}
