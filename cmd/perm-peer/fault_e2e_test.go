package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/perm-peer/perm-peer/store"
)

// The fault suite: every fault of issue 7 against the real binary. For each,
// the documented outcome (docs/FAULTS.md), never an allow the fault could
// have caused, no lost record, and the peer still serving — or exiting
// cleanly where its input is gone.

// auditCount is the number of audit records of a session, read through the
// peer.
func auditCount(t *testing.T, p *peerProc, session string) int {
	t.Helper()
	r := p.call("permission/audit", map[string]any{"sessionId": session, "limit": 1000}, nil)
	if r.errCode() != 0 {
		t.Fatalf("permission/audit: %v", r)
	}
	recs, _ := r.result()["records"].([]any)
	return len(recs)
}

// stillServes asserts the fast path still answers once, with an audit id.
func stillServes(t *testing.T, p *peerProc, callID string) {
	t.Helper()
	r := p.call("session/requestPermission", permParams("alive", bashCall(callID, "git status")), nil)
	if k, _, meta := reply(r); k != "once" || meta["decidedBy"] != "gate" || meta["auditId"] == "" {
		t.Fatalf("the peer no longer serves the fast path: %v", r)
	}
}

// TestFaultJudge: a judge that is down, slow or talks garbage never turns
// into an approval: the call escalates (headless here: reject) within the
// judge timeout, the audit records the judge's failure, the peer goes on.
func TestFaultJudge(t *testing.T) {
	cases := []struct {
		name   string
		script []modelReply
		down   bool
	}{
		{name: "endpoint down", down: true},
		{name: "slow beyond the timeout", script: []modelReply{
			{delay: 5 * time.Second, content: `{"decision":"allow","risk_level":"low","reason":"late"}`},
			{delay: 5 * time.Second, content: `{"decision":"allow","risk_level":"low","reason":"late"}`}}},
		{name: "garbage body", script: []modelReply{{content: "<html>502 Bad Gateway</html>"}}},
		{name: "allow buried in prose", script: []modelReply{{content: `I think {"decision":"allow","risk_level":"low","reason":"x"} is right`}}},
		{name: "truncated verdict", script: []modelReply{{content: `{"decision":"allow","risk_le`}}},
		{name: "http 503 twice", script: []modelReply{{status: 503}, {status: 503}}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newModelServer(t)
			m.script(c.script...)
			if c.down {
				m.Close()
			}
			p := startJudged(t, m, false, "standard")
			start := time.Now()
			r := p.call("session/requestPermission", permParams("s1", bashCall(fmt.Sprintf("j%d", i), "make deploy")), nil)
			elapsed := time.Since(start)
			k, fb, meta := reply(r)
			if k != "reject" || meta["decidedBy"] != "headless" || strings.Contains(fb, "user rejected") {
				t.Fatalf("want a headless rejection, got %v", r)
			}
			// 300ms judge timeout, one retry on a transport error: far below 5s.
			if elapsed > 4*time.Second {
				t.Fatalf("the judge fault held the call for %v", elapsed)
			}
			a := p.call("permission/audit", map[string]any{"sessionId": "s1"}, nil)
			recs, _ := a.result()["records"].([]any)
			if len(recs) != 1 {
				t.Fatalf("want 1 audit record, got %v", a)
			}
			rec := recs[0].(map[string]any)
			if rec["decision"] != "reject" || rec["judge"] == nil {
				t.Fatalf("audit record lacks the judge's failure: %v", rec)
			}
			stillServes(t, p, "after-judge")
		})
	}
}

