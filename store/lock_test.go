//go:build linux

package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

// procCounts is this process's OS thread count (/proc/self/status) and
// open descriptor count (/proc/self/fd).
func procCounts(t *testing.T) (threads, fds int) {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			threads, err = strconv.Atoi(strings.TrimSpace(v))
			require.NoError(t, err)
		}
	}
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	return threads, len(ents)
}

// TestFailedLockWaitsLeaveNothingBehind: with the lock held elsewhere,
// 10 000 transactions that time out (8 000 at once, 2 000 one after
// another, reads and writes) leave the thread and descriptor counts where
// they were, not one stuck flock(2) each; and once the holder lets go the
// store serves again.
func TestFailedLockWaitsLeaveNothingBehind(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "p.db"), Options{LockTimeout: 2 * time.Millisecond})
	require.NoError(t, err)
	defer db.Close()
	_, err = db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
	require.NoError(t, err)
	db.closeIdle()

	held, err := newLocker(db.Path()+lockSuffix).lock(true, time.Second)
	require.NoError(t, err)
	// One failed wait of each mode starts the shared flock waiters.
	_, err = db.Grants()
	require.ErrorIs(t, err, ErrLocked)
	_, err = db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
	require.ErrorIs(t, err, ErrLocked)
	threads0, fds0 := procCounts(t)

	var wg sync.WaitGroup
	for i := range 8000 {
		wg.Go(func() {
			if i%2 == 0 {
				_, err := db.Grants()
				assert.ErrorIs(t, err, ErrLocked)
				return
			}
			_, err := db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
			assert.ErrorIs(t, err, ErrLocked)
		})
	}
	wg.Wait()
	for range 2000 {
		_, err := db.Session("s")
		require.ErrorIs(t, err, ErrLocked)
	}
	threads1, fds1 := procCounts(t)
	t.Logf("threads %d → %d, fds %d → %d after 10000 failed waits", threads0, threads1, fds0, fds1)
	assert.Equal(t, fds0, fds1, "descriptors after 10 000 failed waits")
	// The Go runtime may start a few threads for the burst of syscalls; a
	// leak would be thousands.
	assert.LessOrEqual(t, threads1, threads0+8, "threads after 10 000 failed waits")

	held.unlock()
	db.opts.LockTimeout = 10 * time.Second
	r, err := db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
	require.NoError(t, err)
	assert.Equal(t, "2", r.ID)
	db.closeIdle()
	db.locks.blocked.Wait() // the blocked flocks returned and closed what they opened
	_, fds2 := procCounts(t)
	// Gone: the holder's descriptor, and the two waiters' lock and want
	// file descriptors once they got the lock.
	assert.Equal(t, fds0-5, fds2)
}

// TestLockWaitersShareOneFlock: many callers waiting at once are served by
// one blocked flock per mode, and every one of them gets the lock in turn
// once the holder lets go.
func TestLockWaitersShareOneFlock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.lock")
	held, err := newLocker(path).lock(true, time.Second)
	require.NoError(t, err)
	l := newLocker(path)
	var wg sync.WaitGroup
	var mu sync.Mutex
	got := 0
	for range 50 {
		wg.Go(func() {
			lk, err := l.lock(true, 20*time.Second)
			if !assert.NoError(t, err) {
				return
			}
			mu.Lock()
			got++
			mu.Unlock()
			lk.unlock()
		})
	}
	// All 50 wait on the same blocked flock before the holder lets go.
	require.Eventually(t, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return l.waits[1] != nil && l.waits[1].waiters == 50
	}, 10*time.Second, time.Millisecond)
	held.unlock()
	wg.Wait()
	assert.Equal(t, 50, got)
}

