package peer

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// fuzzMethods are the methods whose params the fuzzer targets, each with a
// constructor of its params type.
var fuzzMethods = []struct {
	name   string
	params func() any
}{
	{protocol.MethodInitialize, func() any { return &protocol.InitializeParams{} }},
	{protocol.MethodSessionOpen, func() any { return &protocol.SessionOpenParams{} }},
	{protocol.MethodSessionTurn, func() any { return &protocol.SessionTurnParams{} }},
	{protocol.MethodSessionClose, func() any { return &protocol.SessionCloseParams{} }},
	{protocol.MethodRequestPermission, func() any { return &protocol.RequestPermissionParams{} }},
	{protocol.MethodPermissionCheck, func() any { return &protocol.CheckParams{} }},
	{protocol.MethodPermissionAudit, func() any { return &protocol.AuditParams{} }},
	{protocol.MethodPermissionRules, func() any { return &protocol.RulesParams{} }},
	{protocol.MethodGrantsList, func() any { return &protocol.GrantsListParams{} }},
	{protocol.MethodGrantsRevoke, func() any { return &protocol.GrantsRevokeParams{} }},
	{protocol.MethodCancelRequest, func() any { return &protocol.CancelParams{} }},
	{protocol.MethodACPCancelRequest, func() any { return &protocol.ACPCancelRequestParams{} }},
	{protocol.MethodACPRequestPermission, func() any { return &protocol.ACPRequestPermissionParams{} }},
	{protocol.MethodACPSessionUpdate, func() any { return &protocol.ACPSessionUpdateParams{} }},
	{protocol.MethodACPSessionCancel, func() any { return &protocol.ACPSessionCancelParams{} }},
}

// fuzzSeeds are valid and almost-valid params, by method name.
var fuzzSeeds = []struct{ method, params string }{
	{protocol.MethodInitialize, `{"protocolVersion":1,"capabilities":{"prompt":true},"project":{"root":"/repo"}}`},
	{protocol.MethodInitialize, `{"protocolVersion":"1"}`},
	{protocol.MethodSessionOpen, `{"sessionId":"s1","parentSessionId":"s0","mode":"ai","tier":"standard","agent":"zed"}`},
	{protocol.MethodSessionOpen, `{"sessionId":"s1","mode":"yolo"}`},
	{protocol.MethodSessionOpen, `{"sessionId":"s2","parentSessionId":"s2"}`},
	{protocol.MethodSessionTurn, `{"sessionId":"s1","turn":2,"userMessage":"fix the tests"}`},
	{protocol.MethodRequestPermission, `{"sessionId":"s1","turn":1,"toolCall":{"toolCallId":"c1","tool":"bash","kind":"execute","rawInput":{"command":"git status"}}}`},
	{protocol.MethodRequestPermission, `{"sessionId":"s1","turn":1,"toolCall":{"tool":"read","kind":"read","rawInput":{"path":"README.md"},"locations":[{"path":"/repo/README.md","line":3}]}}`},
	{protocol.MethodRequestPermission, `{"sessionId":"s1","turn":-1,"toolCall":{"tool":"bash","kind":"exec","rawInput":{"command":"rm -rf /"}}}`},
	{protocol.MethodRequestPermission, `{"sessionId":7,"toolCall":{}}`},
	{protocol.MethodRequestPermission, `{"sessionId":"s1","toolCall":{"tool":"bash","rawInput":{"cmd":["git","status"]}},"extra":true}`},
	{protocol.MethodPermissionCheck, `{"toolCall":{"tool":"bash","rawInput":{"command":"ls -la"}}}`},
	{protocol.MethodPermissionAudit, `{"sessionId":"s1","after":"3","limit":10}`},
	{protocol.MethodPermissionAudit, `{"limit":-1,"after":"x"}`},
	{protocol.MethodPermissionRules, `{"sessionId":"s1"}`},
	{protocol.MethodGrantsList, `{}`},
	{protocol.MethodGrantsRevoke, `{"id":"g-1"}`},
	{protocol.MethodCancelRequest, `{"id":12}`},
	{protocol.MethodACPCancelRequest, `{"requestId":"r1"}`},
	{protocol.MethodACPRequestPermission, `{"sessionId":"a1","toolCall":{"toolCallId":"t1","title":"ls","kind":"execute","rawInput":{"command":"ls"}},"options":[{"optionId":"o1","name":"Allow","kind":"allow_once"},{"optionId":"o2","name":"Reject","kind":"reject_once"}]}`},
	{protocol.MethodACPSessionUpdate, `{"sessionId":"a1","update":{"sessionUpdate":"tool_call","toolCallId":"t2","title":"cat","kind":"read","rawInput":{"path":"README.md"}}}`},
	{protocol.MethodACPSessionCancel, `{"sessionId":"a1"}`},
	{protocol.MethodRequestPermission, `null`},
	{protocol.MethodRequestPermission, `[]`},
}

func methodIndex(name string) uint8 {
	for i, m := range fuzzMethods {
		if m.name == name {
			return uint8(i)
		}
	}
	panic("unknown fuzz method " + name)
}

