package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
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
					if err := checkHead(tx, prevID, prevHash); err != nil {
						return err
					}
					return checkGrants(tx)
				}
				if seq := keySeq(k); seq != start {
					return missingRecords(start, seq)
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
			var ge *GrantError
			if errors.As(err, &ge) {
				return n, ge
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
	// Records are stored canonically: anything else (a repeated key, which
	// the hash's decoding would fold away; bytes that are not UTF-8) was
	// written by someone else.
	if canon, err := canonicalJSON(v); err != nil || !bytes.Equal(canon, v) {
		return &ChainError{ID: id, Reason: "is not stored in canonical form (edited: a repeated key, bytes that are not UTF-8, or reformatting)"}
	}
	if sum != r.Hash {
		return &ChainError{ID: id, Reason: "hash does not match its content (record edited)"}
	}
	return nil
}

// missingRecords reports a gap: the record after the last good one (want)
// is absent and the log goes on at got.
func missingRecords(want, got uint64) error {
	what := fmt.Sprintf("records %d to %d are", want, got-1)
	if got-1 == want {
		what = fmt.Sprintf("record %d is", want)
	}
	if want == 1 {
		return &ChainError{ID: strconv.FormatUint(got, 10), Reason: fmt.Sprintf("is the first record, not 1: %s missing (earliest records deleted)", what)}
	}
	return &ChainError{ID: strconv.FormatUint(got, 10), Reason: fmt.Sprintf("follows record %d: %s missing (deleted)", want-1, what)}
}

// checkHead compares the newest record with meta/audit_head, and both with
// the audit bucket's sequence (the id of the last record ever appended),
// which catches a deleted tail that the chain alone cannot show, even when
// the head was edited to match.
func checkHead(tx *bolt.Tx, lastID, lastHash string) error {
	headID, headHash, err := parseHead(tx.Bucket(bucketMeta).Get(keyAuditHead))
	if err != nil {
		return err
	}
	if seq := tx.Bucket(bucketAudit).Sequence(); seq != headID {
		last := lastID
		if last == "" {
			last = "none"
		}
		return &ChainError{ID: strconv.FormatUint(seq, 10), Reason: fmt.Sprintf("is missing: it was appended (the audit sequence is %d) but the head names record %d and the log ends at record %s (records and head edited)", seq, headID, last)}
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

// GrantError names a grant that no audit record accounts for.
type GrantError struct {
	ID     string // the grant's id
	Reason string
}

func (e *GrantError) Error() string { return "grant " + e.ID + ": " + e.Reason }

// checkGrants ties every persistent grant, the project's and the
// sessions', to the chain: its auditId must name a record (already
// verified) in which the user answered "always" to exactly this pattern. A
// grant written into the file directly has none.
func checkGrants(tx *bolt.Tx) error {
	grants, err := listGrants(tx.Bucket(bucketGrants))
	if err != nil {
		return &GrantError{ID: "?", Reason: err.Error()}
	}
	own, err := listSessionGrants(tx.Bucket(bucketSessionGrants), nil)
	if err != nil {
		return &GrantError{ID: "?", Reason: err.Error()}
	}
	grants = append(grants, own...)
	audit := tx.Bucket(bucketAudit)
	for _, g := range grants {
		seq, err := strconv.ParseUint(g.AuditID, 10, 64)
		if err != nil || seq == 0 {
			return &GrantError{ID: g.ID, Reason: fmt.Sprintf("%q names no audit record (auditId %q): not granted through perm-peer", g.Pattern, g.AuditID)}
		}
		v := audit.Get(seqKey(seq))
		if v == nil {
			return &GrantError{ID: g.ID, Reason: fmt.Sprintf("%q names audit record %s, which does not exist", g.Pattern, g.AuditID)}
		}
		var r protocol.AuditRecord
		if err := json.Unmarshal(v, &r); err != nil {
			return &GrantError{ID: g.ID, Reason: fmt.Sprintf("audit record %s is not readable", g.AuditID)}
		}
		switch {
		case r.Decision != protocol.ReplyAlways || r.Source != protocol.SourceUser:
			return &GrantError{ID: g.ID, Reason: fmt.Sprintf("%q names audit record %s, which is not the user's \"always\" (decision %s, source %s)", g.Pattern, g.AuditID, r.Decision, r.Source)}
		case r.Grant != g.Pattern:
			return &GrantError{ID: g.ID, Reason: fmt.Sprintf("%q names audit record %s, which granted %q", g.Pattern, g.AuditID, r.Grant)}
		case g.SessionID != "" && r.SessionID != g.SessionID:
			return &GrantError{ID: g.ID, Reason: fmt.Sprintf("%q names audit record %s of another session", g.Pattern, g.AuditID)}
		}
	}
	return nil
}
