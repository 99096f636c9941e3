package store

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/perm-peer/perm-peer/protocol"
)

func TestHookTurnNumbersEachPromptOnce(t *testing.T) {
	db := openTemp(t)
	if got, err := db.HookTurn("s1"); err != nil || got != (HookTurn{}) {
		t.Fatalf("fresh HookTurn = %+v, %v; want zero, nil", got, err)
	}
	var wg sync.WaitGroup
	seen := make(chan int, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tt, err := db.NextHookTurn("s1", "p", "/w")
			if err != nil {
				t.Error(err)
				return
			}
			seen <- tt.Turn
		}()
	}
	wg.Wait()
	close(seen)
	got := map[int]bool{}
	for n := range seen {
		if got[n] {
			t.Fatalf("turn %d handed out twice", n)
		}
		got[n] = true
	}
	for n := 1; n <= 8; n++ {
		if !got[n] {
			t.Fatalf("turn %d missing: %v", n, got)
		}
	}
	if err := db.SetHookCwd("s1", "/w/sub"); err != nil {
		t.Fatal(err)
	}
	tt, err := db.HookTurn("s1")
	if err != nil || tt.Turn != 8 || tt.Prompt != "p" || tt.Cwd != "/w/sub" {
		t.Fatalf("HookTurn = %+v, %v; want turn 8, prompt p, cwd /w/sub", tt, err)
	}
	if other, _ := db.HookTurn("s2"); other.Turn != 0 {
		t.Fatalf("s2 sees s1's turn: %+v", other)
	}
}

func TestPendingAskIsTakenOnce(t *testing.T) {
	db := openTemp(t)
	call := protocol.ToolCall{ToolCallID: "toolu_1", Tool: "Bash", RawInput: json.RawMessage(`{"command":"make"}`)}
	if err := db.PutPendingAsk("s1", PendingAsk{ID: "toolu_1", Turn: 2, Call: call}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutPendingAsk("s1x", PendingAsk{ID: "toolu_2", Call: call}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutPendingAsk("s1", PendingAsk{}); err == nil {
		t.Fatal("an ask without an id was stored")
	}
	list, err := db.PendingAsks("s1")
	if err != nil || len(list) != 1 || list[0].ID != "toolu_1" || list[0].Turn != 2 || list[0].Asked == "" ||
		string(list[0].Call.RawInput) != `{"command":"make"}` {
		t.Fatalf("PendingAsks(s1) = %+v, %v; want the one ask of s1 (not s1x's)", list, err)
	}
	if err := db.SetHookCwd("s1", "/w"); err != nil {
		t.Fatal(err)
	}
	turn, asks, err := db.HookState("s1")
	if err != nil || turn.Cwd != "/w" || len(asks) != 1 || asks[0].ID != "toolu_1" {
		t.Fatalf("HookState(s1) = %+v, %+v, %v; want cwd /w and the one ask", turn, asks, err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	taken := 0
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, ok, err := db.TakePendingAsk("s1", "toolu_1")
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				taken++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if taken != 1 {
		t.Fatalf("the ask was taken %d times, want 1", taken)
	}
	if list, _ := db.PendingAsks("s1"); len(list) != 0 {
		t.Fatalf("after the take: %+v", list)
	}
}

// TestStaleHookSessions: a session whose turn was written before the
// cutoff, with no ask left after it, is stale (its asks listed with it);
// one with a recent turn or ask, or a turn without a time (an older
// perm-peer), is not; limit bounds the list; dropping removes the
// session's turn and asks only.
func TestStaleHookSessions(t *testing.T) {
	db := openTemp(t)
	cutoff := time.Now().Add(-time.Hour)
	old := cutoff.Add(-time.Minute).UTC().Format(time.RFC3339Nano)
	call := protocol.ToolCall{ToolCallID: "t", Tool: "Bash", RawInput: json.RawMessage(`{"command":"make"}`)}
	for _, s := range []string{"gone", "gone2", "recent-ask", "recent", "timeless"} {
		_, err := db.NextHookTurn(s, "p", "/w")
		require.NoError(t, err)
	}
	require.NoError(t, db.PutPendingAsk("gone", PendingAsk{ID: "a1", Call: call, Asked: old}))
	require.NoError(t, db.PutPendingAsk("recent-ask", PendingAsk{ID: "a2", Call: call}))
	require.NoError(t, db.PutPendingAsk("recent", PendingAsk{ID: "a3", Call: call}))
	rawUpdate(t, db.path, func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketHooks)
		for s, at := range map[string]string{"gone": old, "gone2": old, "recent-ask": old, "timeless": ""} {
			if err := putJSON(b, hookTurnKey(s), HookTurn{Turn: 1, Cwd: "/w", At: at}); err != nil {
				return err
			}
		}
		return nil
	})

	stale, err := db.StaleHookSessions(cutoff, 10)
	require.NoError(t, err)
	require.Len(t, stale, 2)
	require.Equal(t, "gone", stale[0].ID)
	require.Equal(t, []string{"a1"}, []string{stale[0].Asks[0].ID})
	require.Equal(t, "gone2", stale[1].ID)
	require.Empty(t, stale[1].Asks)
	one, err := db.StaleHookSessions(cutoff, 1)
	require.NoError(t, err)
	require.Len(t, one, 1)

	require.NoError(t, db.DropHookSession("gone"))
	turn, asks, err := db.HookState("gone")
	require.NoError(t, err)
	require.Equal(t, HookTurn{}, turn)
	require.Empty(t, asks)
	_, asks, err = db.HookState("recent")
	require.NoError(t, err)
	require.Len(t, asks, 1, "another session's state stays")
}