// lockDB takes the store's exclusive lock (the DB's sibling .lock file) from
// this test process, as another perm-peer holding a transaction would.
func lockDB(t *testing.T, db string) (unlock func()) {
	t.Helper()
	f, err := os.OpenFile(db+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	return func() { f.Close() }
}

// TestFaultDBLocked: another process holds the DB past the store's lock
// timeout (5s). At startup that is a clear startup error (exit 3); while
// serving, the call fails with -32603 and is not allowed; once the lock is
// released the peer serves again.
func TestFaultDBLocked(t *testing.T) {
	t.Run("at startup", func(t *testing.T) {
		t.Parallel()
		db := filepath.Join(t.TempDir(), "locked.db")
		unlock := lockDB(t, db)
		defer unlock()
		p := startPeer(t, peerOpts{framing: "ndjson", db: db})
		if code := p.wait(); code != 3 {
			t.Fatalf("want exit code 3 (startup error), got %d", code)
		}
		if s := p.stderr.String(); !strings.Contains(s, "locked by another process") || !strings.Contains(s, db) {
			t.Fatalf("stderr does not say the DB is locked: %q", s)
		}
	})
	t.Run("while serving", func(t *testing.T) {
		t.Parallel()
		p := startPeer(t, peerOpts{framing: "ndjson"})
		p.initialize(false)
		stillServes(t, p, "before")
		unlock := lockDB(t, p.db)
		r := p.call("session/requestPermission", permParams("alive", bashCall("locked", "git status")), nil)
		unlock()
		if r.errCode() != -32603 || r.result() != nil {
			t.Fatalf("want -32603 and no reply while the DB is locked, got %v", r)
		}
		if !strings.Contains(fmt.Sprint(r["error"]), "locked") {
			t.Fatalf("the error does not say why: %v", r)
		}
		stillServes(t, p, "after")
		if n := auditCount(t, p, "alive"); n != 2 {
			t.Fatalf("want 2 audit records (before, after), got %d", n)
		}
	})
}

// makeReadOnly makes the DB file unwritable for the peer: chmod for a normal
// user, the immutable attribute for root (whom file modes do not stop).
func makeReadOnly(t *testing.T, path string) (restore func()) {
	t.Helper()
	if os.Geteuid() != 0 {
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}
		return func() { _ = os.Chmod(path, 0o600) }
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Fatalf("chattr +i %s: %v %s", path, err, out)
	}
	restored := false
	restore = func() {
		if !restored {
			restored = true
			if out, err := exec.Command("chattr", "-i", path).CombinedOutput(); err != nil {
				t.Errorf("chattr -i %s: %v %s", path, err, out)
			}
		}
	}
	t.Cleanup(restore)
	return restore
}

// TestFaultReadOnlyDB: a DB the peer cannot write is a startup error naming
// the file; if it becomes read-only while serving, decisions fail with
// -32603 (no unaudited allow), reads still work, and the peer recovers when
// the file is writable again.
func TestFaultReadOnlyDB(t *testing.T) {
	t.Run("at startup", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "ro.db")
		d, err := store.Open(db, store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d.Close()
		makeReadOnly(t, db)
		p := startPeer(t, peerOpts{framing: "ndjson", db: db})
		if code := p.wait(); code != 3 {
			t.Fatalf("want exit code 3, got %d", code)
		}
		if s := p.stderr.String(); !strings.Contains(s, "not writable") || !strings.Contains(s, db) {
			t.Fatalf("stderr does not say the DB is not writable: %q", s)
		}
	})
	t.Run("while serving", func(t *testing.T) {
		p := startPeer(t, peerOpts{framing: "lsp"})
		p.initialize(false)
		stillServes(t, p, "before")
		restore := makeReadOnly(t, p.db)
		r := p.call("session/requestPermission", permParams("alive", bashCall("ro", "git status")), nil)
		if r.errCode() != -32603 || r.result() != nil {
			t.Fatalf("want -32603 and no reply while the DB is read-only, got %v", r)
		}
		if n := auditCount(t, p, "alive"); n != 1 {
			t.Fatalf("reads must still work and show 1 record, got %d", n)
		}
		restore()
		stillServes(t, p, "after")
		if n := auditCount(t, p, "alive"); n != 2 {
			t.Fatalf("want 2 audit records, got %d", n)
		}
	})
}

