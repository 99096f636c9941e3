package peer

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

func openEmbedded(t *testing.T) *Server {
	t.Helper()
	home := t.TempDir()
	srv := New(Config{Project: t.TempDir(), DBPath: filepath.Join(t.TempDir(), "a.db"), UserPolicyFile: filepath.Join(home, "none.json"), Home: home})
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func auditOf(t *testing.T, srv *Server, session string) []protocol.AuditRecord {
	t.Helper()
	recs, _, err := srv.w.db.Audit(store.AuditQuery{SessionID: session})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// An Asker that defers leaves the call undecided and unrecorded; the host's
// answer, recorded later, is the user's and grants what the gate offers.
func TestDecideDeferredThenRecordUserReply(t *testing.T) {
	srv := openEmbedded(t)
	call := toolCallOf("make build")
	var asked protocol.AskParams
	defer1 := func(_ context.Context, p protocol.AskParams) (protocol.PermissionReply, error) {
		asked = p
		return protocol.PermissionReply{}, ErrDeferred
	}
	reply, err := srv.Decide(context.Background(), "s1", 1, call, defer1)
	if !errors.Is(err, ErrDeferred) {
		t.Fatalf("Decide = %v, %v; want ErrDeferred", reply, err)
	}
	if reply.Meta == nil || reply.Meta.Reason == "" {
		t.Errorf("a deferred reply explains why a human is needed: %+v", reply.Meta)
	}
	if asked.SessionID != "s1" || len(asked.Options) != 3 {
		t.Errorf("ask params = %+v; want session s1 with once/always/reject", asked)
	}
	if n := len(auditOf(t, srv, "s1")); n != 0 {
		t.Fatalf("a deferred call was recorded (%d records)", n)
	}

	got, err := srv.RecordUserReply(context.Background(), "s1", 1, call, protocol.PermissionReply{Reply: protocol.ReplyAlways, Feedback: "builds are fine"})
	if err != nil || got.Reply != protocol.ReplyAlways || got.Meta.DecidedBy != protocol.ByUser {
		t.Fatalf("RecordUserReply = %+v, %v", got, err)
	}
	recs := auditOf(t, srv, "s1")
	if len(recs) != 1 || recs[0].Source != protocol.SourceUser || recs[0].Grant == "" || recs[0].Reply.Feedback != "builds are fine" {
		t.Fatalf("records = %+v; want one user always with its grant and note", recs)
	}
	// The grant now covers the same call without asking.
	reply, err = srv.Decide(context.Background(), "s1", 1, call, defer1)
	if err != nil || reply.Reply != protocol.ReplyOnce || reply.Meta.DecidedBy != protocol.BySession {
		t.Fatalf("after always: %+v, %v; want once by session", reply, err)
	}
}

// A human-only call answered "always" in the host's prompt runs once and
// grants nothing.
func TestRecordUserReplyAlwaysNotOffered(t *testing.T) {
	srv := openEmbedded(t)
	call := toolCallOf("git push --force origin main")
	got, err := srv.RecordUserReply(context.Background(), "s1", 0, call, protocol.PermissionReply{Reply: protocol.ReplyAlways})
	if err != nil || got.Reply != protocol.ReplyOnce {
		t.Fatalf("RecordUserReply = %+v, %v; want once", got, err)
	}
	if recs := auditOf(t, srv, "s1"); len(recs) != 1 || recs[0].Grant != "" || recs[0].Decision != protocol.ReplyOnce {
		t.Fatalf("records = %+v; want one once without a grant", recs)
	}
}

// CancelSession withdraws a pending ask: the asker's context ends, the call
// is recorded as a headless reject and DecideACP answers "cancelled".
func TestCancelSessionWithdrawsPendingACP(t *testing.T) {
	srv := openEmbedded(t)
	srv.NoteACPUpdate(protocol.ACPSessionUpdateParams{SessionID: "a1",
		Update: json.RawMessage(`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"make","kind":"execute","rawInput":{"command":"make deploy"}}`)})
	asking := make(chan struct{})
	ask := func(ctx context.Context, _ protocol.AskParams) (protocol.PermissionReply, error) {
		close(asking)
		<-ctx.Done()
		return protocol.PermissionReply{}, ctx.Err()
	}
	done := make(chan protocol.ACPRequestPermissionResult, 1)
	go func() {
		out, err := srv.DecideACP(context.Background(), protocol.ACPRequestPermissionParams{SessionID: "a1",
			ToolCall: protocol.ACPToolCallUpdate{ToolCallID: "t1"},
			Options:  []protocol.ACPPermissionOption{{OptionID: "yes", Name: "Allow", Kind: protocol.ACPAllowOnce}, {OptionID: "no", Name: "Reject", Kind: protocol.ACPRejectOnce}}}, ask)
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	<-asking
	srv.CancelSession("a1")
	out := <-done
	if out.Outcome.Outcome != protocol.ACPOutcomeCancelled && out.Outcome.OptionID != "no" {
		t.Fatalf("outcome = %+v; want cancelled or the reject option", out.Outcome)
	}
	recs := auditOf(t, srv, "a1")
	if len(recs) != 1 || recs[0].Decision != protocol.ReplyReject || recs[0].DecidedBy != protocol.ByHeadless {
		t.Fatalf("records = %+v; want one headless reject", recs)
	}
	if got := recs[0].ToolCall.RawInput; string(got) == "" {
		t.Errorf("the record lost the call that session/update described")
	}
}

// Check is a dry run of the gate; ACPCall is the call DecideACP would
// decide: the request merged over what session/update announced.
func TestCheckAndACPCall(t *testing.T) {
	srv := openEmbedded(t)
	c, err := srv.Check("s1", toolCallOf("rm -rf /"))
	if err != nil || c.Decision != protocol.DecisionDeny || len(c.Facts) == 0 {
		t.Fatalf("Check(rm -rf /) = %+v, %v", c, err)
	}
	if n := len(auditOf(t, srv, "s1")); n != 0 {
		t.Fatalf("a dry run recorded %d records", n)
	}
	srv.NoteACPUpdate(protocol.ACPSessionUpdateParams{SessionID: "s1",
		Update: json.RawMessage(`{"sessionUpdate":"tool_call","toolCallId":"t1","title":"run","kind":"execute","rawInput":{"command":"make"},"_meta":{"claudeCode":{"toolName":"Bash"}}}`)})
	call, err := srv.ACPCall(protocol.ACPRequestPermissionParams{SessionID: "s1", ToolCall: protocol.ACPToolCallUpdate{ToolCallID: "t1", Title: "run make"}})
	if err != nil || call.Tool != "Bash" || call.Title != "run make" || string(call.RawInput) != `{"command":"make"}` {
		t.Fatalf("ACPCall = %+v, %v", call, err)
	}
}
