package peer

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

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

				reply, err := srv.decide(context.Background(), srv.w, sess, 1, call, nil, true)
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
				full, err := srv.decide(context.Background(), srv.w, sess, 1, call, nil, false)
				require.NoError(t, err)
				assert.Equal(t, full.Reply, reply.Reply, "the full pipeline answers the same")
				assert.Equal(t, full.Meta.DecidedBy, reply.Meta.DecidedBy)
			})
		}
	}
}

// An ACP request that arrived before a session/cancel is answered
// "cancelled" even if it only starts deciding after the cancel was handled
// (it waited for a worker); one that arrived after the cancel is decided.
func TestACPCancelFollowsWireOrder(t *testing.T) {
	srv := New(Config{Project: t.TempDir(), DBPath: filepath.Join(t.TempDir(), "a.db"), Home: t.TempDir()})
	require.NoError(t, srv.Open())
	defer srv.Close()
	_, err := srv.session("a1")
	require.NoError(t, err)
	raw := func(s string) *json.RawMessage { m := json.RawMessage(s); return &m }
	cancel := &jsonrpc2.Request{Method: protocol.MethodACPSessionCancel, Notif: true, Params: raw(`{"sessionId":"a1"}`)}
	srv.handleNotification(cancel, 2)
	request := &jsonrpc2.Request{Method: protocol.MethodACPRequestPermission, ID: jsonrpc2.ID{Num: 1}, Params: raw(
		`{"sessionId":"a1","toolCall":{"toolCallId":"t1","kind":"execute","rawInput":{"command":"make deploy"}},` +
			`"options":[{"optionId":"y","name":"Allow","kind":"allow_once"},{"optionId":"n","name":"Reject","kind":"reject_once"}]}`)}
	for _, tc := range []struct {
		arrival uint64
		want    protocol.ACPOutcome
	}{
		{1, protocol.ACPOutcome{Outcome: protocol.ACPOutcomeCancelled}},
		{3, protocol.ACPOutcome{Outcome: protocol.ACPOutcomeSelected, OptionID: "n"}}, // headless: nobody to ask
	} {
		res := srv.dispatch(withArrival(context.Background(), tc.arrival), request, false)
		require.Nil(t, res.err)
		assert.Equal(t, tc.want, res.value.(protocol.ACPRequestPermissionResult).Outcome, "arrival %d", tc.arrival)
	}
}
