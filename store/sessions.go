package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

// PutSession persists s under s.ID, so a subagent opened later (even by
// another process or after a restart) finds its parent. Created is set on
// first write and kept on later writes.
func (db *DB) PutSession(s protocol.Session) error {
	if db.isClosed() {
		return fmt.Errorf("put session %q in %s: %w", s.ID, db.path, ErrClosed)
	}
	if s.ID == "" {
		return fmt.Errorf("put session: empty session id")
	}
	err := db.update(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		old, err := getSession(tx, s.ID)
		switch {
		case err == nil && old.Created != "":
			s.Created = old.Created
		case s.Created == "":
			s.Created = time.Now().UTC().Format(time.RFC3339Nano)
		}
		v, err := json.Marshal(s)
		if err != nil {
			return fmt.Errorf("encode session: %w", err)
		}
		return tx.Bucket(bucketSessions).Put(sessionKey(s.ID), v)
	})
	if err != nil {
		return fmt.Errorf("put session %q: %w", s.ID, err)
	}
	return nil
}

// Session loads a session; ErrNotFound if it was never put.
func (db *DB) Session(id string) (protocol.Session, error) {
	if db.isClosed() {
		return protocol.Session{}, fmt.Errorf("read session %q from %s: %w", id, db.path, ErrClosed)
	}
	var s protocol.Session
	err := db.view(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		var err error
		s, err = getSession(tx, id)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return protocol.Session{}, ErrNotFound
	}
	if err != nil {
		return protocol.Session{}, fmt.Errorf("read session %q: %w", id, err)
	}
	return s, nil
}

// getSession returns ErrNotFound itself (unwrapped) when the id is unknown.
func getSession(tx *bolt.Tx, id string) (protocol.Session, error) {
	var s protocol.Session
	if id == "" {
		return s, ErrNotFound
	}
	v := tx.Bucket(bucketSessions).Get(sessionKey(id))
	if v == nil {
		return s, ErrNotFound
	}
	if err := json.Unmarshal(v, &s); err != nil {
		return s, fmt.Errorf("%w: session %q: %v", ErrCorrupt, id, err)
	}
	return s, nil
}
