package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

// Audit query bounds.
const (
	DefaultAuditLimit  = 100   // Audit page size when AuditQuery.Limit <= 0
	MaxAuditLimit      = 10000 // larger limits are clamped
	DefaultUserReplies = 200   // UserReplies bound when max <= 0
)

// Per-session index key prefixes inside audit_by_session/<session>.
const (
	idxAll  byte = 'a' // every record of the session
	idxUser byte = 'u' // records with Source == "user"
)

// maxSessionKey bounds a session id used verbatim as a bucket name; longer
// ids are hashed so no id can make an append fail.
const maxSessionKey = 256

type appendReq struct {
	ctx  context.Context
	rec  protocol.AuditRecord
	enc  encodedRecord  // rec's members but id, ts, prev and hash
	done chan appendRes // buffered: a committer never blocks on a caller
}

type appendRes struct {
	rec protocol.AuditRecord
	err error
}

// AppendAudit stores rec and returns it with ID (decimal of its big-endian
// sequence key), TS, Prev and Hash set, only after the transaction holding it
// is committed and fsynced. Concurrent callers share one transaction (group
// commit). An error means the caller must not act on the decision; if ctx
// ends while the commit is in flight the record may still be stored. A
// caller that finds no commit running runs one itself and returns only when
// it ends (at most the lock timeout), whatever ctx does.
func (db *DB) AppendAudit(ctx context.Context, rec protocol.AuditRecord) (protocol.AuditRecord, error) {
	if err := ctx.Err(); err != nil {
		return rec, fmt.Errorf("append audit record: %w", err)
	}
	// Encode here, outside the serialized commit; and what cannot be
	// encoded is rejected here, so one bad record cannot fail the batch it
	// would have joined.
	enc, err := encodeRecord(rec)
	if err != nil {
		return rec, fmt.Errorf("append audit record: %w", err)
	}
	req := &appendReq{ctx: ctx, rec: rec, enc: enc, done: make(chan appendRes, 1)}
	db.closeMu.RLock()
	if db.closed {
		db.closeMu.RUnlock()
		return rec, fmt.Errorf("append audit record to %s: %w", db.path, ErrClosed)
	}
	lead := db.enqueue(req)
	db.closeMu.RUnlock()
	if lead {
		db.commitQueued()
	}
	select {
	case res := <-req.done:
		return res.rec, res.err
	case <-ctx.Done():
		return rec, fmt.Errorf("append audit record (it may still be committed): %w", ctx.Err())
	}
}

// Group commit without a writer goroutine. Invariant (under queueMu): the
// queue is non-empty only while leading is true, so the caller that finds
// leading false is alone in the queue and commits its own record at once,
// with no hand-off to another goroutine and back (on this kind of 2-core
// machine each hand-off is a thread wake-up, tens of µs). Callers that
// arrive during a commit queue up; the leader's successor commits them all
// in the next transaction.

// enqueue adds req to the queue and reports whether the caller must lead.
// The caller holds closeMu for reading, so Close's wait covers the commit.
func (db *DB) enqueue(req *appendReq) (lead bool) {
	db.queueMu.Lock()
	defer db.queueMu.Unlock()
	db.queue = append(db.queue, req)
	if db.leading {
		return false
	}
	db.leading = true
	db.committing.Add(1)
	return true
}

// commitQueued commits up to MaxBatch queued requests in one transaction.
// If more arrived meanwhile, a new goroutine commits them, so the caller can
// reply now; otherwise leadership ends.
func (db *DB) commitQueued() {
	db.queueMu.Lock()
	n := min(len(db.queue), db.opts.MaxBatch)
	batch := make([]*appendReq, n)
	copy(batch, db.queue)
	rest := copy(db.queue, db.queue[n:])
	clear(db.queue[rest:]) // the backing array must not keep answered requests
	db.queue = db.queue[:rest]
	db.queueMu.Unlock()

	db.commitBatch(batch)

	db.queueMu.Lock()
	if len(db.queue) > 0 {
		db.queueMu.Unlock()
		go db.commitQueued()
		return
	}
	db.leading = false
	db.queueMu.Unlock()
	db.committing.Done()
}

func (db *DB) commitBatch(batch []*appendReq) {
	live := batch[:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.done <- appendRes{rec: r.rec, err: fmt.Errorf("append audit record: %w", err)}
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	recs := make([]protocol.AuditRecord, len(live))
	encs := make([]encodedRecord, len(live))
	for i, r := range live {
		recs[i], encs[i] = r.rec, r.enc
	}
	err := db.update(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		return appendRecords(tx, recs, encs)
	})
	if err == nil {
		db.batches.Add(1)
	}
	for i, r := range live {
		if err != nil {
			r.done <- appendRes{rec: r.rec, err: fmt.Errorf("append audit record: %w", err)}
			continue
		}
		r.done <- appendRes{rec: recs[i]}
	}
}

