package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// binPath is the perm-peer binary built once by TestMain.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "perm-peer-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "perm-peer")
	args := []string{"build", "-o", binPath}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build perm-peer: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// msg is one decoded JSON-RPC message.
type msg map[string]any

func (m msg) id() any        { return m["id"] }
func (m msg) method() string { s, _ := m["method"].(string); return s }
func (m msg) errCode() int {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	n, _ := e["code"].(float64)
	return int(n)
}
func (m msg) result() map[string]any { r, _ := m["result"].(map[string]any); return r }
func (m msg) params() map[string]any { r, _ := m["params"].(map[string]any); return r }

// peerProc is a perm-peer subprocess driven over raw frames.
type peerProc struct {
	t       *testing.T
	cmd     *exec.Cmd
	in      io.WriteCloser
	framing string // "lsp" or "ndjson"
	msgs    chan msg
	raw     chan []byte
	done    chan error
	project string
	db      string
	stderr  *bytes.Buffer
	nextID  int

	exitOnce sync.Once
	exitCh   chan struct{}
	exitErr  error
}

type peerOpts struct {
	framing string   // how we frame (the peer runs --framing auto unless forced)
	args    []string // extra serve flags
	project string
	db      string
	env     []string
}

func startPeer(t *testing.T, o peerOpts) *peerProc {
	t.Helper()
	tmp := t.TempDir()
	if o.project == "" {
		o.project = filepath.Join(tmp, "project")
		if err := os.MkdirAll(filepath.Join(o.project, "src"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(o.project, "README.md"), []byte("hi\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if o.db == "" {
		o.db = filepath.Join(tmp, "audit.db")
	}
	cmd := serveCommand(tmp, o.project, o.db, o.args...)
	cmd.Env = append(cmd.Env, o.env...)
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	return launch(t, cmd, o)
}

// launch starts cmd, a perm-peer serve process, and drives it over its
// stdin and stdout; its stderr is the caller's (cmd.Stderr).
func launch(t *testing.T, cmd *exec.Cmd, o peerOpts) *peerProc {
	t.Helper()
	stderr, _ := cmd.Stderr.(*bytes.Buffer)
	if stderr == nil {
		stderr = &bytes.Buffer{} // the peer's stderr goes elsewhere
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &peerProc{t: t, cmd: cmd, in: in, framing: o.framing, msgs: make(chan msg, 256), raw: make(chan []byte, 256),
		done: make(chan error, 1), project: o.project, db: o.db, stderr: stderr, nextID: 100}
	go p.readLoop(bufio.NewReader(out))
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = in.Close()
		select {
		case <-p.exited():
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("peer did not exit after its stdin closed")
		}
		if t.Failed() {
			t.Logf("peer stderr:\n%s", stderr.String())
		}
	})
	return p
}

// serveCommand is `perm-peer serve` on project and db, with no user policy
// and its config, state and home directories under tmp.
func serveCommand(tmp, project, db string, extra ...string) *exec.Cmd {
	args := append([]string{"serve", "--project", project, "--db", db, "--policy", filepath.Join(tmp, "none.json")}, extra...)
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(tmp, "cfg"), "XDG_STATE_HOME="+filepath.Join(tmp, "state"), "HOME="+filepath.Join(tmp, "home"))
	return cmd
}

// readLoop parses frames in the framing the peer answers with.
func (p *peerProc) readLoop(r *bufio.Reader) {
	defer close(p.msgs)
	for {
		var body []byte
		if p.framing == "ndjson" {
			line, err := r.ReadBytes('\n')
			if err != nil {
				return
			}
			body = bytes.TrimSpace(line)
		} else {
			n := -1
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				line = strings.TrimSpace(line)
				if line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					n, _ = strconv.Atoi(v)
				}
			}
			if n < 0 {
				p.t.Errorf("frame without Content-Length")
				return
			}
			body = make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				return
			}
		}
		var m msg
		if err := json.Unmarshal(body, &m); err != nil {
			p.t.Errorf("peer wrote invalid JSON %q: %v", body, err)
			return
		}
		p.raw <- body
		p.msgs <- m
	}
}

