package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

func TestAppendAuditFillsChainFields(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	var got []protocol.AuditRecord
	for _, cmd := range []string{"ls", "go test ./...", "git status"} {
		r, err := db.AppendAudit(ctx, record("s1", protocol.SourceAuto, cmd))
		require.NoError(t, err)
		got = append(got, r)
	}
	assert.Equal(t, []string{"1", "2", "3"}, ids(got))
	assert.Equal(t, "", got[0].Prev, "genesis record has an empty prev")
	assert.Equal(t, got[0].Hash, got[1].Prev)
	assert.Equal(t, got[1].Hash, got[2].Prev)
	for _, r := range got {
		assert.Len(t, r.Hash, 64)
		ts, err := time.Parse(time.RFC3339Nano, r.TS)
		require.NoError(t, err)
		assert.WithinDuration(t, time.Now(), ts, time.Minute)
	}

	stored, next, err := db.Audit(AuditQuery{})
	require.NoError(t, err)
	assert.Equal(t, "", next)
	assert.Equal(t, got, stored, "AppendAudit returns exactly what Audit reads back")
	assert.Equal(t, `{"command":"go test ./..."}`, string(stored[1].ToolCall.RawInput))
}

func TestRecordHashIsCanonical(t *testing.T) {
	// Canonical form, written by hand: keys sorted, hash emptied, no spaces,
	// "<" not HTML-escaped, the number kept as written.
	want := sha256.Sum256([]byte(`{"a":"<x>","b":1.50,"hash":""}`))
	tests := []struct{ name, stored string }{
		{"sorted input", `{"a":"<x>","b":1.50,"hash":""}`},
		{"unsorted with spaces", `{ "hash": "abc", "b": 1.50, "a": "<x>" }`},
		{"escaped lt", `{"b":1.50,"a":"\u003cx>","hash":"0000"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := recordHash([]byte(tc.stored))
			require.NoError(t, err)
			assert.Equal(t, hex.EncodeToString(want[:]), got)
		})
	}
	_, err := recordHash([]byte(`{"a":1}{"b":2}`))
	assert.Error(t, err, "two objects are not one record")
}

func TestConcurrentAppendsShareCommits(t *testing.T) {
	db := openTemp(t)
	const workers, each = 50, 20
	var mu sync.Mutex
	returned := map[string]protocol.AuditRecord{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				r, err := db.AppendAudit(context.Background(), record(fmt.Sprintf("s%d", w), protocol.SourceAuto, fmt.Sprintf("echo %d", i)))
				if !assert.NoError(t, err) {
					return
				}
				mu.Lock()
				returned[r.ID] = r
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, returned, workers*each, "every append got its own id")

	n, err := db.VerifyAudit()
	require.NoError(t, err)
	assert.Equal(t, workers*each, n)

	var all []protocol.AuditRecord
	for after := ""; ; {
		page, next, err := db.Audit(AuditQuery{After: after, Limit: 300})
		require.NoError(t, err)
		all = append(all, page...)
		if next == "" {
			break
		}
		after = next
	}
	require.Len(t, all, workers*each)
	for _, r := range all {
		assert.Equal(t, returned[r.ID], r)
	}
	assert.Less(t, db.batches.Load(), int64(workers*each), "concurrent appends were grouped into shared commits")
}

func TestAuditPagination(t *testing.T) {
	db := openTemp(t)
	// Records 1..7 alternate sessions: s1 holds 1,3,5,7 and s2 holds 2,4,6.
	for i := 1; i <= 7; i++ {
		s := "s1"
		if i%2 == 0 {
			s = "s2"
		}
		_, err := db.AppendAudit(context.Background(), record(s, protocol.SourceAuto, "ls"))
		require.NoError(t, err)
	}
	tests := []struct {
		name     string
		q        AuditQuery
		wantIDs  []string
		wantNext string
	}{
		{"first page", AuditQuery{Limit: 3}, []string{"1", "2", "3"}, "3"},
		{"middle page", AuditQuery{After: "3", Limit: 3}, []string{"4", "5", "6"}, "6"},
		{"last page", AuditQuery{After: "6", Limit: 3}, []string{"7"}, ""},
		{"exact fit has no next", AuditQuery{After: "4", Limit: 3}, []string{"5", "6", "7"}, ""},
		{"default limit", AuditQuery{}, []string{"1", "2", "3", "4", "5", "6", "7"}, ""},
		{"session", AuditQuery{SessionID: "s1"}, []string{"1", "3", "5", "7"}, ""},
		{"session paged", AuditQuery{SessionID: "s1", Limit: 2}, []string{"1", "3"}, "3"},
		{"session after", AuditQuery{SessionID: "s2", After: "2"}, []string{"4", "6"}, ""},
		{"unknown session", AuditQuery{SessionID: "nope"}, []string{}, ""},
		{"after the end", AuditQuery{After: "7"}, []string{}, ""},
		{"after the largest id", AuditQuery{After: "18446744073709551615"}, []string{}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recs, next, err := db.Audit(tc.q)
			require.NoError(t, err)
			assert.Equal(t, tc.wantIDs, ids(recs))
			assert.Equal(t, tc.wantNext, next)
		})
	}
	_, _, err := db.Audit(AuditQuery{After: "x"})
	assert.ErrorContains(t, err, `after "x" is not an audit id`)
}

func TestUserRepliesSessionAndParent(t *testing.T) {
	db := openTemp(t)
	require.NoError(t, db.PutSession(protocol.Session{ID: "parent"}))
	require.NoError(t, db.PutSession(protocol.Session{ID: "child", ParentID: "parent"}))
	// id: session, source
	script := []struct {
		session string
		src     protocol.Source
	}{
		{"parent", protocol.SourceUser},  // 1
		{"child", protocol.SourceAuto},   // 2
		{"child", protocol.SourceUser},   // 3
		{"other", protocol.SourceUser},   // 4
		{"parent", protocol.SourceUser},  // 5
		{"child", protocol.SourceJudge},  // 6
		{"child", protocol.SourceUser},   // 7
		{"parent", protocol.SourceAuto},  // 8
		{"other", protocol.SourceSystem}, // 9
	}
	for i, s := range script {
		_, err := db.AppendAudit(context.Background(), record(s.session, s.src, fmt.Sprintf("cmd %d", i+1)))
		require.NoError(t, err)
	}
	tests := []struct {
		session string
		max     int
		want    []string
	}{
		{"child", 10, []string{"7", "5", "3", "1"}},
		{"child", 3, []string{"7", "5", "3"}},
		{"child", 0, []string{"7", "5", "3", "1"}}, // default bound
		{"parent", 10, []string{"5", "1"}},         // a parent does not inherit its children
		{"other", 10, []string{"4"}},
		{"never-seen", 10, []string{}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%d", tc.session, tc.max), func(t *testing.T) {
			recs, err := db.UserReplies(tc.session, tc.max)
			require.NoError(t, err)
			assert.Equal(t, tc.want, ids(recs))
			for _, r := range recs {
				assert.Equal(t, protocol.SourceUser, r.Source)
			}
		})
	}
}

func TestAppendAuditContextAndClose(t *testing.T) {
	db := openTemp(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := db.AppendAudit(ctx, record("s", protocol.SourceAuto, "ls"))
	assert.ErrorIs(t, err, context.Canceled)

	bad := record("s", protocol.SourceAuto, "ls")
	bad.ToolCall.RawInput = json.RawMessage(`{not json`)
	_, err = db.AppendAudit(context.Background(), bad)
	assert.ErrorContains(t, err, "encode")

	recs, _, err := db.Audit(AuditQuery{})
	require.NoError(t, err)
	assert.Empty(t, recs, "neither a cancelled nor an unencodable record is stored")

	require.NoError(t, db.Close())
	_, err = db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, "ls"))
	assert.ErrorIs(t, err, ErrClosed)
	_, _, err = db.Audit(AuditQuery{})
	assert.ErrorIs(t, err, ErrClosed)
	assert.NoError(t, db.Close(), "Close is idempotent")
}

func TestCloseCommitsInFlightAppends(t *testing.T) {
	db, err := Open(t.TempDir()+"/p.db", Options{})
	require.NoError(t, err)
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, fmt.Sprint(i)))
			errs <- err
		})
	}
	// Close races the appends: each one is either committed or refused.
	require.NoError(t, db.Close())
	wg.Wait()
	close(errs)
	ok := 0
	for err := range errs {
		if err == nil {
			ok++
			continue
		}
		require.ErrorIs(t, err, ErrClosed)
	}
	db2, err := Open(db.Path(), Options{})
	require.NoError(t, err)
	defer db2.Close()
	got, err := db2.VerifyAudit()
	require.NoError(t, err)
	assert.Equal(t, ok, got, "every append that returned nil is stored, and nothing else")
}

// A group commit takes at most MaxBatch records; the rest wait for the next
// one, and none is lost or committed twice.
func TestGroupCommitRespectsMaxBatch(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "p.db"), Options{MaxBatch: 2})
	require.NoError(t, err)
	defer db.Close()
	const n = 20
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, err := db.AppendAudit(context.Background(), record("s", protocol.SourceAuto, fmt.Sprint(i)))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
	assert.GreaterOrEqual(t, db.batches.Load(), int64(n/2))
	got, err := db.VerifyAudit()
	require.NoError(t, err)
	assert.Equal(t, n, got)
}
