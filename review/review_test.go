package review

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

func TestRelative(t *testing.T) {
	for in, want := range map[string]string{
		"bash: cat /r/p/src/a.go":       "bash: cat src/a.go",
		"bash: ls /r/p":                 "bash: ls .",
		"bash: ls /r/p2/x":              "bash: ls /r/p2/x",
		"write /r/p/.env, read /r/p":    "write .env, read .",
		"bash: grep -r x '/r/p' /other": "bash: grep -r x '.' /other",
	} {
		assert.Equal(t, want, Relative(in, "/r/p"), in)
	}
	assert.Equal(t, "ls /x", Relative("ls /x", "/"))
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 12, 2, 15, 30, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2h":         now.Add(-2 * time.Hour),
		"30m":        now.Add(-30 * time.Minute),
		"7d":         now.AddDate(0, 0, -7),
		"today":      time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC),
		"yesterday":  time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		"2026-11-30": time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC),
		"":           {},
	} {
		got, err := ParseSince(in, now)
		require.NoError(t, err, in)
		assert.True(t, want.Equal(got), "%s: %v, want %v", in, got, want)
	}
	for _, bad := range []string{"-2h", "soon", "2026-13-01", "d"} {
		_, err := ParseSince(bad, now)
		assert.Error(t, err, bad)
	}
}

// seed writes n records into the DB of project root under dir.
func seed(t *testing.T, dir, root string, cmds ...string) Project {
	t.Helper()
	path, err := store.DefaultPath(root)
	require.NoError(t, err)
	path = filepath.Join(dir, filepath.Base(path))
	db, err := store.Open(path, store.Options{Project: root})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.PutSession(protocol.Session{ID: "s-" + filepath.Base(root), Agent: "agent-" + filepath.Base(root)}))
	for _, c := range cmds {
		_, err := db.AppendAudit(context.Background(), protocol.AuditRecord{SessionID: "s-" + filepath.Base(root),
			ToolCall: protocol.ToolCall{Tool: "bash", RawInput: []byte(`{"command":"` + c + `"}`)}, Action: "bash: " + c,
			Decision: protocol.ReplyOnce, DecidedBy: protocol.ByGate, Source: protocol.SourceAuto, Reply: protocol.PermissionReply{Reply: protocol.ReplyOnce}})
		require.NoError(t, err)
	}
	return Project{Root: root, DBPath: path, Hash: strings.TrimSuffix(filepath.Base(path), ".db")}
}

func TestFindResolvesIDs(t *testing.T) {
	dir := t.TempDir()
	a := seed(t, dir, "/r/a", "ls", "pwd")
	b := seed(t, dir, "/r/b", "date")
	r, err := New(Config{StateDir: dir, UserPolicy: filepath.Join(dir, "none.json"), Home: dir})
	require.NoError(t, err)

	e, err := r.Find(a.ShortHash()+":2", "")
	require.NoError(t, err)
	assert.Equal(t, "bash: pwd", e.Action)
	assert.Equal(t, "agent-a", e.Agent)
	e, err = r.Find(b.Hash[:4]+":1", "")
	require.NoError(t, err)
	assert.Equal(t, "/r/b", e.Project)
	// the short form inside a project
	e, err = r.Find("1", "/r/a")
	require.NoError(t, err)
	assert.Equal(t, "bash: ls", e.Action)

	for _, bad := range []string{a.ShortHash() + ":3", "zz:1", ":1", "x:y", "1"} {
		_, err := r.Find(bad, "")
		assert.Error(t, err, bad)
	}
	// a project with no DB is not created by looking
	_, err = r.Find("1", "/r/none")
	assert.Error(t, err)
	none, err := store.DefaultPath("/r/none")
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, filepath.Base(none)))
	assert.True(t, os.IsNotExist(err), "Find created a DB")

	all, err := r.Log(Query{})
	require.NoError(t, err)
	require.Len(t, all, 3)
	assert.Equal(t, "bash: date", all[0].Action)
	only, err := r.Log(Query{Projects: []string{"/r/a"}, Agent: "AGENT-A"})
	require.NoError(t, err)
	assert.Len(t, only, 2)
}

func TestLogText(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir, "/r/a", "ls src", "git push origin main")
	seed(t, dir, "/r/b", "GIT status")
	r, err := New(Config{StateDir: dir, UserPolicy: filepath.Join(dir, "none.json"), Home: dir})
	require.NoError(t, err)
	got, err := r.Log(Query{Text: "git"})
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "bash: GIT status", got[0].Action)
	assert.Equal(t, "bash: git push origin main", got[1].Action)
	got, err = r.Log(Query{Text: "SRC", Projects: []string{"/r/a"}})
	require.NoError(t, err)
	require.Len(t, got, 1)
	got, err = r.Log(Query{Text: "nowhere"})
	require.NoError(t, err)
	assert.Empty(t, got)
}

// With KeepDecoded the log reads only what was appended since, and a file
// replaced by another log is read afresh: the answers are those of a
// Reviewer that keeps nothing.
func TestKeepDecoded(t *testing.T) {
	dir := t.TempDir()
	a := seed(t, dir, "/r/a", "ls", "pwd")
	kept, err := New(Config{StateDir: dir, UserPolicy: filepath.Join(dir, "none.json"), Home: dir, KeepDecoded: true})
	require.NoError(t, err)
	fresh, err := New(Config{StateDir: dir, UserPolicy: filepath.Join(dir, "none.json"), Home: dir})
	require.NoError(t, err)
	same := func(want int) {
		t.Helper()
		k, err := kept.Log(Query{})
		require.NoError(t, err)
		f, err := fresh.Log(Query{})
		require.NoError(t, err)
		require.Len(t, f, want)
		require.Equal(t, f, k)
	}
	same(2)
	seed(t, dir, "/r/a", "date") // appended
	same(3)
	// Another log in its place: as many records, other contents.
	require.NoError(t, os.Remove(a.DBPath))
	seed(t, dir, "/r/a", "whoami", "id", "uptime")
	same(3)
	k, err := kept.Log(Query{Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, "bash: uptime", k[0].Action)
	// A longer one: its 4th record does not chain onto the 3rd kept.
	require.NoError(t, os.Remove(a.DBPath))
	seed(t, dir, "/r/a", "a", "b", "c", "d", "e")
	same(5)
	// A shorter one.
	require.NoError(t, os.Remove(a.DBPath))
	seed(t, dir, "/r/a", "true")
	same(1)
}
