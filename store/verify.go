package store

import (
	"errors"
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// verifyChunk is how many records one VerifyAudit read transaction covers,
// so verifying a large log never holds the file away from writers for long.
// A variable so tests can cross chunk boundaries cheaply.
var verifyChunk = 4096

// ChainError names the first audit record that breaks the hash chain.
type ChainError struct {
	ID     string // the record's id (its key when the stored id is unreadable)
	Reason string
}

func (e *ChainError) Error() string { return "audit record " + e.ID + ": " + e.Reason }

// VerifyAudit recomputes the hash chain from the first record to the head and
// returns the number of records checked. Any edit, deletion, insertion or
// reordering of records, and truncation of the tail, yields a *ChainError
// naming the first bad record; other errors mean the file could not be read.
func (db *DB) VerifyAudit() (n int, err error) {
	if db.isClosed() {
		return 0, fmt.Errorf("verify audit of %s: %w", db.path, ErrClosed)
	}
	var (
		start    uint64 = 1
		prevHash string
		prevID   string
		done     bool
	)
	for !done {
		err := db.view(func(tx *bolt.Tx) error {
			if err := checkSchema(tx); err != nil {
				return err
			}
			c := tx.Bucket(bucketAudit).Cursor()
			k, v := c.Seek(seqKey(start))
			for i := 0; i < verifyChunk; i++ {
				if k == nil {
					done = true
					return checkHead(tx, prevID, prevHash)
				}
				if err := checkRecord(k, v, prevID, prevHash); err != nil {
					return err
				}
				prevID = strconv.FormatUint(keySeq(k), 10)
				prevHash, _ = recordHash(v) // checkRecord proved it equals the stored hash
				n++
				start = keySeq(k) + 1
				k, v = c.Next()
			}
			return nil
		})
		if err != nil {
			var ce *ChainError
			if errors.As(err, &ce) {
				return n, ce
			}
			return n, fmt.Errorf("verify audit: %w", err)
		}
	}
	return n, nil
}

// checkRecord checks one stored record against its key and its predecessor.
func checkRecord(k, v []byte, prevID, prevHash string) error {
	id := strconv.FormatUint(keySeq(k), 10)
	r, err := decodeRecord(k, v)
	if err != nil {
		return &ChainError{ID: id, Reason: "is not a valid JSON audit record (edited)"}
	}
	if r.ID != id {
		return &ChainError{ID: id, Reason: fmt.Sprintf("key %s holds a record with id %q (records moved or reordered)", id, r.ID)}
	}
	if r.Prev != prevHash {
		if prevID == "" {
			return &ChainError{ID: id, Reason: "is the first record but its prev is not empty (earlier records deleted)"}
		}
		return &ChainError{ID: id, Reason: fmt.Sprintf("prev does not match the hash of record %s (a record between them was deleted or inserted, or records were reordered)", prevID)}
	}
	sum, err := recordHash(v)
	if err != nil {
		return &ChainError{ID: id, Reason: "cannot be canonicalized: " + err.Error()}
	}
	if sum != r.Hash {
		return &ChainError{ID: id, Reason: "hash does not match its content (record edited)"}
	}
	return nil
}

// checkHead compares the newest record with meta/audit_head, which catches a
// deleted tail that the chain alone cannot show.
func checkHead(tx *bolt.Tx, lastID, lastHash string) error {
	headID, headHash, err := parseHead(tx.Bucket(bucketMeta).Get(keyAuditHead))
	if err != nil {
		return err
	}
	if headID == 0 && lastID == "" {
		return nil
	}
	want := strconv.FormatUint(headID, 10)
	switch {
	case headID == 0:
		return &ChainError{ID: lastID, Reason: "the log has records but no head (meta edited)"}
	case lastID == "":
		return &ChainError{ID: want, Reason: "is missing: the head names it but the log is empty (records deleted)"}
	case want != lastID:
		return &ChainError{ID: want, Reason: fmt.Sprintf("is missing: the head names it but the log ends at record %s (tail deleted)", lastID)}
	case headHash != lastHash:
		return &ChainError{ID: lastID, Reason: "hash differs from the head's (record replaced)"}
	}
	return nil
}
