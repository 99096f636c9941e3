//go:build !unix

package store

import "time"

// fileLock is a no-op where flock is unavailable: bbolt's own file lock (with
// Options.LockTimeout) still keeps processes apart, but a process waiting on
// it during Compact may write to the replaced file; see docs/STORE.md.
type fileLock struct{}

func lockFile(path string, exclusive bool, timeout time.Duration) (*fileLock, error) {
	return &fileLock{}, nil
}

func (l *fileLock) unlock() {}
