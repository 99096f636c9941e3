package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Sentinel errors. Errors returned by this package wrap them so callers can
// tell the failure classes apart with errors.Is; the message itself is one
// sentence naming the file.
var (
	// ErrNotFound is returned for an unknown grant or session.
	ErrNotFound = errors.New("not found")
	// ErrLocked means another process held the database longer than
	// Options.LockTimeout.
	ErrLocked = errors.New("locked by another process")
	// ErrCorrupt means the file is not a readable bbolt database.
	ErrCorrupt = errors.New("corrupt")
	// ErrUnwritable means the file or its directory cannot be written.
	ErrUnwritable = errors.New("not writable")
	// ErrNewerSchema means the file was written by a newer perm-peer.
	ErrNewerSchema = errors.New("newer schema")
	// ErrClosed is returned by every method after Close.
	ErrClosed = errors.New("store closed")
	// ErrBadQuery means a query's parameter is malformed (AuditQuery.After).
	ErrBadQuery = errors.New("bad query")
)

// DefaultLockTimeout bounds how long a transaction waits for another process
// holding the database.
const DefaultLockTimeout = 5 * time.Second

// DefaultMaxBatch bounds how many audit records one group commit writes.
const DefaultMaxBatch = 1024

// Options tune Open. The zero value is usable.
type Options struct {
	// LockTimeout bounds the wait for the file lock of each transaction
	// (default DefaultLockTimeout).
	LockTimeout time.Duration
	// MaxBatch bounds the records of one group commit (default DefaultMaxBatch).
	MaxBatch int
	// Project, when set, is the absolute project root the DB belongs to:
	// Open records it next to the file ("<db>.root") so that
	// `perm-peer log` can name the project of every DB (ProjectDBs).
	Project string
	// LingerReads keeps a read's handle, and its shared lock, open for a
	// few milliseconds after the read (see readLingerFor), for a process
	// that makes a few reads in a row and exits: a hook call opens the
	// file once instead of once per read.
	LingerReads bool
}

// DB is one project's store. It holds no open bbolt handle between
// transactions; see docs/STORE.md. Its methods are safe for concurrent use.
type DB struct {
	path  string
	locks *locker // the file lock on <db>.lock (lock_unix.go)
	opts  Options

	// rw orders this process's transactions: the file lock orders processes.
	rw sync.RWMutex

	// closeMu guards closed against Close: appends enqueue under it.
	closeMu sync.RWMutex
	closed  bool

	// The group-commit queue (audit.go); queue and leading under queueMu.
	queueMu    sync.Mutex
	queue      []*appendReq
	leading    bool
	committing sync.WaitGroup // one count while a leader runs

	linger     lingering    // the write handle kept open between close writes (tx.go); under rw
	reads      lingering    // the read handle kept between close reads (Options.LingerReads); under rw
	yieldUntil atomic.Int64 // unix ns before which update does not lock (tx.go, maxHold)

	// batches counts committed group commits (observability and tests).
	batches atomic.Int64
	// writeOpens counts write handles opened (observability and tests).
	writeOpens atomic.Int64
}

// DefaultPath is $XDG_STATE_HOME/perm-peer/<first 16 hex of sha256(root)>.db
// ($XDG_STATE_HOME defaults to ~/.local/state). A relative $XDG_STATE_HOME
// is ignored, as the XDG spec says: it would put the log wherever the editor
// happened to start the peer.
func DefaultPath(projectRoot string) (string, error) {
	dir, err := StateDir()
	if err != nil {
		return "", fmt.Errorf("default db path: %w", err)
	}
	sum := sha256.Sum256([]byte(projectRoot))
	return filepath.Join(dir, hex.EncodeToString(sum[:])[:16]+".db"), nil
}

// Files lists every file the store at path uses: the database, its lock
// file, the want file a waiting process announces itself on, and Compact's
// temporary copy. The gate's floor on writes to
// perm-peer's own database should cover all of them.
func Files(path string) []string {
	return []string{path, path + lockSuffix, path + lockSuffix + wantSuffix, path + compactSuffix, path + rootSuffix}
}