// appendRecords chains recs after the current head inside tx, filling in
// their ID, TS, Prev and Hash. The previous hash comes from meta/audit_head
// read in this same write transaction, so the chain stays linear across
// processes; using the head (not the last record) also means a truncated
// tail stays detectable after later appends.
func appendRecords(tx *bolt.Tx, recs []protocol.AuditRecord, encs []encodedRecord) error {
	audit := tx.Bucket(bucketAudit)
	// Keys only ever grow: fill pages before splitting them, so a batch
	// writes fewer pages (bbolt's advice for append-only buckets).
	audit.FillPercent = 1.0
	meta := tx.Bucket(bucketMeta)
	head, prev, err := parseHead(meta.Get(keyAuditHead))
	if err != nil {
		return err
	}
	for i := range recs {
		r := &recs[i]
		seq, err := audit.NextSequence()
		if err != nil {
			return fmt.Errorf("next audit sequence: %w", err)
		}
		k := seqKey(seq)
		r.ID = strconv.FormatUint(seq, 10)
		r.TS = time.Now().UTC().Format(time.RFC3339Nano)
		r.Prev = prev
		unhashed, err := encs[i].bytes(r.ID, r.TS, r.Prev, "")
		if err != nil {
			return fmt.Errorf("encode audit record %s: %w", r.ID, err)
		}
		sum := sha256.Sum256(unhashed)
		r.Hash = hex.EncodeToString(sum[:])
		v, err := encs[i].bytes(r.ID, r.TS, r.Prev, r.Hash)
		if err != nil {
			return fmt.Errorf("encode audit record %s: %w", r.ID, err)
		}
		if err := audit.Put(k, v); err != nil {
			return fmt.Errorf("put audit record %s: %w", r.ID, err)
		}
		prev = r.Hash
		head = seq
	}
	last := recs[len(recs)-1]
	if err := meta.Put(keyAuditHead, []byte(last.ID+" "+last.Hash)); err != nil {
		return fmt.Errorf("put audit head: %w", err)
	}
	return indexPending(tx, head)
}

// recordHash is the hex sha256 of the record's canonical encoding: its JSON
// object with "hash" set to "", keys sorted, no insignificant whitespace, no
// HTML escaping, numbers kept as written. It is computed from the stored
// bytes rather than the Go struct, so a record stays verifiable after
// protocol.AuditRecord gains or loses fields.
func recordHash(stored []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(stored))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return "", fmt.Errorf("decode: %w", err)
	}
	if dec.More() {
		return "", fmt.Errorf("trailing data after the record")
	}
	m[memberHash] = ""
	canonical, err := canonicalValue(m)
	if err != nil {
		return "", fmt.Errorf("encode: %w", err)
	}
	sum := sha256.Sum256(canonical)
	return hex.EncodeToString(sum[:]), nil
}

func seqKey(seq uint64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, seq)
	return k
}

func keySeq(k []byte) uint64 { return binary.BigEndian.Uint64(k) }

func idxKey(prefix byte, k []byte) []byte {
	return append([]byte{prefix}, k...)
}

func sessionKey(id string) []byte {
	if len(id) <= maxSessionKey {
		return []byte(id)
	}
	sum := sha256.Sum256([]byte(id))
	return []byte("#sha256:" + hex.EncodeToString(sum[:]))
}

// parseHead decodes meta/audit_head ("<id> <hash>"); absent means empty log.
func parseHead(v []byte) (id uint64, hash string, err error) {
	if v == nil {
		return 0, "", nil
	}
	idStr, hash, ok := strings.Cut(string(v), " ")
	id, perr := strconv.ParseUint(idStr, 10, 64)
	if !ok || perr != nil {
		return 0, "", fmt.Errorf("%w: audit head %q is malformed", ErrCorrupt, v)
	}
	return id, hash, nil
}

func decodeRecord(k, v []byte) (protocol.AuditRecord, error) {
	var r protocol.AuditRecord
	if err := json.Unmarshal(v, &r); err != nil {
		return r, fmt.Errorf("%w: audit record at key %d: %v", ErrCorrupt, keySeq(k), err)
	}
	// The decoded strings are UTF-8 (encoding/json replaces bad bytes), but
	// raw input is copied as stored: a damaged record must not put bytes
	// that are not UTF-8 on the peer's wire or into `audit --json`.
	// VerifyAudit still flags the record, from its stored bytes.
	if raw := r.ToolCall.RawInput; !utf8.Valid(raw) {
		if c, err := canonicalJSON(raw); err == nil && utf8.Valid(c) {
			r.ToolCall.RawInput = c
		} else {
			r.ToolCall.RawInput = nil
		}
	}
	return r, nil
}