// TestFaultDiskFull: the DB file cannot grow (RLIMIT_FSIZE on the peer
// process: writes past it fail with EFBIG, as on a full disk). Every reply
// the client got as "once" has its record; the rest fail with -32603; once
// the limit is lifted the peer serves again; the chain verifies.
func TestFaultDiskFull(t *testing.T) {
	p := startPeer(t, peerOpts{framing: "ndjson"})
	p.initialize(false)
	stillServes(t, p, "before")
	fi, err := os.Stat(p.db)
	if err != nil {
		t.Fatal(err)
	}
	pid := p.cmd.Process.Pid
	// Room for some decisions first, so replies before and after the disk
	// fills are both checked.
	limit := unix.Rlimit{Cur: uint64(fi.Size()) + 128<<10, Max: unix.RLIM_INFINITY}
	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &limit, nil); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	answered := map[string]bool{}
	failed := 0
	for i := 0; i < 2000 && failed < 5; i++ {
		r := p.call("session/requestPermission", permParams("full", bashCall(fmt.Sprint(i), "git status")), nil)
		if r.errCode() != 0 {
			if r.errCode() != -32603 {
				t.Fatalf("want -32603 on a full disk, got %v", r)
			}
			failed++
			continue
		}
		k, _, meta := reply(r)
		id, _ := meta["auditId"].(string)
		if k != "once" || id == "" {
			t.Fatalf("reply without its record: %v", r)
		}
		answered[id] = true
	}
	if failed == 0 || len(answered) == 0 {
		t.Fatalf("want decisions before the limit of %d bytes and failures at it, got %d and %d", limit.Cur, len(answered), failed)
	}
	unlimited := unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, &unlimited, nil); err != nil {
		t.Fatalf("prlimit: %v", err)
	}
	stillServes(t, p, "after")
	_ = p.in.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit code %d after EOF", code)
	}
	d, err := store.Open(p.db, store.Options{})
	if err != nil {
		t.Fatalf("reopen after disk full: %v", err)
	}
	defer d.Close()
	if _, err := d.VerifyAudit(); err != nil {
		t.Fatalf("chain after disk full: %v", err)
	}
	recs, _, err := d.Audit(store.AuditQuery{SessionID: "full", Limit: 5000})
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, r := range recs {
		have[r.ID] = true
	}
	for id := range answered {
		if !have[id] {
			t.Fatalf("reply with auditId %s was sent but its record is missing", id)
		}
	}
	if len(recs) != len(answered) {
		t.Fatalf("the audit holds %d records of the session, the client got %d replies", len(recs), len(answered))
	}
	t.Logf("%d decisions answered, %d failed closed with -32603", len(answered), failed)
}

// TestFaultEditorNeverAnswers: with --ask-timeout, an unanswered
// permission/ask becomes a headless rejection, the ask is withdrawn, the
// attempt is audited.
func TestFaultEditorNeverAnswers(t *testing.T) {
	p := startPeer(t, peerOpts{framing: "ndjson", args: []string{"--ask-timeout", "300ms"}})
	p.initialize(true)
	id := p.request("session/requestPermission", permParams("s1", bashCall("c1", "make deploy")))
	ask := p.next()
	if ask.method() != "permission/ask" {
		t.Fatalf("want permission/ask, got %v", ask)
	}
	var got msg
	withdrawn := false
	for got == nil || !withdrawn {
		m := p.next()
		switch {
		case m.method() == "$/cancelRequest" && m.params()["id"] == ask.id():
			withdrawn = true
		case m.id() == float64(id):
			got = m
		default:
			t.Fatalf("unexpected message: %v", m)
		}
	}
	k, fb, meta := reply(got)
	if k != "reject" || meta["decidedBy"] != "headless" || !strings.Contains(fmt.Sprint(meta["reason"]), "did not answer within 300ms") || strings.Contains(fb, "user rejected") {
		t.Fatalf("unanswered ask: %v", got)
	}
	if n := auditCount(t, p, "s1"); n != 1 {
		t.Fatalf("want the attempt audited once, got %d", n)
	}
	// A late answer to the withdrawn ask is ignored.
	p.send(map[string]any{"jsonrpc": "2.0", "id": ask.id(), "result": map[string]any{"reply": "once"}})
	stillServes(t, p, "after")
	if n := auditCount(t, p, "s1"); n != 1 {
		t.Fatalf("a late answer changed the audit: %d records", n)
	}
}

