package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/peer"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// TestSettleAfterDeadline: an earlier call's outcome, read from the
// transcript while the current hook call's deadline has passed, is
// recorded as what happened (the user approved it and it ran), not as a
// decision cancelled now, and the pending ask is not lost.
func TestSettleAfterDeadline(t *testing.T) {
	dir := t.TempDir()
	project := filepath.Join(dir, "proj")
	require.NoError(t, os.MkdirAll(project, 0o755))
	srv := peer.New(peer.Config{Project: project, DBPath: filepath.Join(dir, "audit.db"), Home: dir, Agent: "claude-code"})
	require.NoError(t, srv.Open())
	defer srv.Close()
	db, err := srv.DB()
	require.NoError(t, err)
	require.NoError(t, srv.OpenSession(protocol.SessionOpenParams{SessionID: "s1", Cwd: project}))

	raw, err := json.Marshal(map[string]string{"command": "rm -rf build"})
	require.NoError(t, err)
	asked := protocol.ToolCall{ToolCallID: "toolu_1", Tool: "Bash", Kind: protocol.KindExecute, RawInput: raw}
	require.NoError(t, db.PutPendingAsk("s1", store.PendingAsk{ID: "toolu_1", Turn: 1, Call: asked, Prompted: true}))
	transcript := filepath.Join(dir, "t.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"done"}]}}`+"\n"), 0o600))

	_, pending, err := db.HookState("s1")
	require.NoError(t, err)
	c := &call{srv: srv, db: db, pending: pending, turn: store.HookTurn{Turn: 1},
		ev: Event{Name: "PreToolUse", Stage: StagePreTool, SessionID: "s1", Cwd: project, Transcript: transcript}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the watchdog fired while the call was settling
	c.settleAsks(ctx)

	recs, _, err := db.AuditNewest("", 10)
	require.NoError(t, err)
	require.Len(t, recs, 1, "one record: the earlier call's outcome")
	require.Equal(t, protocol.ReplyOnce, recs[0].Decision, "the user approved it and it ran: %+v", recs[0])
	require.Equal(t, protocol.SourceUser, recs[0].Source, "%+v", recs[0])
	_, left, err := db.HookState("s1")
	require.NoError(t, err)
	require.Empty(t, left, "settled: no longer pending")
}
