//go:build !unix

package store

import "time"

// fileLock is a no-op where flock is unavailable: bbolt's own file lock (with
// Options.LockTimeout) still keeps processes apart, but a process waiting on
// it during Compact may write to the replaced file; see docs/STORE.md.
type fileLock struct{}

type locker struct{}

func newLocker(path string) *locker { return &locker{} }

func (l *locker) lock(exclusive bool, timeout time.Duration) (*fileLock, error) {
	return &fileLock{}, nil
}

// othersWaiting cannot be known without flock: always give the file up.
func (l *fileLock) othersWaiting() bool { return true }

func (l *fileLock) unlock() {}
