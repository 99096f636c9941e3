package peer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
	"github.com/sourcegraph/jsonrpc2"
)

func TestCancelFlows(t *testing.T) {
	h := newHarness(t, "", "")
	h.init(true, nil)
	// 1. $/cancelRequest during the ask
	h.call(7, "session/requestPermission", map[string]any{"sessionId": "s", "toolCall": bash("make build")})
	ask := h.ask()
	h.notify("$/cancelRequest", map[string]any{"id": 7})
	m := h.wait(7)
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(protocol.CodeCancelled) {
		t.Fatalf("cancel during the ask: want -32800, got %v", m)
	}
	select {
	case n := <-h.notifs:
		t.Logf("withdrawal: %v %v", n["method"], n["params"])
	case <-time.After(2 * time.Second):
		t.Errorf("no withdrawal notification for %v", ask["id"])
	}
	// a late "always" for the withdrawn ask must not grant
	h.answer(ask, map[string]any{"reply": "always"})
	h.call("l", "grants/list", map[string]any{})
	if g := h.wait("l")["result"].(map[string]any)["grants"].([]any); len(g) != 0 {
		t.Fatalf("late answer granted: %v", g)
	}
	// 2. session/close during the ask
	h.call(8, "session/requestPermission", map[string]any{"sessionId": "s", "toolCall": bash("make build")})
	h.ask()
	h.notify("session/close", map[string]any{"sessionId": "s"})
	m = h.wait(8)
	t.Logf("close: %v", m["result"])
	if replyOf(m) != "reject" {
		t.Fatalf("session/close during ask: %v", m)
	}
	<-h.notifs
	// 3. EOF during the ask: headless reject written before Serve returns
	h.call(9, "session/requestPermission", map[string]any{"sessionId": "s2", "toolCall": bash("make build")})
	h.ask()
	code := h.close()
	m = h.wait(9)
	t.Logf("eof: code %d reply %v", code, m["result"])
	if replyOf(m) != "reject" || code != 0 {
		t.Fatalf("eof: %d %v", code, m)
	}
}

// A $/cancelRequest that arrives after the decision is recorded and before
// the reply is written does not turn the reply into -32800: the requester
// gets what the audit record says (here the user's "once"), so the editor
// never sees a cancellation the log contradicts.
func TestLateCancelRepliesTheRecordedDecision(t *testing.T) {
	h := newHarness(t, "", "")
	applied := make(chan bool, 1)
	h.srv.afterRecord = func(ctx context.Context) {
		h.notify("$/cancelRequest", map[string]any{"id": 7})
		select {
		case <-ctx.Done(): // the read loop took the cancel
			applied <- true
		case <-time.After(10 * time.Second):
			applied <- false
		}
	}
	h.init(true, nil)
	h.call(7, "session/requestPermission", map[string]any{"sessionId": "s", "toolCall": bash("make build")})
	h.answer(h.ask(), map[string]any{"reply": "once"})
	m := h.wait(7)
	if !<-applied {
		t.Fatal("the late $/cancelRequest never reached the request")
	}
	if m["error"] != nil || replyOf(m) != "once" {
		t.Fatalf("late cancel: want the recorded once, got %v", m)
	}
	id := m["result"].(map[string]any)["_meta"].(map[string]any)["auditId"]
	h.call("a", "permission/audit", map[string]any{"sessionId": "s"})
	recs := h.wait("a")["result"].(map[string]any)["records"].([]any)
	last := recs[len(recs)-1].(map[string]any)
	if fmt.Sprint(last["id"]) != fmt.Sprint(id) || last["decision"] != "once" || last["decidedBy"] != "user" {
		t.Fatalf("reply's audit id %v, last record %v", id, last)
	}
}

// A second request reusing the id of one still in flight is refused with
// -32600; the first keeps its id, its ask and its cancellation.
func TestDuplicateInFlightIDRefused(t *testing.T) {
	h := newHarness(t, "", "")
	h.init(true, nil)
	h.call(5, "session/requestPermission", map[string]any{"sessionId": "s", "toolCall": bash("make a")})
	a1 := h.ask()
	h.call(5, "session/requestPermission", map[string]any{"sessionId": "s", "toolCall": bash("make b")})
	dup := h.wait(5)
	if e, _ := dup["error"].(map[string]any); e == nil || e["code"] != float64(-32600) {
		t.Fatalf("duplicate id: want -32600, got %v", dup)
	}
	h.notify("$/cancelRequest", map[string]any{"id": 5})
	m := h.wait(5)
	if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(-32800) {
		t.Fatalf("the first request 5 was not cancelled: %v", m)
	}
	_ = a1
}

