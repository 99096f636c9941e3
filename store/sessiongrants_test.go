package store

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

// TestSessionGrants: a session's grants are listed for that session only
// (a longer id that starts with it and a NUL included), never among the
// project's, one per pattern, and tied to the chain like the project's.
func TestSessionGrants(t *testing.T) {
	db := openTemp(t)
	none, err := db.SessionGrants("s")
	require.NoError(t, err)
	require.Empty(t, none, "a file without the bucket has none")
	_, err = db.AddSessionGrant(protocol.Grant{Pattern: "Bash(make *)"})
	require.Error(t, err, "a session grant names its session")

	g, err := db.AddSessionGrant(protocol.Grant{Pattern: "Bash(make *)", SessionID: "s", AuditID: grantRecord(t, db, "s", "Bash(make *)")})
	require.NoError(t, err)
	require.Equal(t, "s1", g.ID)
	again, err := db.AddSessionGrant(protocol.Grant{Pattern: "Bash(make *)", SessionID: "s", AuditID: "99"})
	require.NoError(t, err)
	require.Equal(t, g, again, "one pattern, one grant per session")
	_, err = db.AddSessionGrant(protocol.Grant{Pattern: "Bash(npm test *)", SessionID: "s\x00Bash(", AuditID: grantRecord(t, db, "s\x00Bash(", "Bash(npm test *)")})
	require.NoError(t, err)

	own, err := db.SessionGrants("s")
	require.NoError(t, err)
	require.Equal(t, []protocol.Grant{g}, own)
	project, err := db.Grants()
	require.NoError(t, err)
	require.Empty(t, project, "a session's grant is not the project's")
	_, err = db.VerifyAudit()
	require.NoError(t, err)

	// revoked by its ID, and only it
	require.ErrorIs(t, db.RevokeGrant("s9"), ErrNotFound)
	require.NoError(t, db.RevokeGrant(g.ID))
	own, err = db.SessionGrants("s")
	require.NoError(t, err)
	require.Empty(t, own)
	all, err := db.AllSessionGrants()
	require.NoError(t, err)
	require.Len(t, all, 1)
	require.Equal(t, "Bash(npm test *)", all[0].Pattern)

	// a session grant no "always" of its session accounts for breaks verify
	_, err = db.AddSessionGrant(protocol.Grant{Pattern: "Bash(curl *)", SessionID: "t", AuditID: grantRecord(t, db, "s", "Bash(curl *)")})
	require.NoError(t, err)
	_, err = db.VerifyAudit()
	var ge *GrantError
	require.ErrorAs(t, err, &ge)
	require.Contains(t, ge.Reason, "of another session")
}
