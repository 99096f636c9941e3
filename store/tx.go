package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/debug"
	"sync"
	"syscall"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// update runs fn in one read-write transaction: take this process's write
// lock, then the exclusive file lock (bounded wait), open the bbolt file,
// commit (bbolt fsyncs before Commit returns), close. Holding the file only
// for the transaction is what lets two peers share one DB.
func (db *DB) update(fn func(*bolt.Tx) error) error {
	db.rw.Lock()
	defer db.rw.Unlock()
	return db.withBolt(true, func(b *bolt.DB) error { return b.Update(fn) })
}

// view runs fn in one read-only transaction under a shared file lock.
func (db *DB) view(fn func(*bolt.Tx) error) error {
	db.rw.RLock()
	defer db.rw.RUnlock()
	return db.withBolt(false, func(b *bolt.DB) error { return b.View(fn) })
}

// damaged maps the path of a file whose bbolt Open panicked to that error,
// for the life of the process (see withBolt).
var damaged sync.Map

// withBolt opens the bbolt file under the file lock, runs fn and closes it.
// Panics from bbolt on a damaged file (bbolt panics on some bad pages, and
// faults in its mmap are turned into panics here) become ErrCorrupt: fail
// closed, never crash the peer.
func (db *DB) withBolt(write bool, fn func(*bolt.DB) error) (err error) {
	if v, ok := damaged.Load(db.path); ok {
		return v.(error)
	}
	lk, err := lockFile(db.lockPath, write, db.opts.LockTimeout)
	if err != nil {
		return db.classify(err)
	}
	defer lk.unlock()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var (
		b    *bolt.DB
		file *os.File // bbolt's descriptor, to release its flock if Open panics
	)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("audit db %s is %w: bbolt panicked: %v; restart perm-peer after repairing or moving it", db.path, ErrCorrupt, r)
			if b == nil {
				// Open panicked after mapping the file: the mapping, and with
				// it bbolt's flock, cannot be released. Answer every later
				// transaction on this file with the same error at once
				// instead of letting it wait for that lock.
				damaged.Store(db.path, err)
			}
		}
		switch {
		case b != nil:
			if cerr := b.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("close audit db %s: %w", db.path, cerr)
			}
		case file != nil:
			file.Close()
		}
	}()
	b, err = bolt.Open(db.path, 0o600, &bolt.Options{
		Timeout:  db.opts.LockTimeout,
		ReadOnly: !write,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, perm)
			file = f
			return f, err
		},
	})
	if err != nil {
		// bbolt closed its descriptor itself.
		b, file = nil, nil
		return db.classify(err)
	}
	if err := fn(b); err != nil {
		var ce *ChainError
		if errors.Is(err, ErrNotFound) || errors.As(err, &ce) {
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
		errors.Is(err, berrors.ErrVersionMismatch):
		return fmt.Errorf("audit db %s is %w (%v): move it aside to start a new log", db.path, ErrCorrupt, err)
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS), errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("audit db %s is %w: %v", db.path, ErrUnwritable, err)
	}
	return fmt.Errorf("open audit db %s: %w", db.path, err)
}