// After `exit` (or SIGTERM) Serve drains (inflight.Wait) while the read loop
// keeps dispatching requests (inflight.Add): WaitGroup Add-concurrent-with-Wait,
// and requests are started against a DB that Serve then closes.
func TestNoRequestsServedAfterExit(t *testing.T) {
	for round := 0; round < 20; round++ {
		h := newHarness(t, "", "")
		h.init(false, nil)
		h.notify("exit", nil)
		for i := 0; i < 50; i++ {
			h.call(fmt.Sprint("r", i), "session/requestPermission", map[string]any{"sessionId": "s1", "toolCall": bash("ls")})
		}
		// Serve must stop (exit without shutdown → 1) without racing the
		// requests still arriving; the race detector checks the latter.
		if code := <-h.done; code != 1 {
			t.Fatalf("round %d: exit without shutdown returned %d, want 1", round, code)
		}
		h.in.Close()
	}
}

// SIGTERM: finish what is in flight, then stop; the in-flight request's
// (headless) reply is written.
func TestSigtermRepliesInFlight(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	srv := New(Config{Project: proj, DBPath: filepath.Join(t.TempDir(), "a.db"), UserPolicyFile: filepath.Join(home, "none.json"), Home: home, Framing: FramingNDJSON})
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, term := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- srv.Serve(ctx, inR, outW); outW.Close() }()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	w := func(s string) { _, _ = io.WriteString(inW, s+"\n") }
	w(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"capabilities":{"prompt":true}}}`)
	<-lines
	w(`{"jsonrpc":"2.0","id":2,"method":"session/requestPermission","params":{"sessionId":"s","toolCall":{"tool":"bash","rawInput":{"command":"make build"}}}}`)
	if l := <-lines; !strings.Contains(l, "permission/ask") {
		t.Fatalf("want ask, got %s", l)
	}
	term() // SIGTERM
	<-done
	got := false
	for l := range lines {
		t.Logf("after SIGTERM: %s", l)
		if strings.Contains(l, `"id":2`) {
			got = true
		}
	}
	if !got {
		t.Fatal("the in-flight request got no reply on SIGTERM")
	}
}

// A withdrawn or timed-out permission/ask is released at once, with its
// AskParams (a jsonrpc2 Call would stay in the connection's pending map).
func TestWithdrawnAsksAreReleased(t *testing.T) {
	proj, home := t.TempDir(), t.TempDir()
	srv := New(Config{Project: proj, DBPath: filepath.Join(t.TempDir(), "a.db"), UserPolicyFile: filepath.Join(home, "none.json"), Home: home, Framing: FramingNDJSON, AskTimeout: 5 * time.Millisecond})
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go srv.Serve(context.Background(), inR, outW)
	replies := make(chan struct{}, 1000)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			var m map[string]any
			json.Unmarshal(sc.Bytes(), &m)
			if m["method"] == nil {
				replies <- struct{}{}
			}
		}
	}()
	w := func(s string) { _, _ = io.WriteString(inW, s+"\n") }
	w(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":1,"capabilities":{"prompt":true}}}`)
	<-replies
	big := strings.Repeat("a", 256<<10)
	const n = 40
	for i := 0; i < n; i++ {
		w(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/requestPermission","params":{"sessionId":"s","toolCall":{"tool":"bash","rawInput":{"command":"make build # %s"}}}}`, i, big))
	}
	for i := 0; i < n; i++ {
		<-replies
	}
	if n := srv.asks.pending(); n != 0 {
		t.Fatalf("%d abandoned permission/ask calls (each holding a ~256 KiB tool call) are never released", n)
	}
	srv.asks.mu.Lock()
	held := srv.asks.bytes
	srv.asks.mu.Unlock()
	if held != 0 {
		t.Fatalf("the ask table still counts %d bytes", held)
	}
	inW.Close()
}

