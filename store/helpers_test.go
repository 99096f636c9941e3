package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

// openTemp opens a fresh store in t.TempDir() and closes it at cleanup.
func openTemp(t testing.TB) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), "state", "p.db"), Options{LockTimeout: 10 * time.Second})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, db.Close()) })
	return db
}

// record builds a typical audit record of a shell call.
func record(session string, src protocol.Source, command string) protocol.AuditRecord {
	in, _ := json.Marshal(map[string]string{"command": command})
	return protocol.AuditRecord{
		SessionID: session,
		Turn:      1,
		ToolCall: protocol.ToolCall{
			ToolCallID: "c1", Tool: "bash", Kind: protocol.KindExecute,
			RawInput: in,
		},
		Action:    "bash: " + command,
		Decision:  protocol.ReplyOnce,
		DecidedBy: protocol.ByGate,
		Source:    src,
		Reply:     protocol.PermissionReply{Reply: protocol.ReplyOnce},
		Risk:      protocol.RiskLow,
	}
}

// rawUpdate edits the bbolt file directly, as a tamperer would. It works
// while the store is open because the store holds no handle between
// transactions.
func rawUpdate(t testing.TB, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	require.NoError(t, err)
	require.NoError(t, b.Update(fn))
	require.NoError(t, b.Close())
}

// ids lists the records' ids.
func ids(recs []protocol.AuditRecord) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.ID
	}
	return out
}

// appendEncoded appends recs inside tx the way a group commit does, with
// their canonical encodings made first.
func appendEncoded(tx *bolt.Tx, recs []protocol.AuditRecord) error {
	encs := make([]encodedRecord, len(recs))
	for i, r := range recs {
		e, err := encodeRecord(r)
		if err != nil {
			return err
		}
		encs[i] = e
	}
	return appendRecords(tx, recs, encs)
}

// grantRecord appends the user's "always" for pattern, as the peer does
// before it adds the grant, and returns the record's id.
func grantRecord(t testing.TB, db *DB, session, pattern string) string {
	t.Helper()
	rec := record(session, protocol.SourceUser, "make build")
	rec.Decision, rec.Grant = protocol.ReplyAlways, pattern
	rec.Reply = protocol.PermissionReply{Reply: protocol.ReplyAlways}
	r, err := db.AppendAudit(context.Background(), rec)
	require.NoError(t, err)
	return r.ID
}
