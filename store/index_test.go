package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
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
