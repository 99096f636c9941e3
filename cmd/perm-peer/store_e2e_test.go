package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// runStoreCLI runs the built binary and returns its exit code, stdout and stderr.
func runStoreCLI(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, out.String(), errb.String()
}

// seedCLIStore writes four records and two grants (each with the user's
// "always" record it came from) with the store itself.
func seedCLIStore(t *testing.T, path string) {
	t.Helper()
	db, err := store.Open(path, store.Options{})
	require.NoError(t, err)
	defer db.Close()
	recs := []protocol.AuditRecord{
		{SessionID: "s1", Turn: 1, Action: "bash: ls", Decision: protocol.ReplyOnce, DecidedBy: protocol.ByGate,
			Source: protocol.SourceAuto, Reply: protocol.PermissionReply{Reply: protocol.ReplyOnce}, Risk: protocol.RiskLow},
		{SessionID: "s2", Turn: 2, Action: "bash: make lint", Decision: protocol.ReplyOnce, DecidedBy: protocol.ByUser,
			Source: protocol.SourceUser, Reply: protocol.PermissionReply{Reply: protocol.ReplyOnce, Feedback: "lint is fine"}, Risk: protocol.RiskMedium},
		{SessionID: "s1", Turn: 3, Action: "bash: go test ./...", Decision: protocol.ReplyAlways, DecidedBy: protocol.ByUser,
			Source: protocol.SourceUser, Reply: protocol.PermissionReply{Reply: protocol.ReplyAlways}, Grant: "Bash(go test *)"},
		{SessionID: "s2", Turn: 3, Action: "read: src/main.go", Decision: protocol.ReplyAlways, DecidedBy: protocol.ByUser,
			Source: protocol.SourceUser, Reply: protocol.PermissionReply{Reply: protocol.ReplyAlways}, Grant: "Read(src/**)"},
	}
	for _, r := range recs {
		_, err := db.AppendAudit(context.Background(), r)
		require.NoError(t, err)
	}
	_, err = db.AddGrant(protocol.Grant{Pattern: "Bash(go test *)", Covers: "bash: go test *  (this project)", SessionID: "s1", AuditID: "3"})
	require.NoError(t, err)
	_, err = db.AddGrant(protocol.Grant{Pattern: "Read(src/**)", SessionID: "s2", AuditID: "4"})
	require.NoError(t, err)
}

