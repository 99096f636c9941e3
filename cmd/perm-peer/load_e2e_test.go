package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perm-peer/perm-peer/store"
)

// mux drives one peer from many goroutines at once: requests go out under a
// write lock, one reader goroutine routes responses to their callers by id
// and answers permission/ask with the test's answer function. It sits on
// top of peerProc (startPeer, framing, readLoop) and replaces only its
// single-caller call/await.
type mux struct {
	p      *peerProc
	answer func(ask msg) any

	wmu     sync.Mutex
	mu      sync.Mutex
	nextID  int
	waiters map[int]chan msg
	asks    int
	errs    []string
	done    chan struct{}
}

func newMux(p *peerProc, answer func(ask msg) any) *mux {
	m := &mux{p: p, answer: answer, nextID: 100_000, waiters: map[int]chan msg{}, done: make(chan struct{})}
	go m.readLoop()
	return m
}

func (m *mux) fail(format string, args ...any) {
	m.mu.Lock()
	m.errs = append(m.errs, fmt.Sprintf(format, args...))
	m.mu.Unlock()
}

// write frames one message; errors are collected, never t.Fatal off the
// test goroutine.
func (m *mux) write(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		m.fail("encode: %v", err)
		return
	}
	if m.p.framing == "ndjson" {
		b = append(b, '\n')
	} else {
		b = append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(b))), b...)
	}
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if _, err := m.p.in.Write(b); err != nil {
		m.fail("write: %v", err)
	}
}

func (m *mux) readLoop() {
	defer close(m.done)
	for {
		msg, ok := <-m.p.msgs
		if !ok {
			return
		}
		<-m.p.raw
		switch {
		case msg.method() == "permission/ask":
			m.mu.Lock()
			m.asks++
			m.mu.Unlock()
			m.write(map[string]any{"jsonrpc": "2.0", "id": msg.id(), "result": m.answer(msg)})
		case msg.method() != "":
			// notifications ($/cancelRequest of a withdrawn ask) need no answer
		default:
			n, _ := msg.id().(float64)
			m.mu.Lock()
			ch := m.waiters[int(n)]
			delete(m.waiters, int(n))
			m.mu.Unlock()
			if ch == nil {
				m.fail("response to an unknown id: %v", msg)
				continue
			}
			ch <- msg
		}
	}
}

// call sends one request and waits for its response; the bound only turns a
// hang into an error.
func (m *mux) call(method string, params any) (msg, error) {
	m.mu.Lock()
	m.nextID++
	id := m.nextID
	ch := make(chan msg, 1)
	m.waiters[id] = ch
	m.mu.Unlock()
	m.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case r := <-ch:
		return r, nil
	case <-m.done:
		return nil, fmt.Errorf("peer output closed while waiting for %d", id)
	case <-time.After(60 * time.Second):
		return nil, fmt.Errorf("no response to %d (%s) within 60s", id, method)
	}
}

// loadCase is one request of the load test and the reply it must get.
type loadCase struct {
	call      map[string]any
	wantReply string
	wantBy    string
}

// loadPlan is session s's requests: fast path, hard floor, and open calls
// that go to the human (mode ask) or to the judge (mode ai).
func loadPlan(s, n int, ai bool) []loadCase {
	var out []loadCase
	for i := range n {
		id := fmt.Sprintf("s%d-c%d", s, i)
		switch i % 5 {
		case 0:
			out = append(out, loadCase{bashCall(id, "git status"), "once", "gate"})
		case 1:
			out = append(out, loadCase{map[string]any{"toolCallId": id, "tool": "read", "kind": "read",
				"rawInput": map[string]any{"path": "README.md"}}, "once", "gate"})
		case 2:
			out = append(out, loadCase{bashCall(id, "rm -rf /"), "reject", "floor"})
		default:
			c := loadCase{call: bashCall(id, fmt.Sprintf("make target-%d-%d", s, i))}
			switch {
			case ai:
				c.wantReply, c.wantBy = "once", "judge" // every scripted verdict is allow/low
			case userApproves(id):
				c.wantReply, c.wantBy = "once", "user"
			default:
				c.wantReply, c.wantBy = "reject", "user"
			}
			out = append(out, c)
		}
	}
	return out
}