// ACP session/cancel only withdraws escalations already registered. A
// request that is still in the judge when the cancel arrives is answered
// with a real "selected" allow option (acp.go:29 requires DecidedBy headless
// to report "cancelled").
func TestACPCancelDuringJudgeIsCancelled(t *testing.T) {
	called, release := make(chan struct{}), make(chan struct{})
	js := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		close(called)
		select { // answer "allow" only once the cancel is in (or the peer gave up)
		case <-release:
		case <-r.Context().Done():
		}
		fmt.Fprint(w, `{"choices":[{"message":{"role":"assistant","content":"{\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"ok\"}"}}]}`)
	}))
	defer js.Close()
	defer close(release)
	home := t.TempDir()
	pol := filepath.Join(home, "policy.json")
	os.WriteFile(pol, []byte(fmt.Sprintf(`{"mode":"ai","judge":{"endpoint":%q,"model":"m"}}`, js.URL)), 0o600)
	h := newHarnessPolicy(t, pol)
	opts := []map[string]any{{"optionId": "y", "name": "Allow", "kind": "allow_once"}, {"optionId": "n", "name": "Reject", "kind": "reject_once"}}
	h.call(1, "session/request_permission", map[string]any{"sessionId": "a1", "toolCall": map[string]any{"toolCallId": "t1", "kind": "execute", "rawInput": map[string]any{"command": "make build"}}, "options": opts})
	select {
	case <-called:
	case <-time.After(10 * time.Second):
		t.Fatal("the judge was never asked")
	}
	h.notify("session/cancel", map[string]any{"sessionId": "a1"})
	m := h.wait(1)
	out := m["result"].(map[string]any)["outcome"].(map[string]any)
	if out["outcome"] != "cancelled" {
		t.Fatalf("session/cancel arrived before the decision, but the peer selected %v", out)
	}
	if rec := lastRecord(t, h, "a1"); rec.Decision != protocol.ReplyReject || rec.DecidedBy != protocol.ByHeadless {
		t.Fatalf("the answer was cancelled but the record says %v by %v", rec.Decision, rec.DecidedBy)
	}
	h.close()
}

// The user answers "always", then the session is cancelled before the
// decision is recorded: the answer is ACP's "cancelled", the record a
// headless reject, and no grant is made for a call the agent never ran.
func TestACPCancelAfterAnswerBeforeRecord(t *testing.T) {
	h := newHarness(t, "", "")
	h.init(true, nil)
	synced := make(chan bool, 1)
	h.srv.beforeRecord = func(context.Context) {
		h.notify("session/cancel", map[string]any{"sessionId": "a2"})
		h.call("sync", "grants/list", map[string]any{}) // read after the cancel, so answered after it took effect
		select {
		case <-h.ch("sync"):
			synced <- true
		case <-time.After(10 * time.Second):
			synced <- false
		}
	}
	opts := []map[string]any{{"optionId": "y", "name": "Allow", "kind": "allow_once"}, {"optionId": "a", "name": "Always", "kind": "allow_always"}}
	h.call(1, "session/request_permission", map[string]any{"sessionId": "a2", "toolCall": map[string]any{"toolCallId": "t1", "kind": "execute", "rawInput": map[string]any{"command": "make build"}}, "options": opts})
	h.answer(h.ask(), map[string]any{"reply": "always"})
	m := h.wait(1)
	if !<-synced {
		t.Fatal("the session/cancel was never taken")
	}
	if out := m["result"].(map[string]any)["outcome"].(map[string]any); out["outcome"] != "cancelled" {
		t.Fatalf("cancelled before the record, but the peer selected %v", out)
	}
	if rec := lastRecord(t, h, "a2"); rec.Decision != protocol.ReplyReject || rec.DecidedBy != protocol.ByHeadless {
		t.Fatalf("the answer was cancelled but the record says %v by %v", rec.Decision, rec.DecidedBy)
	}
	h.call("g", "grants/list", map[string]any{})
	if g := h.wait("g")["result"].(map[string]any)["grants"].([]any); len(g) != 0 {
		t.Fatalf("a cancelled call made a grant: %v", g)
	}
	h.close()
}

// A session/cancel handled before the session of an earlier request is
// loaded (the request waited for a worker) still withdraws that request.
func TestSessionCancelBeforeSessionLoaded(t *testing.T) {
	h := newHarness(t, "", "")
	h.init(true, nil)
	// frame 10: a request; frame 11: the cancel, taken before the request's
	// worker loads the session
	defer inFlight(h)()
	notif := &jsonrpc2.Request{Method: "session/cancel", Notif: true}
	if err := notif.SetParams(map[string]any{"sessionId": "late"}); err != nil {
		t.Fatal(err)
	}
	h.srv.handleNotification(notif, 11)
	sess, err := h.srv.session("late")
	if err != nil {
		t.Fatal(err)
	}
	cancelled := false
	sess.trackACP(10, func() { cancelled = true })()
	if !cancelled {
		t.Fatal("a request that arrived before the session/cancel was not withdrawn")
	}
	cancelled = false
	sess.trackACP(12, func() { cancelled = true })()
	if cancelled {
		t.Fatal("a request that arrived after the session/cancel was withdrawn")
	}
	h.close()
}