func TestAuditAndGrantsCLI(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "p.db")
	seedCLIStore(t, db)
	missing := filepath.Join(dir, "none.db")

	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  []string // substrings of stdout, in order of lines when wantLines is set
		wantErr  string   // substring of stderr
		lines    int      // number of stdout lines, -1 = do not check
	}{
		{"list", []string{"audit", "--db", db}, 0,
			[]string{"1 ", "s1/1  once   by gate (auto)  low      bash: ls", "s2/2  once   by user (user)  medium   bash: make lint  note=\"lint is fine\"", `always by user (user)  -        bash: go test ./...  grant="Bash(go test *)"`}, "", 4},
		{"list session", []string{"audit", "--session", "s2", "--db", db}, 0, []string{"2 ", "4 "}, "", 2},
		{"list unknown session", []string{"audit", "--db", db, "--session", "zz"}, 0, nil, "", 0},
		{"verify", []string{"audit", "verify", "--db", db}, 0, []string{"4 records, chain ok"}, "", 1},
		{"grants list", []string{"grants", "list", "--db", db}, 0, []string{`1    Bash(go test *)`, `covers "bash: go test *  (this project)"`, "in session s1 (audit 3)", "2    Read(src/**)"}, "", 2},
		{"grants bare", []string{"grants", "--db", db}, 0, []string{"Bash(go test *)"}, "", 2},
		{"missing db lists nothing", []string{"audit", "--db", missing}, 0, nil, "no audit db at " + missing, 0},
		{"missing db grants", []string{"grants", "list", "--db", missing}, 0, nil, "no audit db at", 0},
		{"missing db verify", []string{"audit", "verify", "--db", missing}, 3, nil, "no audit db at", 0},
		{"unknown audit subcommand", []string{"audit", "bogus", "--db", db}, 2, nil, `unknown subcommand "bogus"`, 0},
		{"verify takes no --json", []string{"audit", "verify", "--json", "--db", db}, 2, nil, "usage:", 0},
		{"extra argument", []string{"audit", "--db", db, "extra"}, 2, nil, "usage:", 0},
		{"bad flag", []string{"audit", "--nope"}, 2, nil, "flag provided but not defined", 0},
		{"revoke without id", []string{"grants", "revoke", "--db", db}, 2, nil, "usage:", 0},
		{"revoke unknown", []string{"grants", "revoke", "42", "--db", db}, 1, nil, `no grant with id "42"`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runStoreCLI(t, nil, tc.args...)
			assert.Equal(t, tc.wantCode, code, "stderr: %s", errOut)
			for _, w := range tc.wantOut {
				assert.Contains(t, out, w)
			}
			if tc.wantErr != "" {
				assert.Contains(t, errOut, tc.wantErr)
			}
			if tc.lines >= 0 {
				assert.Equal(t, tc.lines, strings.Count(out, "\n"), "stdout: %q", out)
			}
		})
	}

	t.Run("json", func(t *testing.T) {
		code, out, _ := runStoreCLI(t, nil, "audit", "--json", "--db", db)
		require.Equal(t, 0, code)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.Len(t, lines, 4)
		for i, l := range lines {
			var r protocol.AuditRecord
			require.NoError(t, json.Unmarshal([]byte(l), &r))
			assert.Equal(t, fmt.Sprint(i+1), r.ID)
			assert.Len(t, r.Hash, 64)
		}
		code, out, _ = runStoreCLI(t, nil, "grants", "list", "--json", "--db", db)
		require.Equal(t, 0, code)
		var g protocol.Grant
		require.NoError(t, json.Unmarshal([]byte(strings.Split(out, "\n")[0]), &g))
		assert.Equal(t, "Bash(go test *)", g.Pattern)
	})

	t.Run("default path from --project", func(t *testing.T) {
		state := filepath.Join(dir, "state")
		proj := filepath.Join(dir, "proj")
		require.NoError(t, os.MkdirAll(proj, 0o700))
		t.Setenv("XDG_STATE_HOME", state)
		def, err := store.DefaultPath(proj)
		require.NoError(t, err)
		seedCLIStore(t, def)
		code, out, errOut := runStoreCLI(t, []string{"XDG_STATE_HOME=" + state}, "audit", "verify", "--project", proj)
		assert.Equal(t, 0, code, errOut)
		assert.Equal(t, "4 records, chain ok\n", out)
	})

	t.Run("revoke then compact then tamper", func(t *testing.T) {
		code, out, errOut := runStoreCLI(t, nil, "grants", "revoke", "1", "--db", db)
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, "revoked grant 1 Bash(go test *)\n", out)
		code, out, _ = runStoreCLI(t, nil, "grants", "--db", db)
		require.Equal(t, 0, code)
		assert.NotContains(t, out, "Bash(go test *)")

		code, out, errOut = runStoreCLI(t, nil, "audit", "compact", "--db", db)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, out, "compacted "+db)

		b, err := bolt.Open(db, 0o600, &bolt.Options{Timeout: 5 * time.Second})
		require.NoError(t, err)
		require.NoError(t, b.Update(func(tx *bolt.Tx) error {
			a := tx.Bucket([]byte("audit"))
			k := []byte{0, 0, 0, 0, 0, 0, 0, 2}
			return a.Put(k, bytes.Replace(a.Get(k), []byte("lint is fine"), []byte("all is fine"), 1))
		}))
		require.NoError(t, b.Close())
		code, out, errOut = runStoreCLI(t, nil, "audit", "verify", "--db", db)
		assert.Equal(t, 1, code)
		assert.Empty(t, out)
		assert.Contains(t, errOut, "audit record 2: hash does not match its content (record edited)")
	})
}

// streamReads pipelines n fast-path read requests to a peer from a goroutine
// (so a full pipe never deadlocks the test) and ignores write errors, which
// are expected once the peer is killed.
func streamReads(p *peerProc, session string, n int) {
	var buf bytes.Buffer
	for i := range n {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1000 + i, "method": "session/requestPermission",
			"params": permParams(session, map[string]any{"toolCallId": fmt.Sprintf("r%d", i), "tool": "read", "kind": "read",
				"rawInput": map[string]any{"path": "README.md"}})})
		buf.Write(b)
		buf.WriteByte('\n')
	}
	go func() { _, _ = p.in.Write(buf.Bytes()) }()
}

