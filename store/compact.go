package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	bolt "go.etcd.io/bbolt"
)

// compactTxMax bounds one transaction of the copy, so compacting a large log
// does not hold it all in memory.
const compactTxMax = 64 << 20

// Compact rewrites the file without its free pages: bbolt Compact into
// "<db>.compact", a check that the copy holds the same audit log, then an
// atomic rename over the original. It holds the exclusive file lock
// throughout; because every transaction reopens the path under that lock,
// other processes simply open the new file next time.
func (db *DB) Compact() (err error) {
	if db.isClosed() {
		return fmt.Errorf("compact %s: %w", db.path, ErrClosed)
	}
	db.rw.Lock()
	defer db.rw.Unlock()
	db.releaseLinger()
	lk, err := db.locks.lock(true, db.opts.LockTimeout)
	if err != nil {
		return db.classify(err)
	}
	defer lk.unlock()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("compact %s: audit db is %w: bbolt panicked: %v", db.path, ErrCorrupt, r)
		}
	}()

	src, err := bolt.Open(db.path, 0o600, &bolt.Options{Timeout: db.opts.LockTimeout, ReadOnly: true})
	if err != nil {
		return db.classify(err)
	}
	defer src.Close()
	if err := src.View(checkSchema); err != nil {
		return fmt.Errorf("compact %s: %w", db.path, err)
	}
	tmp := db.path + compactSuffix
	if err := os.Remove(tmp); err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("compact %s: remove stale %s: %w", db.path, tmp, err)
	}
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: db.opts.LockTimeout})
	if err != nil {
		return fmt.Errorf("compact %s: create %s: %w", db.path, tmp, err)
	}
	ok := false
	defer func() {
		if !ok {
			dst.Close()
			os.Remove(tmp)
		}
	}()
	if err := bolt.Compact(dst, src, compactTxMax); err != nil {
		return fmt.Errorf("compact %s into %s: %w", db.path, tmp, err)
	}
	want, err := auditSummary(src)
	if err != nil {
		return fmt.Errorf("compact %s: read original: %w", db.path, err)
	}
	got, err := auditSummary(dst)
	if err != nil {
		return fmt.Errorf("compact %s: read copy: %w", db.path, err)
	}
	if got != want {
		return fmt.Errorf("compact %s: the copy differs from the original (%+v, want %+v); original kept", db.path, got, want)
	}
	ok = true
	if err := dst.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("compact %s: close %s: %w", db.path, tmp, err)
	}
	if err := os.Rename(tmp, db.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("compact %s: swap in %s: %w", db.path, tmp, err)
	}
	return syncDir(db.path)
}

type summary struct {
	records  int
	sequence uint64
	head     string
	lastKey  string
}

// auditSummary is what a compaction must preserve of the audit log.
func auditSummary(b *bolt.DB) (summary, error) {
	var s summary
	err := b.View(func(tx *bolt.Tx) error {
		a := tx.Bucket(bucketAudit)
		s.records = a.Stats().KeyN
		s.sequence = a.Sequence()
		s.head = string(tx.Bucket(bucketMeta).Get(keyAuditHead))
		if k, _ := a.Cursor().Last(); k != nil {
			s.lastKey = string(bytes.Clone(k))
		}
		return nil
	})
	return s, err
}

// syncDir makes the rename durable.
func syncDir(path string) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("sync directory of %s: %w", path, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync directory of %s: %w", path, err)
	}
	return nil
}