// Sibling file suffixes.
const (
	lockSuffix    = ".lock"
	wantSuffix    = ".want" // after lockSuffix: <db>.lock.want
	compactSuffix = ".compact"
)

// Open opens or creates the store at path, migrating an older schema. It
// fails with one sentence (wrapping ErrLocked, ErrCorrupt, ErrUnwritable or
// ErrNewerSchema) rather than ever starting on an empty store.
func Open(path string, opts Options) (*DB, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = DefaultMaxBatch
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("audit db %s: resolve path: %w", path, err)
	}
	dir := filepath.Dir(abs)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("audit db %s is %w: cannot create directory %s: %v", abs, ErrUnwritable, dir, err)
	}
	db := &DB{
		path:  abs,
		locks: newLocker(abs + lockSuffix),
		opts:  opts,
	}
	if err := db.checkNotEmptied(); err != nil {
		return nil, err
	}
	// A current file needs no write: a read transaction checks it, so a cold
	// start does not pay a commit (two fsyncs).
	current := false
	if fi, err := os.Stat(abs); err == nil && fi.Size() > 0 {
		err := db.view(func(tx *bolt.Tx) error {
			v, err := schemaVersion(tx)
			current = err == nil && v == SchemaVersion
			return nil
		})
		if errors.Is(err, ErrLocked) {
			return nil, err // the write would wait out the same lock again
		}
		if err != nil {
			current = false // let the write path report the real problem
		}
		// An unwritable file must still fail here, at startup.
		if f, err := os.OpenFile(abs, os.O_RDWR, 0); err != nil {
			current = false
		} else {
			f.Close()
		}
	}
	if !current {
		if err := db.update(migrate); err != nil {
			return nil, err
		}
	}
	if opts.Project != "" {
		// The index is a convenience for the log: failing to write it
		// must not stop a peer from deciding.
		if err := recordRoot(abs, opts.Project); err != nil {
			slog.Warn("project index", "err", err)
		}
	}
	return db, nil
}

// checkNotEmptied refuses a directory, and a file of 0 bytes: bbolt would
// initialise it as a new, empty log, and an emptied log must not pass for
// one that never had records. A peer that is creating the file holds the
// exclusive lock until bbolt has written its first pages, so a 0-byte file
// is judged again under the shared lock: seen without it, another peer's
// brand-new file looked emptied.
func (db *DB) checkNotEmptied() error {
	empty := func() (bool, error) {
		fi, err := os.Stat(db.path)
		if err == nil && fi.IsDir() {
			return false, fmt.Errorf("audit db %s is %w: it is a directory", db.path, ErrUnwritable)
		}
		return err == nil && fi.Mode().IsRegular() && fi.Size() == 0, nil
	}
	if e, err := empty(); !e || err != nil {
		return err
	}
	lk, err := db.locks.lock(false, db.opts.LockTimeout)
	if err != nil {
		return db.classify(err)
	}
	defer lk.unlock()
	if e, err := empty(); !e || err != nil {
		return err
	}
	return fmt.Errorf("audit db %s is %w (an empty file, not a database): move it aside to start a new log", db.path, ErrCorrupt)
}

// Path is the file the store lives in.
func (db *DB) Path() string { return db.path }

// Close waits for pending audit appends to commit. The
// bbolt file is not held open between transactions, so there is nothing else
// to release.
func (db *DB) Close() error {
	db.closeMu.Lock()
	if db.closed {
		db.closeMu.Unlock()
		return nil
	}
	db.closed = true
	db.closeMu.Unlock()
	db.committing.Wait()
	db.closeIdle()
	return nil
}

func (db *DB) isClosed() bool {
	db.closeMu.RLock()
	defer db.closeMu.RUnlock()
	return db.closed
}
