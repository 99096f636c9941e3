//go:build unix

package review

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/store"
)

// A DB another process holds is answered within Config.LockTimeout.
func TestLockTimeout(t *testing.T) {
	dir := t.TempDir()
	a := seed(t, dir, "/r/a", "ls")
	lock, err := os.OpenFile(a.DBPath+".lock", os.O_RDWR, 0)
	require.NoError(t, err)
	defer lock.Close()
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX))
	r, err := New(Config{StateDir: dir, UserPolicy: filepath.Join(dir, "none.json"), Home: dir, LockTimeout: 50 * time.Millisecond})
	require.NoError(t, err)
	start := time.Now()
	_, err = r.Log(Query{})
	assert.ErrorIs(t, err, store.ErrLocked)
	assert.Less(t, time.Since(start), 2*time.Second, "waited past the lock timeout")
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_UN))
	got, err := r.Log(Query{})
	require.NoError(t, err)
	assert.Len(t, got, 1)
}
