package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Invariant: the bbolt file is open only while this process holds the lock
// file (<db>.lock): exclusively for writes, shared for reads. That is what
// lets several peer processes share one DB, since bbolt itself would hold
// its own lock for as long as the file stays open.
//
// A write handle lingers for lingerFor after its last write, so a burst of
// decisions pays the lock, open, mmap and munmap once instead of per
// commit; another process waits at most that much longer for the file.
const lingerFor = 2 * time.Millisecond

// With Options.LingerReads, a read handle lingers too, for readLingerFor
// after its last read, so a process that reads a few times in a row (a
// hook call: the schema check, the session's state, its grants) opens the
// file once. Its shared lock holds off other processes' writes that long
// at most; this process's own write releases it first (a shared and an
// exclusive flock on two descriptors of one file would wait on each other).
const readLingerFor = 10 * time.Millisecond

// Fairness between processes: a steady stream of commits would keep the
// lingering handle, and with it the lock, forever, and a second peer on the
// same file would wait out its lock timeout and fail closed. So once a
// handle has been held for maxHold, every commit asks whether another
// process waits (it announces itself on the want file, lock_unix.go); if
// one does, the handle is released and the next commit waits yieldFor
// before it locks again, long enough for a process blocked in flock to be
// woken and take its turn (Linux wakes flock waiters on release but does not
// queue them: the releasing process could win again at once). A peer alone
// on its file keeps the handle: releasing it every maxHold for nobody cost
// a reopen, an mmap and a 1 ms yield, the sequential p99.
const (
	maxHold  = 20 * time.Millisecond
	yieldFor = time.Millisecond
)

// handle is an open bbolt file and the file lock that guards it.
type handle struct {
	b  *bolt.DB
	lk *fileLock
	// poisoned: bbolt panicked in a transaction on it (a damaged file). Its
	// locks may be held by the dead transaction, so bbolt's Close would
	// block forever.
	poisoned atomic.Bool
}

// lingering is the write handle kept open between close writes, or the
// read handle kept between close reads (Options.LingerReads); guarded by
// DB.rw.
type lingering struct {
	h        *handle
	timer    *time.Timer
	openedAt time.Time // when h was opened, or last found nobody waiting
}

// damaged maps the path of a file whose bbolt Open panicked to that error,
// for the life of the process (see openHandle).
var damaged sync.Map

// update runs fn in one read-write transaction (bbolt fsyncs before Commit
// returns) on the lingering write handle, opening it if needed.
func (db *DB) update(fn func(*bolt.Tx) error) error {
	// Another process's turn (see maxHold): wait without holding rw, so
	// this process's reads go on meanwhile.
	if wait := time.Until(time.Unix(0, db.yieldUntil.Load())); wait > 0 {
		time.Sleep(wait)
	}
	db.rw.Lock()
	defer db.rw.Unlock()
	db.releaseReads()
	if db.linger.h == nil {
		h, err := db.openHandle(true)
		if err != nil {
			return err
		}
		db.linger.h, db.linger.openedAt = h, time.Now()
		db.writeOpens.Add(1)
	}
	if db.linger.timer != nil {
		db.linger.timer.Stop()
		db.linger.timer = nil
	}
	err := db.run(db.linger.h, func(b *bolt.DB) error { return b.Update(fn) })
	switch {
	case errors.Is(err, ErrCorrupt):
		db.releaseLinger() // never reuse a handle bbolt panicked on
	case time.Since(db.linger.openedAt) > maxHold && db.linger.h.lk.othersWaiting():
		db.releaseLinger()
		db.yieldUntil.Store(time.Now().Add(yieldFor).UnixNano())
	default:
		if time.Since(db.linger.openedAt) > maxHold {
			db.linger.openedAt = time.Now() // nobody waits: ask again in maxHold
		}
		// Armed once the commit is done: armed before it, a commit slower
		// than lingerFor found its handle closed right after it.
		db.linger.timer = time.AfterFunc(lingerFor, db.closeIdle)
	}
	return err
}

// view runs fn in one read-only transaction: on the lingering write handle
// when there is one, else on a handle opened under a shared lock.
func (db *DB) view(fn func(*bolt.Tx) error) error {
	if db.opts.LingerReads {
		return db.viewLingering(fn)
	}
	db.rw.RLock()
	defer db.rw.RUnlock()
	if h := db.linger.h; h != nil {
		return db.run(h, func(b *bolt.DB) error { return b.View(fn) })
	}
	h, err := db.openHandle(false)
	if err != nil {
		return err
	}
	defer db.closeHandle(h)
	return db.run(h, func(b *bolt.DB) error { return b.View(fn) })
}

// viewLingering is view with Options.LingerReads: on the lingering write
// handle when there is one, else on the lingering read handle, opened
// if needed and kept for readLingerFor after this read. It holds rw
// exclusively, since it may set the read handle.
func (db *DB) viewLingering(fn func(*bolt.Tx) error) error {
	db.rw.Lock()
	defer db.rw.Unlock()
	if h := db.linger.h; h != nil {
		return db.run(h, func(b *bolt.DB) error { return b.View(fn) })
	}
	if db.reads.h == nil {
		h, err := db.openHandle(false)
		if err != nil {
			return err
		}
		db.reads.h, db.reads.openedAt = h, time.Now()
	}
	if db.reads.timer != nil {
		db.reads.timer.Stop()
		db.reads.timer = nil
	}
	err := db.run(db.reads.h, func(b *bolt.DB) error { return b.View(fn) })
	if errors.Is(err, ErrCorrupt) {
		db.releaseReads() // never reuse a handle bbolt panicked on
		return err
	}
	db.reads.timer = time.AfterFunc(readLingerFor, db.closeIdleReads)
	return err
}

