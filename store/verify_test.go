package store

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

// fiveRecords opens a store holding records 1..5.
func fiveRecords(t *testing.T) *DB {
	t.Helper()
	db := openTemp(t)
	for i := 1; i <= 5; i++ {
		_, err := db.AppendAudit(context.Background(), record("s", protocol.SourceUser, fmt.Sprintf("cmd %d", i)))
		require.NoError(t, err)
	}
	return db
}

func TestVerifyAuditDetectsTampering(t *testing.T) {
	tests := []struct {
		name       string
		tamper     func(a, meta *bolt.Bucket) error
		wantID     string
		wantReason string
		wantN      int // records that verified before the bad one
	}{
		{
			name: "content edited",
			tamper: func(a, _ *bolt.Bucket) error {
				v := bytes.Replace(a.Get(seqKey(3)), []byte(`"decision":"once"`), []byte(`"decision":"reject"`), 1)
				return a.Put(seqKey(3), v)
			},
			wantID: "3", wantReason: "record edited", wantN: 2,
		},
		{
			name: "content edited and its hash recomputed",
			tamper: func(a, _ *bolt.Bucket) error {
				v := bytes.Replace(a.Get(seqKey(3)), []byte(`cmd 3`), []byte(`rm -rf`), 1)
				var err error
				if v, err = rehash(v); err != nil {
					return err
				}
				return a.Put(seqKey(3), v)
			},
			wantID: "4", wantReason: "prev does not match the hash of record 3", wantN: 3,
		},
		{
			name:   "middle record deleted",
			tamper: func(a, _ *bolt.Bucket) error { return a.Delete(seqKey(3)) },
			wantID: "4", wantReason: "prev does not match the hash of record 2", wantN: 2,
		},
		{
			name:   "first record deleted",
			tamper: func(a, _ *bolt.Bucket) error { return a.Delete(seqKey(1)) },
			wantID: "2", wantReason: "is the first record but its prev is not empty", wantN: 0,
		},
		{
			name:   "last record deleted",
			tamper: func(a, _ *bolt.Bucket) error { return a.Delete(seqKey(5)) },
			wantID: "5", wantReason: "is missing: the head names it but the log ends at record 4", wantN: 4,
		},
		{
			name: "all records deleted",
			tamper: func(a, _ *bolt.Bucket) error {
				for i := uint64(1); i <= 5; i++ {
					if err := a.Delete(seqKey(i)); err != nil {
						return err
					}
				}
				return nil
			},
			wantID: "5", wantReason: "the log is empty", wantN: 0,
		},
		{
			name: "two records swapped",
			tamper: func(a, _ *bolt.Bucket) error {
				two, three := bytes.Clone(a.Get(seqKey(2))), bytes.Clone(a.Get(seqKey(3)))
				if err := a.Put(seqKey(2), three); err != nil {
					return err
				}
				return a.Put(seqKey(3), two)
			},
			wantID: "2", wantReason: `key 2 holds a record with id "3"`, wantN: 1,
		},
		{
			name: "record replaced by garbage",
			tamper: func(a, _ *bolt.Bucket) error {
				return a.Put(seqKey(4), []byte("not json"))
			},
			wantID: "4", wantReason: "is not a valid JSON audit record", wantN: 3,
		},
		{
			name: "record inserted after the head",
			tamper: func(a, _ *bolt.Bucket) error {
				v := bytes.Replace(a.Get(seqKey(5)), []byte(`"id":"5"`), []byte(`"id":"6"`), 1)
				return a.Put(seqKey(6), v)
			},
			wantID: "6", wantReason: "prev does not match the hash of record 5", wantN: 5,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db := fiveRecords(t)
			n, err := db.VerifyAudit()
			require.NoError(t, err)
			require.Equal(t, 5, n)

			rawUpdate(t, db.Path(), func(tx *bolt.Tx) error {
				return tc.tamper(tx.Bucket(bucketAudit), tx.Bucket(bucketMeta))
			})
			n, err = db.VerifyAudit()
			var ce *ChainError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, tc.wantID, ce.ID)
			assert.Contains(t, ce.Reason, tc.wantReason)
			assert.Equal(t, tc.wantN, n)
			assert.Contains(t, err.Error(), "audit record "+tc.wantID+": ")
		})
	}
}

// rehash recomputes a stored record's own hash, as a tamperer covering an
// edit would.
func rehash(v []byte) ([]byte, error) {
	r, err := decodeRecord(seqKey(0), v)
	if err != nil {
		return nil, err
	}
	h, err := recordHash(v)
	if err != nil {
		return nil, err
	}
	return bytes.Replace(v, []byte(`"hash":"`+r.Hash+`"`), []byte(`"hash":"`+h+`"`), 1), nil
}

func TestTruncatedTailStaysDetectedAfterNewAppends(t *testing.T) {
	db := fiveRecords(t)
	rawUpdate(t, db.Path(), func(tx *bolt.Tx) error { return tx.Bucket(bucketAudit).Delete(seqKey(5)) })
	r, err := db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
	require.NoError(t, err)
	assert.Equal(t, "6", r.ID)
	_, err = db.VerifyAudit()
	var ce *ChainError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "6", ce.ID, "record 6 chains to the deleted record 5, not to 4")
}

func TestVerifyAuditAcrossChunks(t *testing.T) {
	defer func(old int) { verifyChunk = old }(verifyChunk)
	verifyChunk = 50
	db := openTemp(t)
	// Parts of three chunks, written directly in one transaction.
	n := 2*verifyChunk + 17
	recs := make([]protocol.AuditRecord, n)
	for i := range recs {
		recs[i] = record("s", protocol.SourceAuto, fmt.Sprint(i))
	}
	require.NoError(t, db.update(func(tx *bolt.Tx) error { return appendEncoded(tx, recs) }))
	got, err := db.VerifyAudit()
	require.NoError(t, err)
	assert.Equal(t, n, got)

	rawUpdate(t, db.Path(), func(tx *bolt.Tx) error {
		return tx.Bucket(bucketAudit).Delete(seqKey(uint64(verifyChunk) + 1)) // first record of the second chunk
	})
	got, err = db.VerifyAudit()
	var ce *ChainError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, fmt.Sprint(verifyChunk+2), ce.ID)
	assert.Equal(t, verifyChunk, got)
}