// collectAuditIDs reads replies until n arrived (n > 0) or the output ends,
// returning the auditId of every reply the "editor" received.
func collectAuditIDs(t *testing.T, p *peerProc, n int) []string {
	t.Helper()
	var out []string
	for n <= 0 || len(out) < n {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				return out
			}
			<-p.raw
			if m.method() != "" {
				continue
			}
			_, _, meta := reply(m)
			id, _ := meta["auditId"].(string)
			require.NotEmpty(t, id, "every reply names its audit record: %v", m)
			out = append(out, id)
		case <-time.After(30 * time.Second):
			t.Fatalf("no reply within 30s after %d", len(out))
		}
	}
	return out
}

func newProject(t *testing.T) string {
	t.Helper()
	proj := filepath.Join(t.TempDir(), "project")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "README.md"), []byte("hi\n"), 0o644))
	return proj
}

// TestPeerCrashKeepsRepliedRecords is the durability invariant end to end:
// the real binary is sent hundreds of requests and SIGKILLed mid-stream,
// repeatedly on one DB; every reply the client received must have its
// record, and the chain must verify.
func TestPeerCrashKeepsRepliedRecords(t *testing.T) {
	proj := newProject(t)
	dbPath := filepath.Join(t.TempDir(), "audit.db")
	// Bounded in count and in time: up to 10 rounds, no new round after the
	// budget is spent (a loaded machine runs fewer), at least 3.
	const maxRounds, minRounds, perRound = 10, 3, 3000
	budget := time.Now().Add(30 * time.Second)
	var all []string
	midStream, rounds := 0, 0
	for round := range maxRounds {
		if round >= minRounds && time.Now().After(budget) {
			break
		}
		rounds++
		p := startPeer(t, peerOpts{framing: "ndjson", project: proj, db: dbPath})
		p.initialize(true)
		session := fmt.Sprintf("crash-%d", round)
		streamReads(p, session, perRound)
		got := collectAuditIDs(t, p, 20+(round*53)%200)
		require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
		got = append(got, collectAuditIDs(t, p, 0)...) // replies already in the pipe
		<-p.exited()
		if len(got) < perRound {
			midStream++
		}
		all = append(all, got...)

		db, err := store.Open(dbPath, store.Options{})
		require.NoError(t, err)
		n, err := db.VerifyAudit()
		require.NoError(t, err, "round %d", round)
		require.GreaterOrEqual(t, n, len(all))
		have := map[string]bool{}
		for after := ""; ; {
			recs, next, err := db.Audit(store.AuditQuery{After: after, Limit: store.MaxAuditLimit})
			require.NoError(t, err)
			for _, r := range recs {
				have[r.ID] = true
			}
			if next == "" {
				break
			}
			after = next
		}
		for _, id := range all {
			require.True(t, have[id], "round %d: replied record %s is not in the audit", round, id)
		}
		require.NoError(t, db.Close())
	}
	require.GreaterOrEqual(t, midStream, (rounds+1)/2, "most kills must land while requests are in flight")
	t.Logf("%d rounds (%d killed mid-stream), %d replied records all present", rounds, midStream, len(all))
}

// TestTwoPeersShareOneDB runs two real peers on one DB at once, as two
// editor windows on one project do.
func TestTwoPeersShareOneDB(t *testing.T) {
	proj := newProject(t)
	dbPath := filepath.Join(t.TempDir(), "audit.db")
	const each = 200
	a := startPeer(t, peerOpts{framing: "ndjson", project: proj, db: dbPath})
	b := startPeer(t, peerOpts{framing: "ndjson", project: proj, db: dbPath})
	a.initialize(true)
	b.initialize(true)
	streamReads(a, "win-a", each)
	streamReads(b, "win-b", each)
	var idsA, idsB []string
	var wg sync.WaitGroup
	wg.Go(func() { idsA = collectAuditIDs(t, a, each) })
	wg.Go(func() { idsB = collectAuditIDs(t, b, each) })
	wg.Wait()
	require.Len(t, idsA, each)
	require.Len(t, idsB, each)

	db, err := store.Open(dbPath, store.Options{})
	require.NoError(t, err)
	defer db.Close()
	n, err := db.VerifyAudit()
	require.NoError(t, err)
	assert.Equal(t, 2*each, n)
	for _, tc := range []struct {
		session string
		ids     []string
	}{{"win-a", idsA}, {"win-b", idsB}} {
		recs, _, err := db.Audit(store.AuditQuery{SessionID: tc.session, Limit: 1000})
		require.NoError(t, err)
		got := make([]string, len(recs))
		for i, r := range recs {
			got[i] = r.ID
		}
		assert.ElementsMatch(t, tc.ids, got, tc.session)
	}
}
