package peer

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// TestSettledOnlyPartition checks the split the read loop relies on: a
// settled-only decide answers exactly the calls that need neither the
// judge nor the user, answers them as the full pipeline would, and leaves
// every other call untouched (no audit record) for a worker.
func TestSettledOnlyPartition(t *testing.T) {
	calls := map[string]string{
		"allowed":    "git status",
		"floor":      "rm -rf /",
		"open":       "make lint",
		"human-only": "git push --force",
	}
	// want[mode][call]: settled → the decider; "" → left to a worker.
	want := map[protocol.Mode]map[string]protocol.DecidedBy{
		protocol.ModeAsk:  {"allowed": protocol.ByGate, "floor": protocol.ByFloor, "open": "", "human-only": ""},
		protocol.ModeAI:   {"allowed": protocol.ByGate, "floor": protocol.ByFloor, "open": "", "human-only": ""},
		protocol.ModeAuto: {"allowed": protocol.ByGate, "floor": protocol.ByFloor, "open": protocol.ByMode, "human-only": ""},
		protocol.ModeFull: {"allowed": protocol.ByGate, "floor": protocol.ByFloor, "open": protocol.ByMode, "human-only": protocol.ByMode},
	}
	for mode, byCall := range want {
		for name, by := range byCall {
			t.Run(string(mode)+"/"+name, func(t *testing.T) {
				srv := New(Config{Project: t.TempDir(), DBPath: filepath.Join(t.TempDir(), "a.db"), Home: t.TempDir()})
				require.NoError(t, srv.Open())
				defer srv.Close()
				sess, err := srv.session("s")
				require.NoError(t, err)
				sess.mu.Lock()
				sess.info.Mode = mode
				sess.mu.Unlock()
				call := toolCallOf(calls[name])

				reply, err := srv.decide(context.Background(), srv.w, sess, 1, call, false, true)
				recs, _, aerr := srv.w.db.Audit(store.AuditQuery{})
				require.NoError(t, aerr)
				if by == "" {
					assert.True(t, errors.Is(err, errUnsettled), "want unsettled, got %v %+v", err, reply)
					assert.Empty(t, recs, "an unsettled call left no record")
					return
				}
				require.NoError(t, err)
				assert.Equal(t, by, reply.Meta.DecidedBy)
				assert.Len(t, recs, 1)
				full, err := srv.decide(context.Background(), srv.w, sess, 1, call, false, false)
				require.NoError(t, err)
				assert.Equal(t, full.Reply, reply.Reply, "the full pipeline answers the same")
				assert.Equal(t, full.Meta.DecidedBy, reply.Meta.DecidedBy)
			})
		}
	}
}