// TestOthersWaiting: the holder sees a process that waits for the lock, and
// only then.
func TestOthersWaiting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.lock")
	held, err := newLocker(path).lock(true, time.Second)
	require.NoError(t, err)
	defer held.unlock()
	assert.False(t, held.othersWaiting(), "nobody waits yet")

	other := newLocker(path) // its own descriptors, as another process
	done := make(chan error, 1)
	go func() {
		lk, err := other.lock(false, 20*time.Second)
		if err == nil {
			lk.unlock()
		}
		done <- err
	}()
	require.Eventually(t, held.othersWaiting, 10*time.Second, time.Millisecond, "the waiter announces itself")
	held.unlock()
	require.NoError(t, <-done)
	lk, err := newLocker(path).lock(true, time.Second)
	require.NoError(t, err)
	defer lk.unlock()
	assert.False(t, lk.othersWaiting(), "the waiter withdrew its announcement")
}

// TestWriteHandleKeptUnlessSomeoneWaits: past maxHold the lingering write
// handle is kept while no other process waits, and given up with a yield
// (yieldUntil set) as soon as one does.
func TestWriteHandleKeptUnlessSomeoneWaits(t *testing.T) {
	db := openTemp(t)
	appendOne := func() {
		_, err := db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
		require.NoError(t, err)
	}
	// oldHandle leaves a lingering handle held for longer than maxHold,
	// with its idle timer stopped, so the next append uses it.
	oldHandle := func() {
		for {
			appendOne()
			db.rw.Lock()
			if h := db.linger.h; h != nil && db.linger.timer.Stop() {
				db.linger.timer = nil
				db.linger.openedAt = time.Now().Add(-10 * maxHold)
				db.rw.Unlock()
				return
			}
			db.rw.Unlock() // the idle timer fired first: again
		}
	}
	oldHandle()
	appendOne()
	assert.Zero(t, db.yieldUntil.Load(), "alone on the file, the handle is kept past maxHold")

	// Another process announces a wait (it holds the want file shared).
	want, err := os.OpenFile(db.Path()+lockSuffix+wantSuffix, os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer want.Close()
	require.NoError(t, flockRetry(int(want.Fd()), lockHow(false)))
	oldHandle()
	appendOne()
	assert.NotZero(t, db.yieldUntil.Load(), "the handle is released for the waiting process")
}

// TestReadHandleLingers: with LingerReads, reads in a row share one handle;
// another process's write waits for it at most about readLingerFor, and
// this process's own write releases it first.
func TestReadHandleLingers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "p.db")
	db, err := Open(path, Options{LockTimeout: 10 * time.Second, LingerReads: true})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	db.closeIdle() // Open created the file: its write handle would serve the reads
	read := func() {
		_, _, err := db.HookState("s")
		require.NoError(t, err)
	}
	// held reads one state with its idle timer stopped, and returns the handle.
	held := func() *handle {
		for range 100 {
			read()
			db.rw.Lock()
			if h := db.reads.h; h != nil && db.reads.timer.Stop() {
				db.reads.timer = nil
				db.rw.Unlock()
				return h
			}
			db.rw.Unlock() // the idle timer fired first: again
		}
		t.Fatal("no read handle lingered after 100 reads")
		return nil
	}
	h := held()
	read()
	db.rw.Lock()
	assert.Same(t, h, db.reads.h, "the second read used the first one's handle")
	db.rw.Unlock()

	// Another process (another DB on the file: its own descriptors) writes:
	// it waits for the lingering read handle's idle release.
	other, err := Open(path, Options{LockTimeout: 5 * time.Second})
	require.NoError(t, err)
	defer other.Close()
	start := time.Now()
	_, err = other.AppendAudit(context.Background(), record("o", protocol.SourceAuto, "ls"))
	require.NoError(t, err)
	assert.Less(t, time.Since(start), 2*time.Second, "the other process's write waited out the read handle's linger, not its lock timeout")
	require.NoError(t, other.Close())

	// This process's own write releases its read handle first.
	held()
	_, err = db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
	require.NoError(t, err)
	db.rw.Lock()
	assert.Nil(t, db.reads.h, "the write released the read handle")
	db.rw.Unlock()
}
