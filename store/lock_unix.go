//go:build unix

package store

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
)

// fileLock is a flock held on the DB's sibling lock file.
type fileLock struct {
	f     *os.File
	want  string   // the want file, probed by othersWaiting
	wantF *os.File // opened by the first probe
}

// locker takes the flock on one lock file for one DB. The wait is a
// blocking flock rather than a polling loop: the kernel wakes the waiter the
// moment the holder unlocks, so a busy peer cannot starve another one by
// re-locking between polls. A blocked flock(2) ties up an OS thread and a
// descriptor until the holder lets go, however long that is (a peer stopped
// with SIGSTOP, a long compaction, a stuck NFS server), so at most one
// goroutine per lock mode blocks in it, and every transaction that times out
// while it waits leaves nothing behind: 10 000 failed waits cost one thread
// and one descriptor, not 10 000.
type locker struct {
	path string // the lock file
	want string // the want file: shared-locked by whoever waits (othersWaiting)

	mu    sync.Mutex
	waits [2]*lockWait // the blocked flock per mode (0 shared, 1 exclusive), under mu
	// blocked counts the goroutines in wait, so a test can tell when every
	// descriptor a wait opened is closed again.
	blocked sync.WaitGroup
}

// lockWait is one blocked flock, shared by every caller waiting in its mode.
type lockWait struct {
	done    chan struct{} // closed when flock returned
	f       *os.File      // holds the lock once done, unless err or taken
	err     error
	waiters int  // callers still waiting on it, under locker.mu
	taken   bool // f was handed to a caller or closed, under locker.mu
}

func newLocker(path string) *locker {
	return &locker{path: path, want: path + wantSuffix}
}

// errBusy: the non-blocking attempt found the lock held.
var errBusy = errors.New("lock busy")

// lock takes a shared or exclusive flock, waiting at most timeout.
func (l *locker) lock(exclusive bool, timeout time.Duration) (*fileLock, error) {
	deadline := time.Now().Add(timeout)
	for {
		lk, err := l.tryLock(exclusive)
		if !errors.Is(err, errBusy) {
			return lk, err
		}
		w, err := l.join(exclusive)
		if err != nil {
			return nil, err
		}
		timer := time.NewTimer(time.Until(deadline))
		select {
		case <-w.done:
			timer.Stop()
			if f, err := l.claim(w); f != nil || err != nil {
				if err != nil {
					return nil, fmt.Errorf("lock %s: %w", l.path, err)
				}
				return &fileLock{f: f, want: l.want}, nil
			}
			// Another caller took it first: try again within the deadline.
		case <-timer.C:
			l.leave(w)
			return nil, fmt.Errorf("lock %s: %w", l.path, ErrLocked)
		}
	}
}

// tryLock opens the lock file and takes the flock without waiting; errBusy
// if another holder has it.
func (l *locker) tryLock(exclusive bool) (*fileLock, error) {
	f, err := openLockFile(l.path, exclusive)
	if err != nil {
		return nil, fmt.Errorf("open lock file %s: %w", l.path, err)
	}
	err = syscall.Flock(int(f.Fd()), lockHow(exclusive)|syscall.LOCK_NB)
	switch {
	case err == nil:
		return &fileLock{f: f, want: l.want}, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		f.Close()
		return nil, errBusy
	}
	f.Close()
	return nil, fmt.Errorf("lock %s: %w", l.path, err)
}

// join returns the blocked flock of this mode, starting one if none runs,
// and counts the caller as its waiter.
func (l *locker) join(exclusive bool) (*lockWait, error) {
	mode := 0
	if exclusive {
		mode = 1
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if w := l.waits[mode]; w != nil {
		w.waiters++
		return w, nil
	}
	f, err := openLockFile(l.path, exclusive)
	if err != nil {
		return nil, fmt.Errorf("open lock file %s: %w", l.path, err)
	}
	w := &lockWait{done: make(chan struct{}), f: f, waiters: 1}
	l.waits[mode] = w
	l.blocked.Add(1)
	go l.wait(w, mode, lockHow(exclusive))
	return w, nil
}

// wait blocks in flock, announcing the wait on the want file meanwhile, and
// hands the result to the callers still waiting; with none left it lets go.
func (l *locker) wait(w *lockWait, mode, how int) {
	defer l.blocked.Done()
	err := announced(l.want, func() error { return flockRetry(int(w.f.Fd()), how) })
	l.mu.Lock()
	defer l.mu.Unlock()
	l.waits[mode] = nil
	w.err = err
	if err != nil || w.waiters == 0 {
		w.f.Close()
		w.taken = true
	}
	close(w.done)
}

// claim hands w's lock to the caller if nobody took it yet; (nil, nil) means
// another caller did.
func (l *locker) claim(w *lockWait) (*os.File, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w.waiters--
	if w.err != nil {
		return nil, w.err
	}
	if w.taken {
		return nil, nil
	}
	w.taken = true
	return w.f, nil
}

// leave stops counting a caller that gave up; the last one to leave a flock
// that already succeeded releases it.
func (l *locker) leave(w *lockWait) {
	l.mu.Lock()
	defer l.mu.Unlock()
	w.waiters--
	select {
	case <-w.done:
		if !w.taken && w.waiters == 0 {
			w.f.Close()
			w.taken = true
		}
	default:
	}
}

// announced runs wait while holding a shared flock on the want file, so the
// holder of the lock can tell someone waits (othersWaiting). Without the
// want file (an unwritable directory) the wait is just not announced.
func announced(want string, wait func() error) error {
	if f, err := openLockFile(want, false); err == nil {
		defer f.Close()
		_ = flockRetry(int(f.Fd()), syscall.LOCK_SH) // if it fails the wait is not announced
	}
	return wait()
}

// othersWaiting reports whether another holder waits for this lock: a
// waiter holds the want file shared, so an exclusive try fails. The want
// file stays open with the lock, so a probe costs two flock calls.
func (l *fileLock) othersWaiting() bool {
	if l.wantF == nil {
		f, err := openLockFile(l.want, false)
		if err != nil {
			return true // cannot tell: be fair
		}
		l.wantF = f
	}
	fd := int(l.wantF.Fd())
	if syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return true
	}
	_ = syscall.Flock(fd, syscall.LOCK_UN)
	return false
}

func openLockFile(path string, exclusive bool) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil && !exclusive {
		// A reader may lack write access to the directory or lock file.
		f, err = os.Open(path)
	}
	return f, err
}

func lockHow(exclusive bool) int {
	if exclusive {
		return syscall.LOCK_EX
	}
	return syscall.LOCK_SH
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
	if l.wantF != nil {
		l.wantF.Close()
	}
}
