package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
			wantID: "4", wantReason: "follows record 2: record 3 is missing (deleted)", wantN: 2,
		},
		{
			name: "two middle records deleted",
			tamper: func(a, _ *bolt.Bucket) error {
				if err := a.Delete(seqKey(2)); err != nil {
					return err
				}
				return a.Delete(seqKey(3))
			},
			wantID: "4", wantReason: "follows record 1: records 2 to 3 are missing", wantN: 1,
		},
		{
			name:   "first record deleted",
			tamper: func(a, _ *bolt.Bucket) error { return a.Delete(seqKey(1)) },
			wantID: "2", wantReason: "is the first record, not 1: record 1 is missing", wantN: 0,
		},
		{
			name: "first record deleted, the next one rechained as first",
			tamper: func(a, _ *bolt.Bucket) error {
				if err := a.Delete(seqKey(1)); err != nil {
					return err
				}
				v := a.Get(seqKey(2))
				var r map[string]any
				if err := json.Unmarshal(v, &r); err != nil {
					return err
				}
				r["prev"] = ""
				b, err := json.Marshal(r)
				if err != nil {
					return err
				}
				return a.Put(seqKey(2), b)
			},
			wantID: "2", wantReason: "is the first record, not 1", wantN: 0,
		},
		{
			name: "newest record deleted and the head pointed at the one before",
			tamper: func(a, meta *bolt.Bucket) error {
				var r protocol.AuditRecord
				if err := json.Unmarshal(a.Get(seqKey(4)), &r); err != nil {
					return err
				}
				if err := a.Delete(seqKey(5)); err != nil {
					return err
				}
				return meta.Put(keyAuditHead, []byte("4 "+r.Hash))
			},
			wantID: "5", wantReason: "the audit sequence is 5", wantN: 4,
		},
		{
			name: "every record and the head deleted",
			tamper: func(a, meta *bolt.Bucket) error {
				for i := uint64(1); i <= 5; i++ {
					if err := a.Delete(seqKey(i)); err != nil {
						return err
					}
				}
				return meta.Delete(keyAuditHead)
			},
			wantID: "5", wantReason: "the head names record 0 and the log ends at record none", wantN: 0,
		},
		{
			name: "a stored record with a repeated key",
			tamper: func(a, _ *bolt.Bucket) error {
				v := bytes.Replace(a.Get(seqKey(3)), []byte(`"decision":"once"`), []byte(`"decision":"reject","decision":"once"`), 1)
				return a.Put(seqKey(3), v)
			},
			wantID: "3", wantReason: "is not stored in canonical form", wantN: 2,
		},
		{
			name: "a stored record with bytes that are not UTF-8",
			tamper: func(a, _ *bolt.Bucket) error {
				v := bytes.Replace(a.Get(seqKey(3)), []byte(`"command"`), []byte("\"\xe3ommand\""), 1)
				return a.Put(seqKey(3), v)
			},
			wantID: "3", wantReason: "is not stored in canonical form", wantN: 2,
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

// TestVerifyAuditCoversGrants (M2): a grant counts only when its auditId
// names the user's "always" to that very pattern; one written into the
// grants bucket directly fails verify.
func TestVerifyAuditCoversGrants(t *testing.T) {
	forge := func(t *testing.T, db *DB, g protocol.Grant) {
		rawUpdate(t, db.Path(), func(tx *bolt.Tx) error {
			b := tx.Bucket(bucketGrants)
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			g.ID = fmt.Sprint(seq)
			v, err := json.Marshal(g)
			if err != nil {
				return err
			}
			return b.Put(seqKey(seq), v)
		})
	}
	t.Run("a real grant verifies", func(t *testing.T) {
		db := fiveRecords(t)
		id := grantRecord(t, db, "s", "Bash(make *)")
		_, err := db.AddGrant(protocol.Grant{Pattern: "Bash(make *)", SessionID: "s", AuditID: id})
		require.NoError(t, err)
		n, err := db.VerifyAudit()
		require.NoError(t, err)
		assert.Equal(t, 6, n)
	})
	cases := []struct {
		name  string
		grant func(db *DB) protocol.Grant
		want  string
	}{
		{"no audit id", func(*DB) protocol.Grant { return protocol.Grant{Pattern: "Bash(curl *)"} }, `names no audit record (auditId "")`},
		{"audit id of no record", func(*DB) protocol.Grant { return protocol.Grant{Pattern: "Bash(curl *)", AuditID: "99"} }, "names audit record 99, which does not exist"},
		{"audit id of a once record", func(*DB) protocol.Grant { return protocol.Grant{Pattern: "Bash(curl *)", AuditID: "1"} }, `which is not the user's "always" (decision once, source user)`},
		{"audit id of another pattern's always", func(db *DB) protocol.Grant {
			return protocol.Grant{Pattern: "Bash(curl *)", AuditID: grantRecord(t, db, "s", "Bash(make *)")}
		}, `which granted "Bash(make *)"`},
		{"audit id of another session's always", func(db *DB) protocol.Grant {
			return protocol.Grant{Pattern: "Bash(curl *)", SessionID: "other", AuditID: grantRecord(t, db, "s", "Bash(curl *)")}
		}, "of another session"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := fiveRecords(t)
			forge(t, db, c.grant(db))
			_, err := db.VerifyAudit()
			var ge *GrantError
			require.ErrorAs(t, err, &ge)
			assert.Equal(t, "1", ge.ID)
			assert.Contains(t, err.Error(), "grant 1: ")
			assert.Contains(t, ge.Reason, c.want)
		})
	}
}

// TestOpenEmptyFileIsCorrupt (M3): an existing 0-byte DB is an emptied log,
// not a new one: Open refuses it and leaves it as it is.
func TestOpenEmptyFileIsCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	_, err := Open(path, Options{})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Equal(t, "audit db "+path+" is corrupt (an empty file, not a database): move it aside to start a new log", err.Error())
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Zero(t, fi.Size())
}

// TestOpenOnePageFileIsCorrupt (L10): a DB truncated to one page is corrupt
// with the sentence that says to move it aside.
func TestOpenOnePageFileIsCorrupt(t *testing.T) {
	db := fiveRecords(t)
	require.NoError(t, db.Close())
	require.NoError(t, os.Truncate(db.Path(), int64(os.Getpagesize())))
	_, err := Open(db.Path(), Options{})
	require.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "is corrupt (file size too small")
	assert.Contains(t, err.Error(), "move it aside to start a new log")
}
