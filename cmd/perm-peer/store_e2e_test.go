package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/perm-peer/perm-peer/store"
)

// TestCrashKeepsEveryAnsweredRecord streams requests at the real binary,
// SIGKILLs it mid-stream, and checks that every reply the client received
// has its audit record and that the chain verifies. Repeated, bounded.
func TestCrashKeepsEveryAnsweredRecord(t *testing.T) {
	rounds := 12
	if testing.Short() {
		rounds = 3
	}
	db := filepath.Join(t.TempDir(), "crash.db")
	for round := 0; round < rounds; round++ {
		p := startPeer(t, peerOpts{framing: "ndjson", db: db})
		p.initialize(false)
		// Pipeline 300 requests without waiting, then kill after a varying
		// number of replies.
		const n = 300
		first := p.nextID + 1
		for i := 0; i < n; i++ {
			cmd := "git status"
			if i%3 == 0 {
				cmd = "rm -rf /"
			}
			p.request("session/requestPermission", permParams(fmt.Sprintf("crash-%d", round), bashCall(fmt.Sprintf("c%d", i), cmd)))
		}
		killAfter := 20 + round*20
		answered := map[string]bool{}
		for len(answered) < killAfter {
			m := p.next()
			id, _ := m.id().(float64)
			if int(id) < first {
				t.Fatalf("unexpected message %v", m)
			}
			_, _, meta := reply(m)
			auditID, _ := meta["auditId"].(string)
			if auditID == "" {
				t.Fatalf("reply without auditId: %v", m)
			}
			answered[auditID] = true
		}
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-p.exited()

		d, err := store.Open(db, store.Options{})
		if err != nil {
			t.Fatalf("reopen after SIGKILL: %v", err)
		}
		if _, err := d.VerifyAudit(); err != nil {
			t.Fatalf("round %d: chain broken after SIGKILL: %v", round, err)
		}
		recs, _, err := d.Audit(store.AuditQuery{SessionID: fmt.Sprintf("crash-%d", round), Limit: 10 * n})
		if err != nil {
			t.Fatal(err)
		}
		_ = d.Close()
		have := map[string]bool{}
		for _, r := range recs {
			have[r.ID] = true
		}
		for id := range answered {
			if !have[id] {
				t.Fatalf("round %d: reply with auditId %s was sent but its record is missing", round, id)
			}
		}
	}
}

// TestTwoPeersOneDB runs two peer processes on one DB at once, as two editor
// windows on one project would.
func TestTwoPeersOneDB(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "shared.db")
	project := filepath.Join(dir, "project")
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	a := startPeer(t, peerOpts{framing: "ndjson", db: db, project: project})
	b := startPeer(t, peerOpts{framing: "lsp", db: db, project: project})
	a.initialize(false)
	b.initialize(false)
	const n = 100
	for i := 0; i < n; i++ {
		a.request("session/requestPermission", permParams("win-a", bashCall(fmt.Sprint(i), "git status")))
		b.request("session/requestPermission", permParams("win-b", bashCall(fmt.Sprint(i), "git log")))
	}
	for _, p := range []*peerProc{a, b} {
		for i := 0; i < n; i++ {
			if k, _, _ := reply(p.next()); k != "once" {
				t.Fatalf("want once")
			}
		}
	}
	for _, p := range []*peerProc{a, b} {
		_ = p.in.Close()
		if code := p.wait(); code != 0 {
			t.Fatalf("exit code %d", code)
		}
	}
	out, err := exec.Command(binPath, "audit", "verify", "--db", db).CombinedOutput()
	if err != nil {
		t.Fatalf("audit verify: %v\n%s", err, out)
	}
	out, err = exec.Command(binPath, "audit", "--db", db, "--json").Output()
	if err != nil {
		t.Fatalf("audit --json: %v", err)
	}
	sessions := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var r struct {
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		sessions[r.SessionID]++
	}
	if sessions["win-a"] != n || sessions["win-b"] != n {
		t.Fatalf("want %d records per window, got %v", n, sessions)
	}
}