// lastRecord is the newest audit record of a session, read from the
// server's own bbolt file (an ACP session has no initialize, so no
// permission/audit).
func lastRecord(t *testing.T, h *harness, sessionID string) protocol.AuditRecord {
	t.Helper()
	w, err := h.srv.world()
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := w.db.Audit(store.AuditQuery{SessionID: sessionID, Limit: 1000})
	if err != nil || len(recs) == 0 {
		t.Fatalf("audit of session %s: %d records, %v", sessionID, len(recs), err)
	}
	return recs[len(recs)-1]
}

// session/open on a live session rewrites ss.info under ss.mu while the
// pipeline reads sess.info.ID / ParentID (record, escalate, judged) without it.
func TestSessionOpenDuringRequest(t *testing.T) {
	h := newHarness(t, "", "")
	h.init(false, nil)
	h.call("o0", "session/open", map[string]any{"sessionId": "s1"})
	h.wait("o0")
	for i := 0; i < 200; i++ {
		h.call(fmt.Sprint("r", i), "session/requestPermission", map[string]any{"sessionId": "s1", "toolCall": bash("ls")})
		h.call(fmt.Sprint("o", i+1), "session/open", map[string]any{"sessionId": "s1", "agent": fmt.Sprint("a", i)})
	}
	for i := 0; i < 200; i++ {
		h.wait(fmt.Sprint("r", i))
		h.wait(fmt.Sprint("o", i+1))
	}
	h.close()
}

// A session/close handled while a request waits for a worker, then a
// session/open that reopens the same id before that request loads its
// session: the reopened session still withdraws the request, which arrived
// before the close (session/open must not forget Server.withdrawals).
func TestSessionReopenKeepsEarlierWithdrawal(t *testing.T) {
	h := newHarness(t, "", "")
	h.init(true, nil)
	h.call("o1", "session/open", map[string]any{"sessionId": "re"})
	h.wait("o1")
	defer inFlight(h)()
	request := h.srv.frames.Add(1) // a request queued for a worker
	closeNotif := &jsonrpc2.Request{Method: "session/close", Notif: true}
	if err := closeNotif.SetParams(map[string]any{"sessionId": "re"}); err != nil {
		t.Fatal(err)
	}
	h.srv.handleNotification(closeNotif, h.srv.frames.Add(1))
	h.call("o2", "session/open", map[string]any{"sessionId": "re"})
	h.wait("o2")
	sess, err := h.srv.session("re")
	if err != nil {
		t.Fatal(err)
	}
	cancelled := false
	sess.trackACP(request, func() { cancelled = true })()
	if !cancelled {
		t.Fatal("a request that arrived before session/close was not withdrawn by the reopened session")
	}
	sess.mu.Lock()
	withdrawn := sess.withdrawnAt > request
	sess.mu.Unlock()
	if !withdrawn {
		t.Fatal("the reopened session would ask the user for a withdrawn request")
	}
	h.close()
}

// inFlight registers a stand-in for a request in flight (a worker has not
// run it yet), as Handle does, until the returned func is called.
func inFlight(h *harness) (done func()) {
	id := jsonrpc2.ID{Str: "in-flight stand-in", IsString: true}
	h.srv.mu.Lock()
	h.srv.pending[id] = func() {}
	h.srv.mu.Unlock()
	return func() {
		h.srv.mu.Lock()
		delete(h.srv.pending, id)
		h.srv.mu.Unlock()
	}
}

// Server.withdrawals is kept only while requests are in flight: session ids
// cancelled or closed with none in flight are not remembered for ever.
func TestWithdrawalsNotKeptWhenIdle(t *testing.T) {
	h := newHarness(t, "", "")
	h.init(true, nil)
	withdraw := func(method, id string) {
		n := &jsonrpc2.Request{Method: method, Notif: true}
		if err := n.SetParams(map[string]any{"sessionId": id}); err != nil {
			t.Fatal(err)
		}
		h.srv.handleNotification(n, h.srv.frames.Add(1))
	}
	kept := func() int {
		h.srv.mu.Lock()
		defer h.srv.mu.Unlock()
		return len(h.srv.withdrawals)
	}
	for i := range 100 {
		withdraw("session/cancel", fmt.Sprint("c", i))
		withdraw("session/close", fmt.Sprint("x", i))
	}
	if n := kept(); n != 0 {
		t.Fatalf("with no request in flight, %d withdrawals were kept", n)
	}
	done := inFlight(h)
	withdraw("session/cancel", "busy")
	if n := kept(); n != 1 {
		t.Fatalf("with a request in flight, want its session's withdrawal kept, got %d", n)
	}
	done()
	withdraw("session/cancel", "idle")
	if n := kept(); n != 0 {
		t.Fatalf("once nothing is in flight, want the withdrawals dropped, got %d", n)
	}
	h.close()
}
