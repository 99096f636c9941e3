//go:build unix

package gate

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCache is a DirCache whose racy window is short, so that a tree a
// test has just made is kept after waitAged.
func testCache(max int) *DirCache {
	return &DirCache{window: 30 * time.Millisecond, max: max, dirs: map[string]*listing{}}
}

// waitAged waits until the directories changed before it are older than
// testCache's window: what the racy guard measures is the clock itself.
func waitAged() { time.Sleep(60 * time.Millisecond) }

// The walk gives the same answers through a cache as from the disk, on
// the first call and on the calls that reuse the listings.
func TestDirCacheSameAnswers(t *testing.T) {
	e := secretProject(t)
	waitAged()
	cached := e
	cached.Dirs = testCache(maxCachedDirs)
	for _, cmd := range []string{"grep -r 'T=' .", "grep -rn TODO .", "grep -R sshkey .", "grep -r sshkey .",
		"rg MII", "rg --hidden hunter", "grep -rl hunter .", "grep -r hunter src", "zip -r out.zip .", "scp -r . h:/x"} {
		want := Analyze(bash(cmd), e)
		for range 2 {
			got := Analyze(bash(cmd), cached)
			assert.Equal(t, want.Decision, got.Decision, cmd)
			assert.Equal(t, want.HumanOnly, got.HumanOnly, cmd)
			assert.Equal(t, want.Reasons, got.Reasons, cmd)
		}
	}
	assert.NotEmpty(t, cached.Dirs.dirs, "the listings are kept")
}

// A listing is reused only while its directory is unchanged: a secret
// created after the first search is found by the next, also when the
// directory's mtime is set back (touch -d sets mtime, not ctime), and
// when the directory is replaced by another.
func TestDirCacheSeesChanges(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "p")
	writeFile(t, proj, "src/main.go", "package main // TODO\n")
	e := Env{Project: proj, Cwd: proj, Home: filepath.Join(dir, "h"), Dirs: testCache(maxCachedDirs)}
	waitAged()
	search := func() Verdict { return Analyze(bash("grep -rn KEY src"), e) }
	require.Equal(t, protocol.DecisionAllow, search().Decision)
	src := filepath.Join(proj, "src")
	require.Contains(t, e.Dirs.dirs, src)

	fi, err := os.Stat(src)
	require.NoError(t, err)
	writeFile(t, proj, "src/.env", "KEY=hunter2\n")
	require.NoError(t, os.Chtimes(src, fi.ModTime(), fi.ModTime()))
	v := search()
	assert.True(t, v.HumanOnly, "a secret made after the listing, mtime set back: %+v", v.Reasons)

	require.NoError(t, os.Remove(filepath.Join(src, ".env")))
	waitAged()
	require.Equal(t, protocol.DecisionAllow, search().Decision)
	require.NoError(t, os.Rename(src, src+".old"))
	writeFile(t, proj, "src/main.go", "package main\n")
	writeFile(t, proj, "src/id_rsa", testPEM)
	assert.True(t, search().HumanOnly, "a directory replaced by another")
}

// A directory changed just before it is listed is not kept: a change in
// the same clock tick would leave its stamps as they were.
func TestDirCacheRacy(t *testing.T) {
	dir := t.TempDir()
	c := &DirCache{window: time.Hour, max: 8, dirs: map[string]*listing{}}
	ents, err := c.readDir(dir)
	require.NoError(t, err)
	assert.Empty(t, ents)
	assert.Empty(t, c.dirs, "a directory changed within the window")
}

// The cache holds at most max listings, and is safe for concurrent use.
func TestDirCacheBoundedConcurrent(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b", "c", "d", "e", "f"} {
		writeFile(t, dir, d+"/x.go", "package x\n")
	}
	waitAged()
	c := testCache(3)
	e := Env{Project: dir, Cwd: dir, Home: filepath.Join(dir, "h"), Dirs: c}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 20 {
				d := string(rune('a' + (g+i)%6))
				assert.Equal(t, protocol.DecisionAllow, Analyze(bash("grep -rn x "+d), e).Decision)
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, len(c.dirs), 3)
	assert.NotEmpty(t, c.dirs)
}
