package store

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

// indexed lists the audit ids in session's index (not the tail).
func indexed(t *testing.T, db *DB, session string, prefix byte) []string {
	t.Helper()
	var out []string
	require.NoError(t, db.view(func(tx *bolt.Tx) error {
		sb := tx.Bucket(bucketBySession).Bucket(sessionKey(session))
		if sb == nil {
			return nil
		}
		return sb.ForEach(func(k, _ []byte) error {
			if k[0] == prefix {
				out = append(out, strconv.FormatUint(keySeq(k[1:]), 10))
			}
			return nil
		})
	}))
	return out
}

func watermark(t *testing.T, db *DB) uint64 {
	t.Helper()
	var n uint64
	require.NoError(t, db.view(func(tx *bolt.Tx) (err error) { n, err = indexedUpTo(tx); return err }))
	return n
}

func seqIDs(from, to, step int) []string {
	var out []string
	for i := from; i <= to; i += step {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

// TestIndexInArrears: the index is written indexBatch records at a time,
// and every query sees the records after the watermark too.
func TestIndexInArrears(t *testing.T) {
	db := openTemp(t)
	require.NoError(t, db.PutSession(protocol.Session{ID: "child", ParentID: "parent"}))
	const n = 3*indexBatch + 5 // 101: ids 1..101, odd in "child", even in "parent"
	for i := 1; i <= n; i++ {
		session, src := "child", protocol.SourceAuto
		if i%2 == 0 {
			session = "parent"
		}
		if i%5 == 0 {
			src = protocol.SourceUser
		}
		_, err := db.AppendAudit(context.Background(), record(session, src, fmt.Sprint("cmd ", i)))
		require.NoError(t, err)
	}
	require.Equal(t, uint64(3*indexBatch), watermark(t, db), "one index update per indexBatch appends")
	assert.Equal(t, seqIDs(1, 3*indexBatch-1, 2), indexed(t, db, "child", idxAll), "only records up to the watermark are indexed")
	assert.Equal(t, seqIDs(5, 3*indexBatch, 10), indexed(t, db, "child", idxUser))

	recs, next, err := db.Audit(AuditQuery{SessionID: "child", Limit: 1000})
	require.NoError(t, err)
	assert.Equal(t, seqIDs(1, n, 2), ids(recs), "index, then tail")
	assert.Empty(t, next)

	// Pages of 7 walk across the watermark without loss or repeat.
	var paged []string
	after := ""
	for {
		page, next, err := db.Audit(AuditQuery{SessionID: "parent", After: after, Limit: 7})
		require.NoError(t, err)
		paged = append(paged, ids(page)...)
		if next == "" {
			break
		}
		after = next
	}
	assert.Equal(t, seqIDs(2, n, 2), paged)

	// A page that starts inside the tail.
	recs, _, err = db.Audit(AuditQuery{SessionID: "child", After: strconv.Itoa(n - 4)})
	require.NoError(t, err)
	assert.Equal(t, []string{strconv.Itoa(n - 2), strconv.Itoa(n)}, ids(recs))

	// User replies of the child and its parent, newest first: 100 (tail,
	// parent), 95 (child, indexed), 90, ...
	user, err := db.UserReplies("child", 4)
	require.NoError(t, err)
	assert.Equal(t, []string{"100", "95", "90", "85"}, ids(user))

	n2, err := db.VerifyAudit()
	require.NoError(t, err)
	assert.Equal(t, n, n2)
}

// A batch that crosses the threshold indexes everything pending, including
// itself, in its own transaction.
func TestIndexBatchIndexesItself(t *testing.T) {
	db := openTemp(t)
	recs := make([]protocol.AuditRecord, indexBatch+3)
	for i := range recs {
		recs[i] = record("s", protocol.SourceUser, fmt.Sprint(i))
	}
	require.NoError(t, db.update(func(tx *bolt.Tx) error { return appendEncoded(tx, recs) }))
	assert.Equal(t, uint64(len(recs)), watermark(t, db))
	assert.Equal(t, seqIDs(1, len(recs), 1), indexed(t, db, "s", idxUser))
}

// A schema-1 file indexed every record as it was appended; the migration
// sets the watermark to its head, and later appends queue behind it.
func TestMigrateSchema1(t *testing.T) {
	db := openTemp(t)
	for i := range 5 {
		_, err := db.AppendAudit(context.Background(), record("s", protocol.SourceUser, fmt.Sprint(i)))
		require.NoError(t, err)
	}
	path := db.Path()
	require.NoError(t, db.Close())
	rawUpdate(t, path, func(tx *bolt.Tx) error { // make it what schema 1 wrote
		err := tx.Bucket(bucketAudit).ForEach(func(k, v []byte) error {
			var f indexFields
			if err := json.Unmarshal(v, &f); err != nil {
				return err
			}
			return indexRecord(tx, k, f)
		})
		if err != nil {
			return err
		}
		if err := tx.Bucket(bucketMeta).Delete(keyAuditIndexed); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keySchema, []byte("1"))
	})

	db, err := Open(path, Options{})
	require.NoError(t, err)
	defer db.Close()
	assert.Equal(t, uint64(5), watermark(t, db))
	_, err = db.AppendAudit(context.Background(), record("s", protocol.SourceUser, "after"))
	require.NoError(t, err)
	recs, _, err := db.Audit(AuditQuery{SessionID: "s"})
	require.NoError(t, err)
	assert.Equal(t, seqIDs(1, 6, 1), ids(recs))
	user, err := db.UserReplies("s", 10)
	require.NoError(t, err)
	assert.Equal(t, []string{"6", "5", "4", "3", "2", "1"}, ids(user))
}

// A damaged watermark fails closed: no query pretends the tail is empty.
func TestBadWatermarkFailsClosed(t *testing.T) {
	db := openTemp(t)
	_, err := db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
	require.NoError(t, err)
	rawUpdate(t, db.Path(), func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyAuditIndexed, []byte("x")) })
	_, _, err = db.Audit(AuditQuery{SessionID: "s"})
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = db.UserReplies("s", 1)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
	assert.ErrorIs(t, err, ErrCorrupt)
}