// sendRaw writes one frame body (framed) or, with frame=false, raw bytes.
func (p *peerProc) sendRaw(body []byte, frame bool) {
	p.t.Helper()
	b := body
	if frame {
		if p.framing == "ndjson" {
			b = append(append([]byte{}, body...), '\n')
		} else {
			b = append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))), body...)
		}
	}
	if _, err := p.in.Write(b); err != nil {
		p.t.Fatalf("write to peer: %v", err)
	}
}

func (p *peerProc) send(v any) {
	p.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		p.t.Fatal(err)
	}
	p.sendRaw(b, true)
}

// request sends a request and returns its id.
func (p *peerProc) request(method string, params any) int {
	p.t.Helper()
	p.nextID++
	m := map[string]any{"jsonrpc": "2.0", "id": p.nextID, "method": method}
	if params != nil {
		m["params"] = params
	}
	p.send(m)
	return p.nextID
}

func (p *peerProc) notify(method string, params any) {
	p.t.Helper()
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if params != nil {
		m["params"] = params
	}
	p.send(m)
}

// hangLimit turns a peer that never answers into a failure. It
// synchronises nothing, so it is generous: a 4 MiB frame under -race on a
// loaded 2-core machine took most of the 20 s it used to be.
const hangLimit = 90 * time.Second

// next returns the next message from the peer; the deadline only turns a
// hang into a failure, it synchronises nothing.
func (p *peerProc) next() msg {
	p.t.Helper()
	select {
	case m, ok := <-p.msgs:
		if !ok {
			p.t.Fatalf("peer closed its output; stderr:\n%s", p.stderr.String())
		}
		<-p.raw
		return m
	case <-time.After(hangLimit):
		p.t.Fatalf("no message from peer within %s", hangLimit)
	}
	return nil
}

// call sends a request and returns its response; any permission/ask the
// peer sends meanwhile is answered by answer (nil: the test fails).
func (p *peerProc) call(method string, params any, answer func(ask msg) any) msg {
	p.t.Helper()
	id := p.request(method, params)
	return p.await(id, answer)
}

func (p *peerProc) await(id int, answer func(ask msg) any) msg {
	p.t.Helper()
	for {
		m := p.next()
		if m.method() == "permission/ask" {
			if answer == nil {
				p.t.Fatalf("unexpected permission/ask: %v", m)
			}
			p.send(map[string]any{"jsonrpc": "2.0", "id": m.id(), "result": answer(m)})
			continue
		}
		if m.method() != "" {
			continue // notifications such as $/cancelRequest
		}
		if n, ok := m.id().(float64); ok && int(n) == id {
			return m
		}
		p.t.Fatalf("unexpected message while waiting for %d: %v", id, m)
	}
}

func (p *peerProc) initialize(prompt bool) msg {
	p.t.Helper()
	m := p.call("initialize", map[string]any{"protocolVersion": 1, "clientInfo": map[string]any{"name": "test"},
		"capabilities": map[string]any{"prompt": prompt}, "project": map[string]any{"root": p.project}}, nil)
	if m.errCode() != 0 {
		p.t.Fatalf("initialize failed: %v", m)
	}
	return m
}

// exited is closed once the peer process has exited.
func (p *peerProc) exited() <-chan struct{} {
	p.exitOnce.Do(func() {
		p.exitCh = make(chan struct{})
		go func() {
			p.exitErr = <-p.done
			close(p.exitCh)
		}()
	})
	return p.exitCh
}

// wait waits for the peer to exit and returns its exit code.
func (p *peerProc) wait() int {
	p.t.Helper()
	select {
	case <-p.exited():
		err := p.exitErr
		if err == nil {
			return 0
		}
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		p.t.Fatalf("wait: %v", err)
	case <-time.After(20 * time.Second):
		p.t.Fatalf("peer did not exit")
	}
	return -1
}

func bashCall(id, command string) map[string]any {
	return map[string]any{"toolCallId": id, "tool": "bash", "kind": "execute", "rawInput": map[string]any{"command": command}}
}

func permParams(session string, call map[string]any) map[string]any {
	return map[string]any{"sessionId": session, "turn": 1, "toolCall": call}
}

func reply(m msg) (kind, feedback string, meta map[string]any) {
	r := m.result()
	kind, _ = r["reply"].(string)
	feedback, _ = r["feedback"].(string)
	meta, _ = r["_meta"].(map[string]any)
	return
}
