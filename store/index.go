package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

// The per-session index (audit_by_session/<session>: 'a'+key for every
// record, 'u'+key for user replies) is derived data, written in arrears.
//
// Invariant: meta/audit_indexed holds the sequence number up to which every
// record is in the index; records after it (the tail, fewer than
// indexBatch) are not, and every reader of the index also scans the tail.
// An append brings the index up to date, in its own transaction, once
// indexBatch records are pending. Updating the index with every record
// dirtied three more pages per commit (the session bucket's branch and leaf
// and the parent bucket's leaf) and made an append cost ~1.2 durable
// commits instead of ~1.0 (docs/PERFORMANCE.md).
const indexBatch = 32

// keyAuditIndexed is the meta key of the index watermark (decimal).
var keyAuditIndexed = []byte("audit_indexed")

// indexFields are the fields of a stored record the index needs; decoding
// only them is cheaper than a whole record.
type indexFields struct {
	SessionID string          `json:"sessionId"`
	Source    protocol.Source `json:"source"`
}

// indexedUpTo reads the watermark. Schema 2 always has it.
func indexedUpTo(tx *bolt.Tx) (uint64, error) {
	v := tx.Bucket(bucketMeta).Get(keyAuditIndexed)
	n, err := strconv.ParseUint(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: audit index watermark %q is malformed", ErrCorrupt, v)
	}
	return n, nil
}

func putIndexedUpTo(tx *bolt.Tx, seq uint64) error {
	if err := tx.Bucket(bucketMeta).Put(keyAuditIndexed, []byte(strconv.FormatUint(seq, 10))); err != nil {
		return fmt.Errorf("put audit index watermark: %w", err)
	}
	return nil
}

// indexPending indexes the tail when it has grown to indexBatch records;
// head is the newest sequence number in tx.
func indexPending(tx *bolt.Tx, head uint64) error {
	done, err := indexedUpTo(tx)
	if err != nil {
		return err
	}
	if head-done < indexBatch {
		return nil
	}
	return indexTail(tx, done, head)
}

// indexTail indexes the records after done, up to head, and moves the
// watermark to head.
func indexTail(tx *bolt.Tx, done, head uint64) error {
	var ferr error
	scanTail(tx, done, func(k []byte, f indexFields) bool {
		ferr = indexRecord(tx, k, f)
		return ferr == nil
	}, &ferr)
	if ferr != nil {
		return ferr
	}
	return putIndexedUpTo(tx, head)
}

// scanTail calls fn for each record after sequence number after, oldest
// first, until fn returns false. A record that does not decode stops the
// scan with ErrCorrupt in *ferr.
func scanTail(tx *bolt.Tx, after uint64, fn func(k []byte, f indexFields) bool, ferr *error) {
	c := tx.Bucket(bucketAudit).Cursor()
	for k, v := c.Seek(seqKey(after + 1)); k != nil; k, v = c.Next() {
		f, err := readIndexFields(v)
		if err != nil {
			*ferr = fmt.Errorf("%w: audit record at key %d: %v", ErrCorrupt, keySeq(k), err)
			return
		}
		if !fn(k, f) {
			return
		}
	}
}

// readIndexFields reads sessionId and source from a stored record and stops
// there. Records are stored with their keys sorted, so both come before
// toolCall, which holds the call's whole input and can be large: decoding
// the whole record (as json.Unmarshal does, validating all of it first)
// made every index reader's cost grow with the tail's biggest inputs. A
// record in another key order is read further, until both are found.
func readIndexFields(v []byte) (indexFields, error) {
	var f indexFields
	dec := json.NewDecoder(bytes.NewReader(v))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return f, fmt.Errorf("not a JSON object")
	}
	var haveSession, haveSource bool
	for dec.More() && !(haveSession && haveSource) {
		t, err := dec.Token()
		if err != nil {
			return f, err
		}
		key, _ := t.(string)
		switch key {
		case "sessionId":
			err, haveSession = dec.Decode(&f.SessionID), true
		case "source":
			err, haveSource = dec.Decode(&f.Source), true
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

// indexRecord adds the record under key k to its session's index.
func indexRecord(tx *bolt.Tx, k []byte, f indexFields) error {
	if f.SessionID == "" {
		return nil
	}
	sb, err := tx.Bucket(bucketBySession).CreateBucketIfNotExists(sessionKey(f.SessionID))
	if err != nil {
		return fmt.Errorf("index audit record %d: %w", keySeq(k), err)
	}
	if err := sb.Put(idxKey(idxAll, k), []byte{}); err != nil {
		return fmt.Errorf("index audit record %d: %w", keySeq(k), err)
	}
	if f.Source == protocol.SourceUser {
		if err := sb.Put(idxKey(idxUser, k), []byte{}); err != nil {
			return fmt.Errorf("index audit record %d: %w", keySeq(k), err)
		}
	}
	return nil
}

// sessionKeys calls fn with the audit key of each record of session whose
// sequence number is at least start, oldest first, until fn returns false:
// the indexed ones, then the tail's.
func sessionKeys(tx *bolt.Tx, session string, start uint64, fn func(k []byte) bool) error {
	done, err := indexedUpTo(tx)
	if err != nil {
		return err
	}
	if sb := tx.Bucket(bucketBySession).Bucket(sessionKey(session)); sb != nil && start <= done {
		c := sb.Cursor()
		for k, _ := c.Seek(idxKey(idxAll, seqKey(start))); k != nil && k[0] == idxAll; k, _ = c.Next() {
			if !fn(k[1:]) {
				return nil
			}
		}
	}
	after := done // the tail starts after the watermark, or at start
	if start > done+1 {
		after = start - 1
	}
	var ferr error
	scanTail(tx, after, func(k []byte, f indexFields) bool {
		return f.SessionID != session || fn(k)
	}, &ferr)
	return ferr
}

// newestUserSeqs lists the session's user replies newest first, at most
// max: the tail's, then the index's.
func newestUserSeqs(tx *bolt.Tx, sessionID string, max int) ([]uint64, error) {
	done, err := indexedUpTo(tx)
	if err != nil {
		return nil, err
	}
	var tail []uint64
	var ferr error
	scanTail(tx, done, func(k []byte, f indexFields) bool {
		if f.SessionID == sessionID && f.Source == protocol.SourceUser {
			tail = append(tail, keySeq(k))
		}
		return true
	}, &ferr)
	if ferr != nil {
		return nil, ferr
	}
	var seqs []uint64
	for i := len(tail) - 1; i >= 0 && len(seqs) < max; i-- {
		seqs = append(seqs, tail[i])
	}
	sb := tx.Bucket(bucketBySession).Bucket(sessionKey(sessionID))
	if sb == nil {
		return seqs, nil
	}
	c := sb.Cursor()
	k, _ := c.Seek([]byte{idxUser + 1})
	if k == nil {
		k, _ = c.Last()
	} else {
		k, _ = c.Prev()
	}
	for ; k != nil && k[0] == idxUser && len(seqs) < max; k, _ = c.Prev() {
		seqs = append(seqs, keySeq(k[1:]))
	}
	return seqs, nil
}