// The index fields are read without reading the rest of the record: a
// broken or huge toolCall after them costs nothing.
func TestReadIndexFieldsStopsEarly(t *testing.T) {
	f, err := readIndexFields([]byte(`{"action":"x","reasons":[{"a":1}],"sessionId":"s1","source":"user","toolCall":BROKEN`))
	require.NoError(t, err)
	assert.Equal(t, indexFields{SessionID: "s1", Source: protocol.SourceUser}, f)
	// Another key order is read on until both are found.
	f, err = readIndexFields([]byte(`{"source":"auto","toolCall":{"rawInput":{"k":[1,2]}},"sessionId":"s2"}`))
	require.NoError(t, err)
	assert.Equal(t, indexFields{SessionID: "s2", Source: protocol.SourceAuto}, f)
	// Brackets and quotes inside strings, an escaped key.
	f, err = readIndexFields([]byte(`{"a":["]}\"{",{"b":"}"}],"n":-1.5e3,"session\u0049d":"s3","source":"user","z":[`))
	require.NoError(t, err)
	assert.Equal(t, indexFields{SessionID: "s3", Source: protocol.SourceUser}, f)
	for _, bad := range []string{`[1]`, ``, `{"a":"x`, `{"a":[1,2}`, `{"a" 1}`, `{"sessionId":1}`, `{"a":1 "b":2}`, `{"a":}`} {
		_, err = readIndexFields([]byte(bad))
		assert.Error(t, err, bad)
	}
}

// TestIndexAgainstBruteForce: after every few appends to random sessions
// (one a child, one with a hashed long id, one empty), every page of every
// session's listing, every After, and UserReplies with the parent agree
// with a filter over all records, across several watermark moves.
func TestIndexAgainstBruteForce(t *testing.T) {
	db := openTemp(t)
	long := strings.Repeat("L", 300)
	sessions := []string{"a", "b", "child", long, ""}
	require.NoError(t, db.PutSession(protocol.Session{ID: "child", ParentID: "a"}))
	rng := rand.New(rand.NewSource(1))
	var all []protocol.AuditRecord
	check := func() {
		for _, s := range sessions[:4] {
			var want []protocol.AuditRecord
			for _, r := range all {
				if r.SessionID == s {
					want = append(want, r)
				}
			}
			for _, limit := range []int{1, 2, 3, 5, 31, 33, 1000} {
				// page through
				var got []protocol.AuditRecord
				after := ""
				for pages := 0; pages < 1000; pages++ {
					recs, next, err := db.Audit(AuditQuery{SessionID: s, After: after, Limit: limit})
					require.NoError(t, err)
					got = append(got, recs...)
					if next == "" {
						break
					}
					require.Equal(t, recs[len(recs)-1].ID, next)
					after = next
				}
				require.Equal(t, len(want), len(got), "session %q limit %d n=%d", s[:1], limit, len(all))
				for i := range want {
					require.Equal(t, want[i].ID, got[i].ID)
				}
			}
			// arbitrary After values
			for _, r := range all {
				recs, _, err := db.Audit(AuditQuery{SessionID: s, After: r.ID, Limit: 7})
				require.NoError(t, err)
				var w []string
				for _, x := range all {
					if x.SessionID == s && len(w) < 7 && (len(x.ID) > len(r.ID) || (len(x.ID) == len(r.ID) && x.ID > r.ID)) {
						w = append(w, x.ID)
					}
				}
				var g []string
				for _, x := range recs {
					g = append(g, x.ID)
				}
				require.Equal(t, w, g)
			}
			for _, max := range []int{1, 2, 5, 40, 1000} {
				ur, err := db.UserReplies(s, max)
				require.NoError(t, err)
				var w []string
				for i := len(all) - 1; i >= 0 && len(w) < max; i-- {
					x := all[i]
					if x.Source == protocol.SourceUser && (x.SessionID == s || (s == "child" && x.SessionID == "a")) {
						w = append(w, x.ID)
					}
				}
				var g []string
				for _, x := range ur {
					g = append(g, x.ID)
				}
				require.Equal(t, w, g, "user replies %q max %d", s[:1], max)
			}
		}
	}
	for i := 0; i < 140; i++ {
		s := sessions[rng.Intn(len(sessions))]
		src := protocol.SourceAuto
		if rng.Intn(3) == 0 {
			src = protocol.SourceUser
		}
		r, err := db.AppendAudit(context.Background(), record(s, src, "x"))
		require.NoError(t, err)
		all = append(all, r)
		if i%7 == 0 || i > 125 {
			check()
		}
	}
	n, err := db.VerifyAudit()
	require.NoError(t, err)
	require.Equal(t, len(all), n)
}
