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
//
// The members before them are skipped by skipJSON, which only matches
// brackets and string quotes: a tenth of the cost of json.Decoder's
// tokens, paid for every record the index is written for. The two values
// themselves are decoded strictly.
func readIndexFields(v []byte) (indexFields, error) {
	var f indexFields
	i := skipSpace(v, 0)
	if i == len(v) || v[i] != '{' {
		return f, errors.New("not a JSON object")
	}
	i = skipSpace(v, i+1)
	if i < len(v) && v[i] == '}' {
		return f, nil
	}
	var haveSession, haveSource bool
	for !(haveSession && haveSource) {
		if i == len(v) || v[i] != '"' {
			return f, fmt.Errorf("object key expected at offset %d", i)
		}
		keyEnd, err := skipJSON(v, i)
		if err != nil {
			return f, err
		}
		key := v[i:keyEnd]
		if bytes.IndexByte(key, '\\') >= 0 { // an escaped key: compare what it denotes
			var k string
			if err := json.Unmarshal(key, &k); err != nil {
				return f, err
			}
			key, _ = json.Marshal(k)
		}
		i = skipSpace(v, keyEnd)
		if i == len(v) || v[i] != ':' {
			return f, fmt.Errorf("':' expected at offset %d", i)
		}
		i = skipSpace(v, i+1)
		end, err := skipJSON(v, i)
		if err != nil {
			return f, err
		}
		switch string(key) {
		case `"sessionId"`:
			err, haveSession = json.Unmarshal(v[i:end], &f.SessionID), true
		case `"source"`:
			err, haveSource = json.Unmarshal(v[i:end], &f.Source), true
		}
		if err != nil {
			return f, err
		}
		i = skipSpace(v, end)
		switch {
		case i < len(v) && v[i] == ',':
			i = skipSpace(v, i+1)
		case i < len(v) && v[i] == '}':
			return f, nil
		default:
			return f, fmt.Errorf("',' or '}' expected at offset %d", i)
		}
	}
	return f, nil
}

// skipSpace returns the offset of the first non-whitespace byte at or after i.
func skipSpace(v []byte, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\n' || v[i] == '\r') {
		i++
	}
	return i
}

// skipJSON returns the offset just after the JSON value starting at v[i]. It
// matches quotes (with their escapes) and brackets and nothing more: a
// malformed value inside is skipped, not reported, and an unterminated one
// is an error.
func skipJSON(v []byte, i int) (int, error) {
	if i >= len(v) {
		return 0, fmt.Errorf("value expected at offset %d", i)
	}
	switch v[i] {
	case '"':
		return skipString(v, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(v); j++ {
			switch v[j] {
			case '"':
				end, err := skipString(v, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, fmt.Errorf("unterminated value at offset %d", i)
	}
	j := i // a number or literal: up to the next delimiter
	for j < len(v) && !isDelimiter(v[j]) {
		j++
	}
	if j == i {
		return 0, fmt.Errorf("value expected at offset %d", i)
	}
	return j, nil
}

// isDelimiter reports whether b ends a number or literal.
func isDelimiter(b byte) bool {
	switch b {
	case ',', ':', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// skipString returns the offset just after the string literal at v[i].
func skipString(v []byte, i int) (int, error) {
	for j := i + 1; j < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, fmt.Errorf("unterminated string at offset %d", i)
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
