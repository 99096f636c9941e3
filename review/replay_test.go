package review

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/internal/cpuclock"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// history writes n recorded shell calls into project root's DB under dir:
// a day's mix of reads, tests, builds, git and installs, each command
// repeated with varying arguments, as agents repeat them.
func history(t testing.TB, dir, root string, n int) {
	t.Helper()
	path, err := store.DefaultPath(root)
	require.NoError(t, err)
	db, err := store.Open(filepath.Join(dir, filepath.Base(path)), store.Options{Project: root})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.PutSession(protocol.Session{ID: "s", Agent: "claude-code", Cwd: root}))
	shapes := []string{"cat src/f%d.go", "go test ./pkg%d/...", "npm test -- --shard=%d", "git log -n %d", "git push origin b%d",
		"ls -la dir%d", "make build%d", "rm -rf build/out%d", "curl https://example.com/%d", "npm install left-pad@1.%d.0"}
	ctx := context.Background()
	// appends from 32 goroutines share group commits: seconds, not minutes, for 10 000
	const writers = 32
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		go func(w int) {
			for i := w; i < n; i += writers {
				cmd := fmt.Sprintf(shapes[i%len(shapes)], i%997)
				in, _ := json.Marshal(map[string]string{"command": cmd})
				_, err := db.AppendAudit(ctx, protocol.AuditRecord{SessionID: "s", Turn: 1,
					ToolCall: protocol.ToolCall{Tool: "Bash", Kind: protocol.KindExecute, RawInput: in}, Action: "bash: " + cmd,
					Decision: protocol.ReplyOnce, DecidedBy: protocol.ByUser, Source: protocol.SourceUser, Reply: protocol.PermissionReply{Reply: protocol.ReplyOnce}})
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}(w)
	}
	for w := 0; w < writers; w++ {
		require.NoError(t, <-errs)
	}
}

func writePolicy(t testing.TB, path, text string) string {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
	return path
}

func TestReplayCountsWhatACandidateChanges(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "proj")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
	history(t, dir, root, 300)
	r, err := New(Config{StateDir: dir, UserPolicy: filepath.Join(dir, "none.json"), Home: dir})
	require.NoError(t, err)

	// allow tests, deny pushes: 30 npm test and 30 go test calls are
	// asked today, 30 git push calls are asked (not human-only: no --force)
	cand := writePolicy(t, filepath.Join(dir, "cand.json"),
		`{"allow": ["Bash(npm test *)", "Bash(go test *)"], "deny": ["Bash(git push *)"]}`)
	rep, err := r.Replay(ReplayOptions{UserPolicy: cand})
	require.NoError(t, err)
	assert.Equal(t, 300, rep.Calls)
	assert.Equal(t, 60, rep.MoreAllowed)
	assert.Equal(t, 30, rep.NewlyDenied)
	assert.Equal(t, 0, rep.MoreAsked)
	assert.Equal(t, map[string]int{"ask→allow": 60, "ask→deny": 30}, rep.Transitions)
	assert.Equal(t, rep.Today[Ask]-90, rep.Candidate[Ask])
	assert.Equal(t, rep.Today[Deny]+30, rep.Candidate[Deny])
	assert.Equal(t, 300, rep.Today[Allow]+rep.Today[Ask]+rep.Today[Deny])
	require.Len(t, rep.Changes, 90)
	assert.Equal(t, "you are asked", rep.Changes[0].BeforeBy)

	// ask mode → auto mode: everything open and not human-only runs
	auto := writePolicy(t, filepath.Join(dir, "auto.json"), `{"mode": "auto"}`)
	rep, err = r.Replay(ReplayOptions{UserPolicy: auto})
	require.NoError(t, err)
	assert.Equal(t, 0, rep.NewlyDenied)
	assert.Positive(t, rep.MoreAllowed)
	for _, c := range rep.Changes {
		assert.Equal(t, "ask→allow", c.Before+"→"+c.After, c.Entry.Action)
	}

	// a project candidate cannot loosen: its allow rules are ignored
	proj := writePolicy(t, filepath.Join(dir, "proj.json"), `{"allow": ["Bash(npm test *)"], "ask": ["Bash(ls *)"]}`)
	rep, err = r.Replay(ReplayOptions{ProjectPolicy: proj})
	require.NoError(t, err)
	assert.Equal(t, 0, rep.MoreAllowed)
	assert.Equal(t, 30, rep.MoreAsked)

	// since: nothing recorded in the future
	rep, err = r.Replay(ReplayOptions{UserPolicy: cand, Query: Query{Since: time.Now().Add(time.Hour)}})
	require.NoError(t, err)
	assert.Equal(t, 0, rep.Calls)

	// a broken candidate is an error naming the file, never an empty policy
	bad := writePolicy(t, filepath.Join(dir, "bad.json"), `{"allow": ["Bash(npm test *)",]}`)
	_, err = r.Replay(ReplayOptions{UserPolicy: bad})
	assert.ErrorContains(t, err, "bad.json")
}

// BenchmarkReplay10k replays 10 000 recorded calls under a candidate
// policy (target: ≤ 2 s per op on the project's 2-core machine).
func BenchmarkReplay10k(b *testing.B) {
	dir := b.TempDir()
	root := filepath.Join(dir, "proj")
	require.NoError(b, os.MkdirAll(filepath.Join(root, "src"), 0o755))
	history(b, dir, root, 10000)
	r, err := New(Config{StateDir: dir, UserPolicy: filepath.Join(dir, "none.json"), Home: dir})
	require.NoError(b, err)
	cand := writePolicy(b, filepath.Join(dir, "cand.json"), `{"allow": ["Bash(npm test *)"], "deny": ["Bash(git push *)"]}`)
	b.ResetTimer()
	cpu0 := cpuclock.Process()
	for i := 0; i < b.N; i++ {
		rep, err := r.Replay(ReplayOptions{UserPolicy: cand})
		if err != nil || rep.Calls != 10000 {
			b.Fatalf("replay: %d calls, %v", rep.Calls, err)
		}
	}
	// CPU seconds per op: the figure that holds on a shared, loaded machine
	b.ReportMetric((cpuclock.Process()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}