// closeIdleReads releases the lingering read handle once no transaction is
// running.
func (db *DB) closeIdleReads() {
	db.rw.Lock()
	defer db.rw.Unlock()
	db.releaseReads()
}

// releaseReads closes the lingering read handle; the caller holds rw.
func (db *DB) releaseReads() {
	if db.reads.timer != nil {
		db.reads.timer.Stop()
		db.reads.timer = nil
	}
	if db.reads.h != nil {
		db.closeHandle(db.reads.h)
		db.reads.h = nil
	}
}

// closeIdle releases the lingering handle once no transaction is running.
func (db *DB) closeIdle() {
	db.rw.Lock()
	defer db.rw.Unlock()
	db.releaseLinger()
}

// releaseLinger closes the lingering handles; the caller holds rw.
func (db *DB) releaseLinger() {
	db.releaseReads()
	if db.linger.timer != nil {
		db.linger.timer.Stop()
		db.linger.timer = nil
	}
	if db.linger.h != nil {
		db.closeHandle(db.linger.h)
		db.linger.h = nil
	}
}

// openHandle takes the file lock (exclusive for write, bounded wait) and
// opens the bbolt file. A panic from bbolt on a damaged file (bbolt panics on
// some bad pages; faults in its mmap are turned into panics here) becomes
// ErrCorrupt: fail closed, never crash the peer.
func (db *DB) openHandle(write bool) (h *handle, err error) {
	if v, ok := damaged.Load(db.path); ok {
		return nil, v.(error)
	}
	// One deadline for both locks, so a transaction never waits longer
	// than LockTimeout, which is what the error says it waited.
	deadline := time.Now().Add(db.opts.LockTimeout)
	lk, err := db.locks.lock(write, db.opts.LockTimeout)
	if err != nil {
		return nil, db.classify(err)
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var file *os.File // bbolt's descriptor, to release its flock if Open panics
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("audit db %s is %w: bbolt panicked: %v; restart perm-peer after repairing or moving it", db.path, ErrCorrupt, r)
			// Open panicked after mapping the file: the mapping, and with it
			// bbolt's flock, cannot be released. Answer every later
			// transaction on this file with the same error at once instead
			// of letting it wait for that lock.
			damaged.Store(db.path, err)
			if file != nil {
				file.Close()
			}
			lk.unlock()
			h = nil
		}
	}()
	b, err := bolt.Open(db.path, 0o600, &bolt.Options{
		Timeout:  max(time.Until(deadline), time.Millisecond), // 0 would wait forever
		ReadOnly: !write,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, perm)
			file = f
			return f, err
		},
	})
	if err != nil {
		lk.unlock() // bbolt closed its descriptor itself
		return nil, db.classify(err)
	}
	return &handle{b: b, lk: lk}, nil
}

// closeHandle closes the bbolt file, then releases the file lock.
func (db *DB) closeHandle(h *handle) {
	if h.poisoned.Load() {
		db.closePoisoned(h)
		return
	}
	func() {
		defer func() { _ = recover() }() // a damaged mapping may fault on munmap
		_ = h.b.Close()
	}()
	h.lk.unlock()
}

// poisonedCloseWait bounds the wait for bbolt's Close on a handle a
// transaction panicked on.
const poisonedCloseWait = 200 * time.Millisecond

// closePoisoned closes a handle bbolt panicked on. The dead transaction may
// still hold bbolt's locks, so Close can block forever; then the mapping,
// and with it bbolt's flock on the file (the mapping keeps the open file
// alive), cannot be released, and the file is answered as damaged for the
// life of the process, as when bolt.Open itself panics (see openHandle).
func (db *DB) closePoisoned(h *handle) {
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		defer func() { _ = recover() }()
		_ = h.b.Close()
	}()
	select {
	case <-closed:
	case <-time.After(poisonedCloseWait):
		damaged.Store(db.path, fmt.Errorf("audit db %s is %w: bbolt panicked on it and cannot release it; restart perm-peer after repairing or moving it", db.path, ErrCorrupt))
	}
	h.lk.unlock()
}

// run calls fn on an open handle; a bbolt panic becomes ErrCorrupt.
func (db *DB) run(h *handle, fn func(*bolt.DB) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			h.poisoned.Store(true)
			err = fmt.Errorf("audit db %s is %w: bbolt panicked: %v; restart perm-peer after repairing or moving it", db.path, ErrCorrupt, r)
		}
	}()
	if err := fn(h.b); err != nil {
		var ce *ChainError
		var ge *GrantError
		if errors.Is(err, ErrNotFound) || errors.As(err, &ce) || errors.As(err, &ge) {
			return err // answers, not failures of the file
		}
		return fmt.Errorf("audit db %s: %w", db.path, err)
	}
	return nil
}

// classify turns a lock or bbolt open error into one sentence wrapping the
// matching sentinel.
func (db *DB) classify(err error) error {
	switch {
	case errors.Is(err, ErrLocked), errors.Is(err, berrors.ErrTimeout):
		return fmt.Errorf("audit db %s is %w (waited %s)", db.path, ErrLocked, db.opts.LockTimeout)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch),
		// bbolt has no sentinel for a file shorter than its two meta pages
		// (a truncated file).
		strings.HasPrefix(err.Error(), "file size too small"):
		return fmt.Errorf("audit db %s is %w (%v): move it aside to start a new log", db.path, ErrCorrupt, err)
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS), errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("audit db %s is %w: %v", db.path, ErrUnwritable, err)
	}
	return fmt.Errorf("open audit db %s: %w", db.path, err)
}
