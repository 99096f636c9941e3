package store

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

func TestSessions(t *testing.T) {
	db := openTemp(t)
	_, err := db.Session("sub")
	assert.ErrorIs(t, err, ErrNotFound)
	assert.ErrorContains(t, db.PutSession(protocol.Session{}), "empty session id")

	in := protocol.Session{ID: "sub", ParentID: "main", Cwd: "/repo", Mode: protocol.ModeAI, Tier: protocol.TierStandard, Agent: "zed"}
	require.NoError(t, db.PutSession(in))
	got, err := db.Session("sub")
	require.NoError(t, err)
	created := got.Created
	_, err = time.Parse(time.RFC3339Nano, created)
	require.NoError(t, err)
	in.Created = created
	assert.Equal(t, in, got)

	// Rewriting keeps the first Created and takes the new fields.
	require.NoError(t, db.PutSession(protocol.Session{ID: "sub", ParentID: "main", Mode: protocol.ModeAsk, Created: "2000-01-01T00:00:00Z"}))
	got, err = db.Session("sub")
	require.NoError(t, err)
	assert.Equal(t, protocol.Session{ID: "sub", ParentID: "main", Mode: protocol.ModeAsk, Created: created}, got)

	// A long id is stored under a hashed key and still round-trips.
	long := strings.Repeat("x", 5000)
	require.NoError(t, db.PutSession(protocol.Session{ID: long, ParentID: "sub"}))
	got, err = db.Session(long)
	require.NoError(t, err)
	assert.Equal(t, "sub", got.ParentID)
}

func TestSessionSurvivesRestartForSubagent(t *testing.T) {
	db := openTemp(t)
	require.NoError(t, db.PutSession(protocol.Session{ID: "main"}))
	_, err := db.AppendAudit(context.Background(), record("main", protocol.SourceUser, "make lint"))
	require.NoError(t, err)
	require.NoError(t, db.Close())

	// "After a restart": a new store on the same file, a subagent opens.
	db2, err := Open(db.Path(), Options{})
	require.NoError(t, err)
	defer db2.Close()
	require.NoError(t, db2.PutSession(protocol.Session{ID: "sub", ParentID: "main"}))
	recs, err := db2.UserReplies("sub", 10)
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, "bash: make lint", recs[0].Action)
}

func TestGrants(t *testing.T) {
	db := openTemp(t)
	got, err := db.Grants()
	require.NoError(t, err)
	assert.Empty(t, got)

	_, err = db.AddGrant(protocol.Grant{})
	assert.ErrorContains(t, err, "empty pattern")

	g1, err := db.AddGrant(protocol.Grant{Pattern: "Bash(go test *)", Covers: "bash: go test *  (this project)", SessionID: "s1", AuditID: "7"})
	require.NoError(t, err)
	assert.Equal(t, "1", g1.ID)
	_, err = time.Parse(time.RFC3339Nano, g1.Created)
	require.NoError(t, err)
	g2, err := db.AddGrant(protocol.Grant{Pattern: "Read(src/**)"})
	require.NoError(t, err)
	assert.Equal(t, "2", g2.ID)

	again, err := db.AddGrant(protocol.Grant{Pattern: "Bash(go test *)", SessionID: "s9"})
	require.NoError(t, err)
	assert.Equal(t, g1, again, "the same pattern twice is one grant")

	got, err = db.Grants()
	require.NoError(t, err)
	assert.Equal(t, []protocol.Grant{g1, g2}, got)

	tests := []struct {
		id      string
		wantErr error
	}{
		{"1", nil},
		{"1", ErrNotFound}, // already revoked
		{"99", ErrNotFound},
		{"abc", ErrNotFound},
		{"", ErrNotFound},
	}
	for _, tc := range tests {
		err := db.RevokeGrant(tc.id)
		if tc.wantErr == nil {
			assert.NoError(t, err, tc.id)
		} else {
			assert.ErrorIs(t, err, tc.wantErr, tc.id)
		}
	}
	got, err = db.Grants()
	require.NoError(t, err)
	assert.Equal(t, []protocol.Grant{g2}, got)

	// A revoked pattern granted again is a new grant with a new id.
	g3, err := db.AddGrant(protocol.Grant{Pattern: "Bash(go test *)"})
	require.NoError(t, err)
	assert.Equal(t, "3", g3.ID)
}

func TestCompactKeepsLogAndChain(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	for i := range 300 {
		_, err := db.AppendAudit(ctx, record(fmt.Sprintf("s%d", i%3), protocol.SourceUser, strings.Repeat("y", 500)))
		require.NoError(t, err)
	}
	_, err := db.AddGrant(protocol.Grant{Pattern: "Bash(make *)", SessionID: "s0", AuditID: grantRecord(t, db, "s0", "Bash(make *)")})
	require.NoError(t, err)
	before, _, err := db.Audit(AuditQuery{Limit: 1000})
	require.NoError(t, err)

	// Appends from other goroutines while compacting are neither lost nor
	// written to the replaced file.
	var wg sync.WaitGroup
	during := make(chan protocol.AuditRecord, 40)
	for range 40 {
		wg.Go(func() {
			r, err := db.AppendAudit(ctx, record("s0", protocol.SourceAuto, "ls"))
			if assert.NoError(t, err) {
				during <- r
			}
		})
	}
	require.NoError(t, db.Compact())
	wg.Wait()
	close(during)

	n, err := db.VerifyAudit()
	require.NoError(t, err)
	assert.Equal(t, 341, n)
	after, _, err := db.Audit(AuditQuery{Limit: 1000})
	require.NoError(t, err)
	assert.Equal(t, before, after[:301])
	for r := range during {
		assert.Contains(t, after, r)
	}
	grants, err := db.Grants()
	require.NoError(t, err)
	assert.Len(t, grants, 1)
	next, err := db.AppendAudit(ctx, record("s1", protocol.SourceUser, "pwd"))
	require.NoError(t, err)
	assert.Equal(t, "342", next.ID, "the sequence survives compaction")
	user, err := db.UserReplies("s1", 1)
	require.NoError(t, err)
	assert.Equal(t, []string{"342"}, ids(user), "the index survives compaction")
	_, err = os.Stat(db.Path() + ".compact")
	assert.True(t, os.IsNotExist(err), "no temporary file left behind")
}

func TestCompactShrinksFile(t *testing.T) {
	db := openTemp(t)
	// Many small transactions leave free pages behind.
	for i := range 200 {
		_, err := db.AddGrant(protocol.Grant{Pattern: fmt.Sprintf("Bash(tool%d *)", i), Covers: strings.Repeat("z", 2000)})
		require.NoError(t, err)
	}
	for i := 1; i <= 200; i++ {
		require.NoError(t, db.RevokeGrant(fmt.Sprint(i)))
	}
	fi, err := os.Stat(db.Path())
	require.NoError(t, err)
	require.NoError(t, db.Compact())
	fi2, err := os.Stat(db.Path())
	require.NoError(t, err)
	assert.Less(t, fi2.Size(), fi.Size())
}
