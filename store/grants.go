package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

// AddGrant persists g, setting its ID (decimal of its sequence key) and
// Created. Adding a Pattern that is already granted returns the existing
// grant unchanged: one pattern, one grant.
func (db *DB) AddGrant(g protocol.Grant) (protocol.Grant, error) {
	if db.isClosed() {
		return g, fmt.Errorf("add grant to %s: %w", db.path, ErrClosed)
	}
	if g.Pattern == "" {
		return g, fmt.Errorf("add grant: empty pattern")
	}
	err := db.update(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		b := tx.Bucket(bucketGrants)
		existing, err := listGrants(b)
		if err != nil {
			return err
		}
		for _, e := range existing {
			if e.Pattern == g.Pattern {
				g = e
				return nil
			}
		}
		seq, err := b.NextSequence()
		if err != nil {
			return fmt.Errorf("next grant sequence: %w", err)
		}
		g.ID = strconv.FormatUint(seq, 10)
		g.Created = time.Now().UTC().Format(time.RFC3339Nano)
		v, err := json.Marshal(g)
		if err != nil {
			return fmt.Errorf("encode grant: %w", err)
		}
		return b.Put(seqKey(seq), v)
	})
	if err != nil {
		return g, fmt.Errorf("add grant %q: %w", g.Pattern, err)
	}
	return g, nil
}

// Grants lists the project's grants, oldest first.
func (db *DB) Grants() ([]protocol.Grant, error) {
	if db.isClosed() {
		return nil, fmt.Errorf("list grants of %s: %w", db.path, ErrClosed)
	}
	var out []protocol.Grant
	err := db.view(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		var err error
		out, err = listGrants(tx.Bucket(bucketGrants))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list grants: %w", err)
	}
	return out, nil
}

// AllGrants lists the project's grants, oldest first, then its sessions'
// own (perm-peer allow --session), by session then pattern: everything
// that may clear a call of this project without asking.
func (db *DB) AllGrants() ([]protocol.Grant, error) {
	grants, err := db.Grants()
	if err != nil {
		return nil, err
	}
	own, err := db.AllSessionGrants()
	return append(grants, own...), err
}

// RevokeGrant deletes a grant, the project's or a session's
// (IsSessionGrantID); ErrNotFound if there is none with that id.
func (db *DB) RevokeGrant(id string) error {
	if db.isClosed() {
		return fmt.Errorf("revoke grant %q in %s: %w", id, db.path, ErrClosed)
	}
	if IsSessionGrantID(id) {
		return db.revokeGrantIn(id, revokeSessionGrant)
	}
	seq, err := strconv.ParseUint(id, 10, 64)
	if err != nil || seq == 0 {
		return ErrNotFound
	}
	return db.revokeGrantIn(id, func(tx *bolt.Tx, _ string) error {
		b := tx.Bucket(bucketGrants)
		if b.Get(seqKey(seq)) == nil {
			return ErrNotFound
		}
		return b.Delete(seqKey(seq))
	})
}

// revokeGrantIn runs del for grant id in a write transaction.
func (db *DB) revokeGrantIn(id string, del func(*bolt.Tx, string) error) error {
	err := db.update(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		return del(tx, id)
	})
	if errors.Is(err, ErrNotFound) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("revoke grant %q: %w", id, err)
	}
	return nil
}

func listGrants(b *bolt.Bucket) ([]protocol.Grant, error) {
	var out []protocol.Grant
	err := b.ForEach(func(k, v []byte) error {
		var g protocol.Grant
		if err := json.Unmarshal(v, &g); err != nil {
			return fmt.Errorf("%w: grant %d: %v", ErrCorrupt, keySeq(k), err)
		}
		out = append(out, g)
		return nil
	})
	return out, err
}