// userApproves is the test user's answer, a function of the call so any
// interleaving of asks gets the same answers.
func userApproves(toolCallID string) bool { return strings.HasSuffix(toolCallID, "3") }

// TestLoadMixedSessions runs 32 sessions × 30 decisions concurrently against
// one peer: fast path, floors, escalations answered by the client and judge
// calls against a local scripted model. Every reply is checked, and the audit
// holds exactly one record per decision, in a chain that verifies.
func TestLoadMixedSessions(t *testing.T) {
	const sessions, perSession = 32, 30
	model := newModelServer(t)
	judgeCalls := 0
	for s := 1; s < sessions; s += 2 {
		for _, c := range loadPlan(s, perSession, true) {
			if c.wantBy == "judge" {
				judgeCalls++
			}
		}
	}
	for range judgeCalls {
		model.script(verdict("allow", "low"))
	}
	p := startPeer(t, peerOpts{framing: "ndjson", args: []string{"--judge-endpoint", model.URL + "/v1",
		"--judge-model", "load-model", "--judge-timeout", "20s"}})
	p.initialize(true)
	for s := range sessions {
		mode := "ask"
		if s%2 == 1 {
			mode = "ai"
		}
		if r := p.call("session/open", map[string]any{"sessionId": fmt.Sprintf("load-%d", s), "mode": mode, "agent": "load"}, nil); r.errCode() != 0 {
			t.Fatalf("session/open: %v", r)
		}
	}
	m := newMux(p, func(ask msg) any {
		id, _ := ask.params()["toolCallId"].(string)
		if userApproves(id) {
			return map[string]any{"reply": "once", "feedback": "ok " + id}
		}
		return map[string]any{"reply": "reject"}
	})

	start := time.Now()
	var wg sync.WaitGroup
	wantAsks := 0
	for s := range sessions {
		plan := loadPlan(s, perSession, s%2 == 1)
		for _, c := range plan {
			if c.wantBy == "user" {
				wantAsks++
			}
		}
		wg.Go(func() {
			sid := fmt.Sprintf("load-%d", s)
			for _, c := range plan {
				r, err := m.call("session/requestPermission", permParams(sid, c.call))
				if err != nil {
					m.fail("%s: %v", sid, err)
					return
				}
				k, fb, meta := reply(r)
				if k != c.wantReply || meta["decidedBy"] != c.wantBy || meta["auditId"] == "" {
					m.fail("%s %v: want %s by %s, got %v", sid, c.call["rawInput"], c.wantReply, c.wantBy, r)
				}
				if c.wantBy == "user" && k == "once" && meta["toolResultNote"] != "User approved this tool call with feedback: ok "+c.call["toolCallId"].(string) {
					m.fail("%s: approval note lost: %v (feedback %q)", sid, r, fb)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	m.mu.Lock()
	errs, asks := m.errs, m.asks
	m.mu.Unlock()
	if len(errs) > 0 {
		t.Fatalf("%d of %d decisions wrong, first: %s", len(errs), sessions*perSession, strings.Join(errs[:min(5, len(errs))], "\n"))
	}
	if asks != wantAsks {
		t.Fatalf("the editor was asked %d times, want %d", asks, wantAsks)
	}
	if n := model.calls(); n != judgeCalls {
		t.Fatalf("the judge was called %d times, want %d", n, judgeCalls)
	}
	t.Logf("%d decisions in %v (%d asks, %d judge calls)", sessions*perSession, elapsed, asks, judgeCalls)

	// The audit holds exactly one record per decision, per session.
	total := 0
	for s := range sessions {
		r, err := m.call("permission/audit", map[string]any{"sessionId": fmt.Sprintf("load-%d", s), "limit": 1000})
		if err != nil {
			t.Fatal(err)
		}
		recs, _ := r.result()["records"].([]any)
		if len(recs) != perSession {
			t.Fatalf("session load-%d: %d audit records, want %d", s, len(recs), perSession)
		}
		total += len(recs)
	}
	_ = p.in.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d after EOF", code)
	}
	d, err := store.Open(p.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	n, err := d.VerifyAudit()
	if err != nil {
		t.Fatalf("audit chain after load: %v", err)
	}
	if n != sessions*perSession || total != n {
		t.Fatalf("audit holds %d records (%d by session), want %d", n, total, sessions*perSession)
	}
}
