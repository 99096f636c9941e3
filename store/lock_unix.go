//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// fileLock is a flock held on the DB's sibling lock file.
type fileLock struct{ f *os.File }

// lockFile takes a shared or exclusive flock on path, waiting at most
// timeout. The wait is a blocking flock in a goroutine rather than a polling
// loop: the kernel wakes the waiter the moment the holder unlocks, so a busy
// peer cannot starve the other one by re-locking between polls. On timeout
// the goroutine is abandoned; it releases the lock as soon as it gets it.
func lockFile(path string, exclusive bool, timeout time.Duration) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil && !exclusive {
		// A reader may lack write access to the directory or lock file.
		f, err = os.Open(path)
	}
	if err != nil {
		return nil, fmt.Errorf("open lock file %s: %w", path, err)
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	fd := int(f.Fd())
	err = syscall.Flock(fd, how|syscall.LOCK_NB)
	if err == nil {
		return &fileLock{f: f}, nil
	}
	if !errors.Is(err, syscall.EWOULDBLOCK) {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	done := make(chan error, 1)
	go func() { done <- flockRetry(fd, how) }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return &fileLock{f: f}, nil
	case <-timer.C:
		go func() {
			// Closing the file releases the lock if the goroutine got it.
			<-done
			f.Close()
		}()
		return nil, fmt.Errorf("lock %s: %w", path, ErrLocked)
	}
}

func flockRetry(fd, how int) error {
	for {
		err := syscall.Flock(fd, how)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

func (l *fileLock) unlock() {
	// Closing the only descriptor of the open file releases the flock.
	l.f.Close()
}