// AuditQuery selects audit records: all of them or one session's, those with
// an id greater than After, at most Limit (default DefaultAuditLimit, clamped
// to MaxAuditLimit).
type AuditQuery struct {
	SessionID string
	After     string
	Limit     int
}

// Audit lists records oldest first; next is the id to pass as After for the
// following page, "" when there is none.
func (db *DB) Audit(q AuditQuery) (recs []protocol.AuditRecord, next string, err error) {
	if db.isClosed() {
		return nil, "", fmt.Errorf("read audit of %s: %w", db.path, ErrClosed)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultAuditLimit
	}
	limit = min(limit, MaxAuditLimit)
	var start uint64 = 1
	if q.After != "" {
		after, err := strconv.ParseUint(q.After, 10, 64)
		if err != nil {
			return nil, "", fmt.Errorf("read audit: %w: after %q is not an audit id", ErrBadQuery, q.After)
		}
		if after == math.MaxUint64 {
			return nil, "", nil // nothing can follow it (and after+1 would wrap to the start)
		}
		start = after + 1
	}
	err = db.view(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		audit := tx.Bucket(bucketAudit)
		// keys yields audit keys in order; it stops at the end or when fn
		// returns false.
		keys := func(fn func(k []byte) bool) error {
			c := audit.Cursor()
			for k, _ := c.Seek(seqKey(start)); k != nil && fn(k); k, _ = c.Next() {
			}
			return nil
		}
		if q.SessionID != "" {
			keys = func(fn func(k []byte) bool) error { return sessionKeys(tx, q.SessionID, start, fn) }
		}
		var ferr error
		err := keys(func(k []byte) bool {
			if len(recs) == limit {
				next = recs[len(recs)-1].ID
				return false
			}
			v := audit.Get(k)
			if v == nil {
				ferr = fmt.Errorf("%w: session index names missing audit record %d", ErrCorrupt, keySeq(k))
				return false
			}
			r, err := decodeRecord(k, v)
			if err != nil {
				ferr = err
				return false
			}
			recs = append(recs, r)
			return true
		})
		if err != nil {
			return err
		}
		return ferr
	})
	if err != nil {
		return nil, "", fmt.Errorf("read audit: %w", err)
	}
	return recs, next, nil
}

// UserReplies returns the records with Source "user" of sessionID and of its
// parent session (as persisted by PutSession), newest first, at most max
// (DefaultUserReplies when max <= 0). It reads only the two sessions' user
// index ranges, so its cost does not grow with the size of the audit log.
func (db *DB) UserReplies(sessionID string, max int) ([]protocol.AuditRecord, error) {
	if db.isClosed() {
		return nil, fmt.Errorf("read user replies from %s: %w", db.path, ErrClosed)
	}
	if max <= 0 {
		max = DefaultUserReplies
	}
	var out []protocol.AuditRecord
	err := db.view(func(tx *bolt.Tx) error {
		if err := checkSchema(tx); err != nil {
			return err
		}
		sessions := []string{sessionID}
		if s, err := getSession(tx, sessionID); err == nil && s.ParentID != "" && s.ParentID != sessionID {
			sessions = append(sessions, s.ParentID)
		} else if err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
		var lists [][]uint64
		for _, id := range sessions {
			seqs, err := newestUserSeqs(tx, id, max)
			if err != nil {
				return err
			}
			lists = append(lists, seqs)
		}
		audit := tx.Bucket(bucketAudit)
		for _, seq := range mergeDesc(lists, max) {
			k := seqKey(seq)
			v := audit.Get(k)
			if v == nil {
				return fmt.Errorf("%w: session index names missing audit record %d", ErrCorrupt, seq)
			}
			r, err := decodeRecord(k, v)
			if err != nil {
				return err
			}
			out = append(out, r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read user replies of session %q: %w", sessionID, err)
	}
	return out, nil
}

// mergeDesc merges descending lists into one descending list of at most max.
func mergeDesc(lists [][]uint64, max int) []uint64 {
	var out []uint64
	pos := make([]int, len(lists))
	for len(out) < max {
		best := -1
		for i, l := range lists {
			if pos[i] < len(l) && (best < 0 || l[pos[i]] > lists[best][pos[best]]) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		out = append(out, lists[best][pos[best]])
		pos[best]++
	}
	return out
}