// peerState is what a request could change: live sessions (with their
// mutable parts), the audit and the grants.
type peerState struct {
	sessions string
	audit    int
	grants   int
}

// stateOf reads the server's state; lastID/count carry the audit position
// between calls so each read only pages over new records.
func stateOf(t *testing.T, s *Server, audit *struct {
	lastID string
	count  int
}) peerState {
	t.Helper()
	s.mu.Lock()
	var lines []string
	for id, ss := range s.sessions {
		ss.mu.Lock()
		lines = append(lines, fmt.Sprintf("%s %+v turn=%d msg=%q cache=%d hist=%d acp=%d", id, ss.info, ss.turn, ss.userMessage, len(ss.cache), len(ss.history), len(ss.acpCalls)))
		ss.mu.Unlock()
	}
	db := s.w.db
	s.mu.Unlock()
	slices.Sort(lines)
	for {
		recs, next, err := db.Audit(store.AuditQuery{After: audit.lastID, Limit: store.MaxAuditLimit})
		if err != nil {
			t.Fatalf("read audit: %v", err)
		}
		audit.count += len(recs)
		if len(recs) > 0 {
			audit.lastID = recs[len(recs)-1].ID
		}
		if next == "" {
			break
		}
	}
	grants, err := db.Grants()
	if err != nil {
		t.Fatalf("read grants: %v", err)
	}
	return peerState{sessions: fmt.Sprint(lines), audit: audit.count, grants: len(grants)}
}

// FuzzParams feeds arbitrary params to every method. decodeParams never
// panics and fails only with -32602; through the dispatcher, a -32602 never
// comes with a changed state, and an approval always names its audit record.
func FuzzParams(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(methodIndex(s.method), []byte(s.params))
	}
	dir := f.TempDir()
	project := filepath.Join(dir, "repo")
	if err := os.MkdirAll(project, 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(project, "README.md"), []byte("hi\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	srv := New(Config{Project: project, DBPath: filepath.Join(dir, "fuzz.db"), UserPolicyFile: filepath.Join(dir, "none.json"), Home: dir})
	if err := srv.Open(); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = srv.Close() })
	var audit struct {
		lastID string
		count  int
	}

	f.Fuzz(func(t *testing.T, m uint8, params []byte) {
		method := fuzzMethods[int(m)%len(fuzzMethods)]
		raw := json.RawMessage(params)

		decErr := decodeParams(method.name, &raw, method.params())
		if decErr != nil && decErr.Code != protocol.CodeInvalidParams {
			t.Fatalf("%s %q: decodeParams failed with code %d, want only -32602: %v", method.name, params, decErr.Code, decErr)
		}
		// Frames that are not JSON never reach the dispatcher (the stream
		// answers them -32700), and lifecycle methods run outside it.
		if !json.Valid(params) || method.name == protocol.MethodInitialize {
			return
		}
		before := stateOf(t, srv, &audit)
		req := &jsonrpc2.Request{Method: method.name, Params: &raw, ID: jsonrpc2.ID{Num: 1}}
		var res result
		if isNotification(method.name) {
			srv.handleNotification(req, srv.frames.Add(1))
		} else {
			// Settled-only first, as the read loop does: a request it
			// leaves unsettled has recorded and granted nothing. (It may
			// have prepared its session, created it or moved it to the
			// turn the request names, which the re-dispatch does first
			// anyway, idempotently.)
			res = srv.dispatch(context.Background(), req, true)
			if res.unsettled {
				if mid := stateOf(t, srv, &audit); mid.audit != before.audit || mid.grants != before.grants {
					t.Fatalf("%s %q: left unsettled but recorded or granted something:\nbefore %+v\nafter  %+v", method.name, params, before, mid)
				}
				res = srv.dispatch(context.Background(), req, false)
			}
		}
		after := stateOf(t, srv, &audit)
		invalid := decErr != nil || res.err != nil && res.err.Code == protocol.CodeInvalidParams
		if invalid && before != after {
			t.Fatalf("%s %q: invalid params (%v / %v) but the state changed:\nbefore %+v\nafter  %+v", method.name, params, decErr, res.err, before, after)
		}
		if decErr != nil && !isNotification(method.name) && (res.err == nil || res.err.Code != protocol.CodeInvalidParams) {
			t.Fatalf("%s %q: params fail validation (%v) but the method answered %+v", method.name, params, decErr, res)
		}
		if r, ok := res.value.(protocol.PermissionReply); ok && r.Reply != protocol.ReplyReject {
			if r.Meta == nil || r.Meta.AuditID == "" || after.audit != before.audit+1 {
				t.Fatalf("%s %q: approval %+v without exactly one new audit record (%d → %d)", method.name, params, r, before.audit, after.audit)
			}
		}
	})
}

func isNotification(method string) bool {
	switch method {
	case protocol.MethodSessionTurn, protocol.MethodSessionClose, protocol.MethodCancelRequest,
		protocol.MethodACPCancelRequest, protocol.MethodACPSessionUpdate, protocol.MethodACPSessionCancel:
		return true
	}
	return false
}
