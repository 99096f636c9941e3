package store

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
	"pgregory.net/rapid"

	"github.com/perm-peer/perm-peer/protocol"
)

// TestQueriesMatchModel checks Audit pagination, UserReplies and
// VerifyAudit against a plain in-memory model on random logs.
func TestQueriesMatchModel(t *testing.T) {
	dir := t.TempDir()
	iter := 0
	parents := map[string]string{"b": "a", "c": "b"} // c's grandparent a is not inherited
	rapid.Check(t, func(rt *rapid.T) {
		iter++
		db, err := Open(filepath.Join(dir, fmt.Sprintf("%d.db", iter)), Options{LockTimeout: 10 * time.Second})
		require.NoError(rt, err)
		defer db.Close()
		for s, p := range parents {
			require.NoError(rt, db.PutSession(protocol.Session{ID: s, ParentID: p}))
		}
		sessions := []string{"a", "b", "c", "d"}
		sources := []protocol.Source{protocol.SourceUser, protocol.SourceAuto, protocol.SourceJudge, protocol.SourceSystem}
		n := rapid.IntRange(0, 60).Draw(rt, "n")
		recs := make([]protocol.AuditRecord, n)
		for i := range recs {
			recs[i] = record(rapid.SampledFrom(sessions).Draw(rt, "session"), rapid.SampledFrom(sources).Draw(rt, "source"), fmt.Sprint(i))
		}
		// Several transactions, as group commits would write them.
		for lo := 0; lo < n; {
			hi := min(n, lo+rapid.IntRange(1, 10).Draw(rt, "batch"))
			require.NoError(rt, db.update(func(tx *bolt.Tx) error { return appendEncoded(tx, recs[lo:hi]) }))
			lo = hi
		}

		got, err := db.VerifyAudit()
		require.NoError(rt, err)
		require.Equal(rt, n, got)

		session := rapid.SampledFrom(append(sessions, "")).Draw(rt, "query session")
		limit := rapid.IntRange(1, 15).Draw(rt, "limit")
		var want, paged []string
		for i, r := range recs {
			if session == "" || r.SessionID == session {
				want = append(want, fmt.Sprint(i+1))
			}
		}
		for after := ""; ; {
			page, next, err := db.Audit(AuditQuery{SessionID: session, After: after, Limit: limit})
			require.NoError(rt, err)
			require.LessOrEqual(rt, len(page), limit)
			paged = append(paged, ids(page)...)
			if next == "" {
				break
			}
			after = next
		}
		require.True(rt, slices.Equal(want, paged), "Audit(%q) pages of %d = %v, want %v", session, limit, paged, want)

		max := rapid.IntRange(1, 20).Draw(rt, "max")
		var wantUser []string
		for i := n - 1; i >= 0 && len(wantUser) < max; i-- {
			r := recs[i]
			if r.Source == protocol.SourceUser && (r.SessionID == session || (parents[session] != "" && r.SessionID == parents[session])) {
				wantUser = append(wantUser, fmt.Sprint(i+1))
			}
		}
		user, err := db.UserReplies(session, max)
		require.NoError(rt, err)
		require.True(rt, slices.Equal(wantUser, ids(user)), "UserReplies(%q, %d) = %v, want %v", session, max, ids(user), wantUser)
	})
}
