package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	got, err := DefaultPath("/home/u/proj")
	require.NoError(t, err)
	sum := sha256.Sum256([]byte("/home/u/proj"))
	assert.Equal(t, "/state/perm-peer/"+hex.EncodeToString(sum[:8])+".db", got)

	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	got, err = DefaultPath("/home/u/proj")
	require.NoError(t, err)
	assert.Equal(t, "/home/u/.local/state/perm-peer/"+hex.EncodeToString(sum[:8])+".db", got)
}

func TestOpenCreatesVersionedLayout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "p.db")
	db, err := Open(path, Options{})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	assert.Equal(t, path, db.Path())

	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.View(func(tx *bolt.Tx) error {
		for _, name := range []string{"audit", "audit_by_session", "grants", "sessions", "meta"} {
			assert.NotNil(t, tx.Bucket([]byte(name)), name)
		}
		assert.Equal(t, "2", string(tx.Bucket(bucketMeta).Get(keySchema)))
		assert.Equal(t, "0", string(tx.Bucket(bucketMeta).Get(keyAuditIndexed)))
		return nil
	}))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string) (path string)
		timeout time.Duration
		wantIs  error
		wantMsg string
	}{
		{
			name: "newer schema",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "p.db")
				db, err := Open(p, Options{})
				require.NoError(t, err)
				require.NoError(t, db.Close())
				rawUpdate(t, p, func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySchema, []byte("99")) })
				return p
			},
			wantIs: ErrNewerSchema, wantMsg: ": newer schema version 99 (this perm-peer supports up to 2): upgrade perm-peer",
		},
		{
			name: "random bytes",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "p.db")
				require.NoError(t, os.WriteFile(p, bytes.Repeat([]byte("garbage!"), 2048), 0o600))
				return p
			},
			wantIs: ErrCorrupt, wantMsg: "is corrupt",
		},
		{
			name: "short garbage",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "p.db")
				require.NoError(t, os.WriteFile(p, []byte("hello"), 0o600))
				return p
			},
			wantIs: ErrCorrupt, wantMsg: "is corrupt",
		},
		{
			name: "non-numeric schema",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "p.db")
				rawUpdate(t, p, func(tx *bolt.Tx) error {
					m, err := tx.CreateBucket(bucketMeta)
					if err != nil {
						return err
					}
					return m.Put(keySchema, []byte("one"))
				})
				return p
			},
			wantIs: ErrCorrupt, wantMsg: `schema version "one" is not a number`,
		},
		{
			name: "parent is a file",
			setup: func(t *testing.T, dir string) string {
				f := filepath.Join(dir, "file")
				require.NoError(t, os.WriteFile(f, nil, 0o600))
				return filepath.Join(f, "p.db")
			},
			wantIs: ErrUnwritable, wantMsg: "cannot create directory",
		},
		{
			name: "path is a directory",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "p.db")
				require.NoError(t, os.Mkdir(p, 0o700))
				return p
			},
			wantIs: ErrUnwritable, wantMsg: "it is a directory",
		},
		{
			name: "lock file held by another peer",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "p.db")
				lk, err := newLocker(p+".lock").lock(true, time.Second)
				require.NoError(t, err)
				t.Cleanup(lk.unlock)
				return p
			},
			timeout: 50 * time.Millisecond,
			wantIs:  ErrLocked, wantMsg: "is locked by another process",
		},
		{
			name: "bbolt file held open by another program",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "p.db")
				b, err := bolt.Open(p, 0o600, nil)
				require.NoError(t, err)
				t.Cleanup(func() { b.Close() })
				return p
			},
			timeout: 100 * time.Millisecond,
			wantIs:  ErrLocked, wantMsg: "is locked by another process",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.setup(t, t.TempDir())
			before, _ := os.ReadFile(path)
			db, err := Open(path, Options{LockTimeout: tc.timeout})
			require.Error(t, err)
			assert.Nil(t, db)
			t.Log(err)
			assert.ErrorIs(t, err, tc.wantIs)
			assert.Contains(t, err.Error(), tc.wantMsg)
			assert.Contains(t, err.Error(), "audit db ")
			after, _ := os.ReadFile(path)
			assert.Equal(t, before, after, "a refused file is left untouched")
		})
	}
}

func TestNewerSchemaWrittenWhileOpenFailsClosed(t *testing.T) {
	db := openTemp(t)
	_, err := db.AddGrant(protocol.Grant{Pattern: "Bash(go test *)"})
	require.NoError(t, err)
	rawUpdate(t, db.Path(), func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(keySchema, []byte("3")) })

	_, err = db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
	assert.ErrorIs(t, err, ErrNewerSchema)
	_, err = db.Grants()
	assert.ErrorIs(t, err, ErrNewerSchema, "no read pretends a newer file is empty")
	_, err = db.UserReplies("s", 10)
	assert.ErrorIs(t, err, ErrNewerSchema)
}

func TestMigrateUnversionedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	// A file written before versioning: one audit bucket, no meta, no index.
	old := record("s1", protocol.SourceUser, "ls")
	old.ID, old.Hash = "1", "abc"
	v, err := json.Marshal(old)
	require.NoError(t, err)
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		a, err := tx.CreateBucket(bucketAudit)
		if err != nil {
			return err
		}
		if _, err := a.NextSequence(); err != nil {
			return err
		}
		return a.Put(seqKey(1), v)
	})

	db, err := Open(path, Options{})
	require.NoError(t, err)
	defer db.Close()
	recs, _, err := db.Audit(AuditQuery{SessionID: "s1"})
	require.NoError(t, err)
	assert.Equal(t, []string{"1"}, ids(recs), "the migration indexed the old record")
	user, err := db.UserReplies("s1", 5)
	require.NoError(t, err)
	assert.Equal(t, []string{"1"}, ids(user))
	next, err := db.AppendAudit(context.Background(), record("s1", protocol.SourceAuto, "pwd"))
	require.NoError(t, err)
	assert.Equal(t, "2", next.ID)
	assert.Equal(t, "abc", next.Prev, "new records chain onto the migrated head")
}

func TestFiles(t *testing.T) {
	assert.Equal(t, []string{"/s/p.db", "/s/p.db.lock", "/s/p.db.lock.want", "/s/p.db.compact", "/s/p.db.root"}, Files("/s/p.db"))
}

func TestTruncatedFileFailsClosed(t *testing.T) {
	db := openTemp(t)
	recs := make([]protocol.AuditRecord, 3000)
	for i := range recs {
		recs[i] = record("s", protocol.SourceUser, strings.Repeat("x", 300))
	}
	require.NoError(t, db.update(func(tx *bolt.Tx) error { return appendEncoded(tx, recs) }))
	fi, err := os.Stat(db.Path())
	require.NoError(t, err)
	require.NoError(t, os.Truncate(db.Path(), fi.Size()/3))

	// Reads open read-only: bbolt panics inside the transaction.
	_, err = db.VerifyAudit()
	assert.ErrorIs(t, err, ErrCorrupt)
	_, _, err = db.Audit(AuditQuery{Limit: MaxAuditLimit})
	assert.ErrorIs(t, err, ErrCorrupt)
	// A write open panics inside bbolt.Open; afterwards every call on the
	// file, from this store or a new one, fails at once with the same error.
	start := time.Now()
	_, err = db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
	assert.ErrorIs(t, err, ErrCorrupt)
	assert.Contains(t, err.Error(), "is corrupt: bbolt panicked")
	_, err = db.Grants()
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = Open(db.Path(), Options{})
	assert.ErrorIs(t, err, ErrCorrupt)
	assert.Less(t, time.Since(start), 5*time.Second, "no call waited for the lock the damaged open left behind")
}

func TestLockHeldElsewhereFailsClosedThenRecovers(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "p.db"), Options{LockTimeout: 100 * time.Millisecond})
	require.NoError(t, err)
	defer db.Close()
	// Another peer mid-transaction (same lock file, its own descriptor).
	held, err := newLocker(db.Path()+".lock").lock(true, time.Second)
	require.NoError(t, err)

	_, err = db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
	assert.ErrorIs(t, err, ErrLocked, "a decision whose record cannot be written fails")
	_, err = db.Session("s")
	assert.ErrorIs(t, err, ErrLocked, "readers wait for writers too")

	held.unlock()
	// The abandoned waiters release the lock as soon as they get it, so the
	// store works again.
	r, err := db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
	require.NoError(t, err)
	assert.Equal(t, "1", r.ID)
	n, err := db.VerifyAudit()
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

// A second peer that finds the file at 0 bytes while the first is still
// creating it (holding the lock until bbolt has written its pages) waits for
// the lock and opens the finished file, rather than calling it emptied.
func TestOpenWhileAnotherPeerCreatesTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "p.db")
	held, err := newLocker(p+lockSuffix).lock(true, time.Second)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, nil, 0o600)) // created, not yet written

	opened := make(chan error, 1)
	go func() {
		db, err := Open(p, Options{LockTimeout: 10 * time.Second})
		if err == nil {
			err = db.Close()
		}
		opened <- err
	}()
	// The second peer has looked at the file (and waits for the lock)
	// before the creator writes it; before the fix it had already refused.
	waiting := func() bool {
		select {
		case err := <-opened:
			opened <- err
			return true
		default:
			return held.othersWaiting()
		}
	}
	require.Eventually(t, waiting, 10*time.Second, time.Millisecond)
	// The creator finishes: bbolt writes its first pages and our schema.
	b, err := bolt.Open(p, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, b.Update(migrate))
	require.NoError(t, b.Close())
	held.unlock()

	require.NoError(t, <-opened)
}