// TestFaultEditorDisconnects: the editor's end of stdin closes while the peer
// waits on permission/ask. The escalation resolves headless, the reply is
// still written and audited, the peer exits 0.
func TestFaultEditorDisconnects(t *testing.T) {
	for _, fr := range framings {
		t.Run(fr, func(t *testing.T) {
			p := startPeer(t, peerOpts{framing: fr})
			p.initialize(true)
			id := p.request("session/requestPermission", permParams("s1", bashCall("c1", "make deploy")))
			if ask := p.next(); ask.method() != "permission/ask" {
				t.Fatalf("want permission/ask, got %v", ask)
			}
			_ = p.in.Close()
			m := p.next()
			if m.id() != float64(id) {
				t.Fatalf("want the reply to %d, got %v", id, m)
			}
			if k, _, meta := reply(m); k != "reject" || meta["decidedBy"] != "headless" || meta["auditId"] == "" {
				t.Fatalf("disconnect mid-escalation: %v", m)
			}
			if code := p.wait(); code != 0 {
				t.Fatalf("exit code %d", code)
			}
			d, err := store.Open(p.db, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			recs, _, err := d.Audit(store.AuditQuery{SessionID: "s1"})
			if err != nil || len(recs) != 1 || recs[0].Decision != "reject" {
				t.Fatalf("want one reject record, got %v %v", recs, err)
			}
		})
	}
}

// TestFaultStdinClosedMidRequest: the input ends inside a frame, or right
// after a request. In-flight requests are answered and audited, the partial
// frame is dropped (never decided), the peer exits 0.
func TestFaultStdinClosedMidRequest(t *testing.T) {
	full := func(id int, call string) []byte {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session/requestPermission","params":{"sessionId":"s1","turn":1,"toolCall":{"toolCallId":"c%d","tool":"bash","rawInput":{"command":%q}}}}`, id, id, call))
	}
	cases := []struct {
		name, framing string
		tail          func(p *peerProc) // what is written after one full request
		parseErrors   int               // -32700 answers the tail gets
	}{
		{"ndjson: EOF right after a request", "ndjson", func(p *peerProc) {}, 0},
		// A last line without its newline is still a frame: here not JSON.
		{"ndjson: EOF inside a line", "ndjson", func(p *peerProc) { p.sendRaw(full(2, "git log")[:40], false) }, 1},
		// An LSP frame cut short is the end of input, not a frame.
		{"lsp: EOF inside the headers", "lsp", func(p *peerProc) { p.sendRaw([]byte("Content-Length: 12"), false) }, 0},
		{"lsp: EOF inside the body", "lsp", func(p *peerProc) {
			b := full(2, "git log")
			p.sendRaw(append([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(b))), b[:len(b)/2]...), false)
		}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := startPeer(t, peerOpts{framing: c.framing})
			p.initialize(false)
			p.sendRaw(full(1, "git status"), true)
			c.tail(p)
			_ = p.in.Close()
			answered, parseErrors := false, 0
			for range 1 + c.parseErrors {
				m := p.next()
				switch k, _, meta := reply(m); {
				case m.id() == nil && m.errCode() == -32700:
					parseErrors++
				case m.id() == float64(1) && k == "once" && meta["auditId"] != "":
					answered = true
				default:
					t.Fatalf("unexpected message: %v", m)
				}
			}
			if !answered || parseErrors != c.parseErrors {
				t.Fatalf("want the request answered and %d parse errors, got %v and %d", c.parseErrors, answered, parseErrors)
			}
			select {
			case m, ok := <-p.msgs:
				if ok {
					t.Fatalf("unexpected message after the input ended: %v", m)
				}
			case <-p.exited():
			}
			if code := p.wait(); code != 0 {
				t.Fatalf("exit code %d", code)
			}
			d, err := store.Open(p.db, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			recs, _, err := d.Audit(store.AuditQuery{SessionID: "s1"})
			if err != nil || len(recs) != 1 {
				t.Fatalf("want exactly the answered request audited, got %d records (%v)", len(recs), err)
			}
		})
	}
}

// badFrame is one kind of malformed input and the error responses it must
// get (in order), each as code and id (nil: JSON null).
type badFrame struct {
	name string
	raw  string // written as is, framing included
	want []wantErr
}

type wantErr struct {
	code int
	id   any
}

func parseErr() wantErr         { return wantErr{-32700, nil} }
func invalidReq(id any) wantErr { return wantErr{-32600, id} }

