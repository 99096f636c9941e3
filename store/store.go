package store

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

// STUB: walking-skeleton store; the full store replaces it.

// ErrNotFound is returned for an unknown grant or session.
var ErrNotFound = errors.New("not found")

// Options tune Open.
type Options struct {
	LockTimeout time.Duration
}

// DB is one project's store.
type DB struct {
	path string
	bolt *bolt.DB
}

// DefaultPath is $XDG_STATE_HOME/perm-peer/<first 16 hex of sha256(root)>.db.
func DefaultPath(projectRoot string) (string, error) {
	state := os.Getenv("XDG_STATE_HOME")
	if state == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("default db path: %w", err)
		}
		state = filepath.Join(home, ".local", "state")
	}
	sum := sha256.Sum256([]byte(projectRoot))
	return filepath.Join(state, "perm-peer", hex.EncodeToString(sum[:])[:16]+".db"), nil
}

// Open opens or creates the store at path.
func Open(path string, opts Options) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open audit db %s: %w", path, err)
	}
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("open audit db %s: %w", path, err)
	}
	return &DB{path: path, bolt: b}, nil
}

// Path is the file the store lives in.
func (db *DB) Path() string { return db.path }

// Close closes the store.
func (db *DB) Close() error { return db.bolt.Close() }

// AppendAudit stores rec and returns it with ID, TS, Prev and Hash set, after
// the commit is durable.
func (db *DB) AppendAudit(ctx context.Context, rec protocol.AuditRecord) (protocol.AuditRecord, error) {
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("audit"))
		if err != nil {
			return err
		}
		seq, _ := b.NextSequence()
		rec.ID = strconv.FormatUint(seq, 10)
		rec.TS = time.Now().UTC().Format(time.RFC3339Nano)
		v, _ := json.Marshal(rec)
		sum := sha256.Sum256(v)
		rec.Hash = hex.EncodeToString(sum[:])
		v, _ = json.Marshal(rec)
		k := make([]byte, 8)
		binary.BigEndian.PutUint64(k, seq)
		return b.Put(k, v)
	})
	return rec, err
}

// AuditQuery selects audit records.
type AuditQuery struct {
	SessionID string
	After     string
	Limit     int
}

// Audit lists records oldest first; next is the id to pass as After for the
// following page, "" at the end.
func (db *DB) Audit(q AuditQuery) (recs []protocol.AuditRecord, next string, err error) {
	err = db.bolt.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("audit"))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			var r protocol.AuditRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			if q.SessionID == "" || r.SessionID == q.SessionID {
				recs = append(recs, r)
			}
			return nil
		})
	})
	return recs, "", err
}

// UserReplies returns the user-sourced records of a session and its parent,
// newest first, at most max.
func (db *DB) UserReplies(sessionID string, max int) ([]protocol.AuditRecord, error) {
	return nil, nil
}

// PutSession persists a session.
func (db *DB) PutSession(s protocol.Session) error { return nil }

// Session loads a session.
func (db *DB) Session(id string) (protocol.Session, error) {
	return protocol.Session{}, ErrNotFound
}

// AddGrant persists a grant, setting its ID and Created.
func (db *DB) AddGrant(g protocol.Grant) (protocol.Grant, error) { return g, nil }

// Grants lists the project's grants.
func (db *DB) Grants() ([]protocol.Grant, error) { return nil, nil }

// RevokeGrant deletes a grant; ErrNotFound if there is none with that id.
func (db *DB) RevokeGrant(id string) error { return ErrNotFound }
