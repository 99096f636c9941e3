package store

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

// AuditNewest lists records with an id below before ("" for the newest
// record), newest first, at most limit (default DefaultAuditLimit, clamped
// to MaxAuditLimit); next is the before of the following page, "" when
// there is none. A reader walking back until a time reads one page per
// transaction, so a long walk never holds the file away from a peer.
func (db *DB) AuditNewest(before string, limit int) (recs []protocol.AuditRecord, next string, err error) {
	if db.isClosed() {
		return nil, "", fmt.Errorf("read audit of %s: %w", db.path, ErrClosed)
	}
	if limit <= 0 {
		limit = DefaultAuditLimit
	}
	limit = min(limit, MaxAuditLimit)
	var end uint64 = math.MaxUint64
	if before != "" {
		b, err := strconv.ParseUint(before, 10, 64)
		if err != nil {
			return nil, "", fmt.Errorf("read audit: %w: before %q is not an audit id", ErrBadQuery, before)
		}
		if b <= 1 {
			return nil, "", nil
		}
		end = b - 1
	}
	err = db.view(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		c := tx.Bucket(bucketAudit).Cursor()
		k, v := c.Seek(seqKey(end))
		if k == nil || keySeq(k) > end {
			k, v = c.Prev()
		}
		for ; k != nil; k, v = c.Prev() {
			if len(recs) == limit {
				next = recs[len(recs)-1].ID
				return nil
			}
			r, err := decodeRecord(k, v)
			if err != nil {
				return err
			}
			recs = append(recs, r)
		}
		return nil
	})
	if err != nil {
		return nil, "", fmt.Errorf("read audit: %w", err)
	}
	return recs, next, nil
}

// AuditRecord returns the record with id; ErrNotFound when there is none.
func (db *DB) AuditRecord(id string) (protocol.AuditRecord, error) {
	seq, err := strconv.ParseUint(id, 10, 64)
	if err != nil || seq == 0 {
		return protocol.AuditRecord{}, fmt.Errorf("audit record %q: %w", id, ErrNotFound)
	}
	recs, _, err := db.AuditNewest(strconv.FormatUint(seq+1, 10), 1)
	if err != nil {
		return protocol.AuditRecord{}, err
	}
	if len(recs) == 0 || recs[0].ID != id {
		return protocol.AuditRecord{}, fmt.Errorf("audit record %q: %w", id, ErrNotFound)
	}
	return recs[0], nil
}

// Sessions lists every persisted session (in the order of their ids).
func (db *DB) Sessions() ([]protocol.Session, error) {
	if db.isClosed() {
		return nil, fmt.Errorf("list sessions of %s: %w", db.path, ErrClosed)
	}
	var out []protocol.Session
	err := db.view(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		return tx.Bucket(bucketSessions).ForEach(func(k, v []byte) error {
			var s protocol.Session
			if err := json.Unmarshal(v, &s); err != nil {
				return fmt.Errorf("%w: session at key %q: %v", ErrCorrupt, k, err)
			}
			out = append(out, s)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}