// decisionJSON is a fast-path decision that would be allowed if it were
// accepted: a malformed frame carrying it must never produce that allow.
func decisionJSON(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"session/requestPermission","params":{"sessionId":"mal","turn":1,"toolCall":{"toolCallId":"m","tool":"bash","rawInput":{"command":"git status"}}}}`
}

func lspFrame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

func ndjsonBadFrames() []badFrame {
	ok := decisionJSON("9")
	return []badFrame{
		{"truncated JSON", ok[:60] + "\n", []wantErr{parseErr()}},
		{"invalid UTF-8 in a string", strings.Replace(ok, `"mal"`, "\"m\xffl\"", 1) + "\n", []wantErr{parseErr()}},
		{"NUL bytes", "\x00\x00\x00\n", []wantErr{parseErr()}},
		{"two objects on one line", ok + ok + "\n", []wantErr{parseErr()}},
		{"trailing garbage", ok + " xyz\n", []wantErr{parseErr()}},
		{"deeply nested params", `{"jsonrpc":"2.0","id":9,"method":"session/requestPermission","params":{"x":` +
			strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "}}\n", []wantErr{parseErr()}},
		{"batch of one request", "[" + ok + "]\n", []wantErr{invalidReq(nil)}},
		{"empty batch", "[]\n", []wantErr{invalidReq(nil)}},
		{"null id", decisionJSON("null") + "\n", []wantErr{invalidReq(nil)}},
		{"negative id", decisionJSON("-1") + "\n", []wantErr{invalidReq(nil)}},
		{"fractional id", decisionJSON("1.5") + "\n", []wantErr{invalidReq(nil)}},
		{"exponent id", decisionJSON("1e3") + "\n", []wantErr{invalidReq(nil)}},
		{"object id", decisionJSON("{}") + "\n", []wantErr{invalidReq(nil)}},
		{"id beyond uint64", decisionJSON("18446744073709551616") + "\n", []wantErr{invalidReq(nil)}},
		{"no jsonrpc member", strings.Replace(ok, `"jsonrpc":"2.0",`, "", 1) + "\n", []wantErr{invalidReq(float64(9))}},
		{"jsonrpc 1.0", strings.Replace(ok, `"2.0"`, `"1.0"`, 1) + "\n", []wantErr{invalidReq(float64(9))}},
		{"method not a string", `{"jsonrpc":"2.0","id":9,"method":5}` + "\n", []wantErr{invalidReq(float64(9))}},
		{"params a string", `{"jsonrpc":"2.0","id":9,"method":"session/requestPermission","params":"git status"}` + "\n", []wantErr{invalidReq(float64(9))}},
		{"request and response at once", strings.Replace(ok, `"method"`, `"result":{},"method"`, 1) + "\n", []wantErr{invalidReq(float64(9))}},
		{"a number, not an object", "42\n", []wantErr{invalidReq(nil)}},
		{"params an array", `{"jsonrpc":"2.0","id":9,"method":"session/requestPermission","params":[]}` + "\n", []wantErr{{-32602, float64(9)}}},
		{"response to an unknown id", `{"jsonrpc":"2.0","id":777,"result":{"reply":"once"}}` + "\n", nil},
		{"blank lines", "\n \t\r\n\n", nil},
		{"oversize line", `{"jsonrpc":"2.0","id":9,"method":"session/requestPermission","params":{"pad":"` +
			strings.Repeat("a", 4<<20) + `"}}` + "\n", []wantErr{invalidReq(nil)}},
	}
}

func lspBadFrames() []badFrame {
	ok := decisionJSON("9")
	return []badFrame{
		// The first 20 bytes are the body (not JSON); the rest of the line is
		// not a header.
		{"Content-Length too short", fmt.Sprintf("Content-Length: 20\r\n\r\n%s\r\n", ok), []wantErr{parseErr(), parseErr()}},
		// The body runs 10 bytes into the padding: the request is not JSON.
		{"Content-Length too long", fmt.Sprintf("Content-Length: %d\r\n\r\n%sxxxxxxxxxx", len(ok)+10, ok), []wantErr{parseErr()}},
		{"no Content-Length header", "Content-Type: application/json\r\n\r\n" + ok + "\r\n", []wantErr{parseErr(), parseErr()}},
		{"non-numeric Content-Length", "Content-Length: abc\r\n\r\n" + ok + "\r\n", []wantErr{parseErr()}},
		{"negative Content-Length", "Content-Length: -5\r\n\r\n" + ok + "\r\n", []wantErr{parseErr()}},
		{"truncated header line", "Content-Len\r\n\r\n" + ok + "\r\n", []wantErr{parseErr()}},
		{"invalid UTF-8 body", lspFrame(strings.Replace(ok, `"mal"`, "\"m\xffl\"", 1)), []wantErr{parseErr()}},
		{"batch", lspFrame("[" + ok + "]"), []wantErr{invalidReq(nil)}},
		{"fractional id", lspFrame(decisionJSON("2.5")), []wantErr{invalidReq(nil)}},
		{"oversize body", lspFrame(`{"pad":"` + strings.Repeat("b", 4<<20) + `"}`), []wantErr{invalidReq(nil)}},
	}
}

// TestFaultMalformedFrames sends each kind of bad input, then a fast-path
// sentinel: the bad input gets exactly its documented error responses (never
// a result), the sentinel is answered, and no malformed decision reached the
// audit.
func TestFaultMalformedFrames(t *testing.T) {
	for _, set := range []struct {
		framing string
		frames  []badFrame
	}{{"ndjson", ndjsonBadFrames()}, {"lsp", lspBadFrames()}} {
		t.Run(set.framing, func(t *testing.T) {
			p := startPeer(t, peerOpts{framing: set.framing})
			p.initialize(false)
			for i, f := range set.frames {
				t.Run(f.name, func(t *testing.T) {
					p.sendRaw([]byte(f.raw), false)
					id := p.request("session/requestPermission", permParams("alive", bashCall(fmt.Sprintf("sentinel-%d", i), "git status")))
					var got []wantErr
					for {
						m := p.next()
						if n, ok := m.id().(float64); ok && int(n) == id {
							if k, _, _ := reply(m); k != "once" {
								t.Fatalf("sentinel after %s: %v", f.name, m)
							}
							break
						}
						if m.errCode() == 0 {
							t.Fatalf("%s got a non-error message: %v", f.name, m)
						}
						got = append(got, wantErr{m.errCode(), m.id()})
					}
					// a bad request handed to a worker may be answered after
					// the sentinel (replies are not ordered): wait for the
					// errors still due, so none is counted against the next case
					for len(got) < len(f.want) {
						m := p.next()
						if m.errCode() == 0 {
							t.Fatalf("%s got a non-error message: %v", f.name, m)
						}
						got = append(got, wantErr{m.errCode(), m.id()})
					}
					if fmt.Sprint(got) != fmt.Sprint(f.want) {
						t.Fatalf("%s: want errors %v, got %v", f.name, f.want, got)
					}
				})
			}
			if n := auditCount(t, p, "mal"); n != 0 {
				t.Fatalf("%d malformed decisions reached the audit", n)
			}
			if n := auditCount(t, p, "alive"); n != len(set.frames) {
				t.Fatalf("want %d sentinel records, got %d", len(set.frames), n)
			}
		})
	}
}

// TestFaultEditorClosesStdout: the editor closes its end of the peer's
// stdout (it crashed, or quit without closing stdin) while a decision is in
// flight. The reply cannot be delivered; what matters is that its record is
// durable and the chain intact. (Today the peer then dies of SIGPIPE, exit
// status 141, rather than draining and exiting 0: see docs/FAULTS.md.)
func TestFaultEditorClosesStdout(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "audit.db")
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := serveCommand(dir, project, db)
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
	defer in.Close()
	fmt.Fprintf(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"project":{"root":%q}}}`+"\n", project)
	buf := make([]byte, 1)
	if _, err := out.Read(buf); err != nil { // the initialize reply has started: the peer is up
		t.Fatalf("no initialize reply: %v", err)
	}
	out.Close()
	fmt.Fprint(in, `{"jsonrpc":"2.0","id":2,"method":"session/requestPermission","params":{"sessionId":"gone","turn":1,"toolCall":{"tool":"bash","rawInput":{"command":"git status"}}}}`+"\n")
	in.Close() // the editor is gone entirely: the peer must drain and stop
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the peer did not exit after the editor closed both pipes")
	}
	if werr != nil {
		t.Fatalf("want exit 0 after the editor vanished, got %v", werr)
	}
	d, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, err := d.VerifyAudit(); err != nil {
		t.Fatalf("chain after the editor vanished: %v", err)
	}
	recs, _, err := d.Audit(store.AuditQuery{SessionID: "gone"})
	if err != nil || len(recs) != 1 || recs[0].Decision != "once" {
		t.Fatalf("want the undeliverable decision audited once, got %d records (%v)", len(recs), err)
	}
}
