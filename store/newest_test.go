package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

func TestAuditNewestPagesBackwards(t *testing.T) {
	db := openTemp(t)
	for i := 0; i < 7; i++ {
		_, err := db.AppendAudit(context.Background(), record("s", protocol.SourceSystem, "ls"))
		require.NoError(t, err)
	}
	var ids []string
	before := ""
	for {
		recs, next, err := db.AuditNewest(before, 3)
		require.NoError(t, err)
		for _, r := range recs {
			ids = append(ids, r.ID)
		}
		if next == "" {
			break
		}
		before = next
	}
	assert.Equal(t, []string{"7", "6", "5", "4", "3", "2", "1"}, ids)

	r, err := db.AuditRecord("4")
	require.NoError(t, err)
	assert.Equal(t, "4", r.ID)
	for _, bad := range []string{"8", "0", "x", ""} {
		_, err = db.AuditRecord(bad)
		assert.True(t, errors.Is(err, ErrNotFound), bad)
	}
	_, _, err = db.AuditNewest("nope", 3)
	assert.ErrorIs(t, err, ErrBadQuery)
}

func TestOpenRecordsTheProjectRoot(t *testing.T) {
	dir := t.TempDir()
	for i, root := range []string{"/p/one", "/p/two"} {
		path := filepath.Join(dir, strconv.Itoa(i)+".db")
		db, err := Open(path, Options{Project: root})
		require.NoError(t, err)
		require.NoError(t, db.Close())
	}
	// a DB opened without a project (an older peer) lists with no root
	db, err := Open(filepath.Join(dir, "old.db"), Options{})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	// a root file that is not one absolute path is no root
	require.NoError(t, os.WriteFile(filepath.Join(dir, "old.db.root"), []byte("relative\n"), 0o600))

	got, err := ProjectDBs(dir)
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, ProjectDB{Root: "", Path: filepath.Join(dir, "old.db"), Hash: "old"}, got[0])
	assert.Equal(t, ProjectDB{Root: "/p/one", Path: filepath.Join(dir, "0.db"), Hash: "0"}, got[1])
	assert.Equal(t, ProjectDB{Root: "/p/two", Path: filepath.Join(dir, "1.db"), Hash: "1"}, got[2])

	// reopening for another root rewrites it; no temporary file is left
	db, err = Open(filepath.Join(dir, "0.db"), Options{Project: "/p/moved"})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	assert.Equal(t, "/p/moved", ProjectRoot(filepath.Join(dir, "0.db")))
	matches, _ := filepath.Glob(filepath.Join(dir, "*.tmp"))
	assert.Empty(t, matches)

	none, err := ProjectDBs(filepath.Join(dir, "absent"))
	require.NoError(t, err)
	assert.Empty(t, none)
}

func TestSessionsListsEverySession(t *testing.T) {
	db := openTemp(t)
	require.NoError(t, db.PutSession(protocol.Session{ID: "b", Agent: "codex"}))
	require.NoError(t, db.PutSession(protocol.Session{ID: "a", Agent: "claude-code"}))
	ss, err := db.Sessions()
	require.NoError(t, err)
	require.Len(t, ss, 2)
	assert.Equal(t, "a", ss[0].ID)
	assert.Equal(t, "codex", ss[1].Agent)
}
