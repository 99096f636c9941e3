package peer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
)

type rmsg map[string]any

type harness struct {
	t      *testing.T
	srv    *Server
	in     *io.PipeWriter
	wmu    sync.Mutex
	mu     sync.Mutex
	resp   map[string]chan rmsg
	asks   chan rmsg
	notifs chan rmsg
	done   chan int
	proj   string
	db     string
}

func newHarness(t *testing.T, proj, db string) *harness {
	return startHarness(t, proj, db, "")
}

// newHarnessPolicy is newHarness with a user policy file.
func newHarnessPolicy(t *testing.T, pol string) *harness {
	return startHarness(t, "", "", pol)
}

// startHarness serves a fresh server over pipes; "" picks temp dirs and no
// user policy.
func startHarness(t *testing.T, proj, db, pol string) *harness {
	t.Helper()
	if proj == "" {
		proj = t.TempDir()
	}
	if db == "" {
		db = filepath.Join(t.TempDir(), "a.db")
	}
	home := t.TempDir()
	if pol == "" {
		pol = filepath.Join(home, "nopolicy.json")
	}
	srv := New(Config{Project: proj, DBPath: db, UserPolicyFile: pol, Home: home, Framing: FramingNDJSON})
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &harness{t: t, srv: srv, in: inW, resp: map[string]chan rmsg{}, asks: make(chan rmsg, 100), notifs: make(chan rmsg, 100), done: make(chan int, 1), proj: proj, db: db}
	go func() { h.done <- srv.Serve(context.Background(), inR, outW); outW.Close() }()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			var m rmsg
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				continue
			}
			if m["method"] != nil {
				if m["id"] != nil {
					h.asks <- m
				} else {
					h.notifs <- m
				}
				continue
			}
			h.ch(fmt.Sprint(m["id"])) <- m
		}
	}()
	return h
}

func (h *harness) ch(id string) chan rmsg {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.resp[id]
	if c == nil {
		c = make(chan rmsg, 4)
		h.resp[id] = c
	}
	return c
}

func (h *harness) send(v any) {
	b, _ := json.Marshal(v)
	h.wmu.Lock()
	defer h.wmu.Unlock()
	_, _ = h.in.Write(append(b, '\n'))
}

func (h *harness) call(id any, method string, params any) {
	h.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}
func (h *harness) notify(method string, params any) {
	h.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}
func (h *harness) wait(id any) rmsg {
	h.t.Helper()
	select {
	case m := <-h.ch(fmt.Sprint(id)):
		return m
	case <-time.After(10 * time.Second):
		h.t.Fatalf("no reply to %v", id)
	}
	return nil
}
func (h *harness) ask() rmsg {
	h.t.Helper()
	select {
	case m := <-h.asks:
		return m
	case <-time.After(10 * time.Second):
		h.t.Fatalf("no permission/ask")
	}
	return nil
}
func (h *harness) answer(ask rmsg, result any) {
	h.send(map[string]any{"jsonrpc": "2.0", "id": ask["id"], "result": result})
}
func (h *harness) init(prompt bool, settings map[string]any) {
	p := map[string]any{"protocolVersion": 1, "capabilities": map[string]any{"prompt": prompt}}
	if settings != nil {
		p["settings"] = settings
	}
	h.call("init", "initialize", p)
	if m := h.wait("init"); m["error"] != nil {
		h.t.Fatalf("initialize: %v", m["error"])
	}
}
func (h *harness) close() int {
	h.in.Close()
	select {
	case c := <-h.done:
		return c
	case <-time.After(10 * time.Second):
		h.t.Fatal("Serve did not return")
	}
	return -1
}

func bash(cmd string) map[string]any {
	return map[string]any{"toolCallId": "c-" + cmd, "tool": "bash", "kind": "execute", "rawInput": map[string]any{"command": cmd}}
}

func replyOf(m rmsg) string {
	r, _ := m["result"].(map[string]any)
	s, _ := r["reply"].(string)
	return s
}

func toolCallOf(cmd string) protocol.ToolCall {
	return protocol.ToolCall{ToolCallID: "c", Tool: "bash", Kind: "execute", RawInput: json.RawMessage(fmt.Sprintf(`{"command":%q}`, cmd))}
}
