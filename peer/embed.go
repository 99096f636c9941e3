package peer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/redact"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// Embedded use. The host adapters (the ACP proxy, the host hooks) run this
// same pipeline, store and judge without a JSON-RPC connection to an
// editor: each method below is the in-process twin of a wire method, and
// each event it takes is numbered like a frame off the wire, so that a
// cancellation withdraws exactly the requests that came before it.
//
// Open (or UseProject) must succeed before these are called; Close releases
// the DB. All methods are safe for concurrent use.

// UseProject makes dir (absolute) the project decided for: its policy, its
// DB and grants. A project other than the current one is opened, and the
// old one's DB closed; an error leaves the current project in place.
func (s *Server) UseProject(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("project root %q is not an absolute path", dir)
	}
	_, err := s.useProject(filepath.Clean(dir))
	return err
}

// OwnsHookAsks reports whether the policy makes perm-peer, not a hooked
// host, answer the calls that need an ask but no particular human
// (policy "hookAsks": "perm-peer").
func (s *Server) OwnsHookAsks() bool {
	w, err := s.world()
	return err == nil && w.policy.OwnsHookAsks()
}

// Project is the root of the project decided for ("" before Open).
func (s *Server) Project() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return ""
	}
	return s.w.project
}

// errNoSession is the error for an empty session id.
var errNoSession = errors.New("empty session id")

// event numbers an in-process event like a frame read off the wire.
func (s *Server) event(ctx context.Context) context.Context {
	return withArrival(ctx, s.frames.Add(1))
}

// Decide is session/requestPermission: it runs SPEC §4's pipeline for call
// in session sessionID (loaded, or created with the defaults) and returns
// the reply after its audit record is durable. turn 0 is the session's
// current turn. ask puts a call that needs a human to one (nil: headless
// reject); an ask that returns ErrDeferred makes Decide return ErrDeferred
// with nothing recorded and the reply's _meta saying why a human is needed.
// Any other error means nothing was allowed.
func (s *Server) Decide(ctx context.Context, sessionID string, turn int, call protocol.ToolCall, ask Asker) (protocol.PermissionReply, error) {
	w, sess, err := s.live(sessionID)
	if err != nil {
		return protocol.PermissionReply{}, err
	}
	return s.decide(s.event(ctx), w, sess, turn, call, ask, false)
}

// DecideACP is ACP's session/request_permission, answered with the option
// of p whose kind matches the decision ("cancelled" when none fits or the
// session's calls were withdrawn). It decides on the call as session/update
// described it (NoteACPUpdate), the request's own fields over it.
func (s *Server) DecideACP(ctx context.Context, p protocol.ACPRequestPermissionParams, ask Asker) (protocol.ACPRequestPermissionResult, error) {
	if p.ToolCall.ToolCallID == "" {
		return protocol.ACPRequestPermissionResult{}, errors.New("the request has no toolCall.toolCallId")
	}
	w, sess, err := s.live(p.SessionID)
	if err != nil {
		return protocol.ACPRequestPermissionResult{}, err
	}
	return s.decideACP(s.event(ctx), w, sess, p, ask, false)
}

// NoteACPUpdate is ACP's session/update: tool_call and tool_call_update
// updates are remembered for the session's later permission requests.
func (s *Server) NoteACPUpdate(p protocol.ACPSessionUpdateParams) {
	s.frames.Add(1)
	s.noteACPUpdate(p)
}

// OpenSession is session/open: the session's parent, cwd, mode, tier and
// agent, persisted.
func (s *Server) OpenSession(p protocol.SessionOpenParams) error {
	if p.SessionID == "" {
		return errNoSession
	}
	if p.ParentSessionID == p.SessionID {
		return fmt.Errorf("session %s cannot be its own parent", p.SessionID)
	}
	w, err := s.world()
	if err != nil {
		return err
	}
	s.frames.Add(1)
	return s.openSession(w, p)
}

// BeginTurn is session/turn: dialog turn n of the session begins, with the
// user's message as the judge's task context.
func (s *Server) BeginTurn(sessionID string, turn int, userMessage string) error {
	_, sess, err := s.live(sessionID)
	if err != nil {
		return err
	}
	s.frames.Add(1)
	sess.beginTurn(turn, userMessage)
	return nil
}

// Turn is the session's current turn number.
func (s *Server) Turn(sessionID string) (int, error) {
	_, sess, err := s.live(sessionID)
	if err != nil {
		return 0, err
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.turn, nil
}

// CancelSession is ACP's session/cancel: every request of the session that
// came before it is withdrawn (pending asks end; decisions still running are
// recorded as headless rejects and DecideACP answers "cancelled").
func (s *Server) CancelSession(sessionID string) {
	s.withdrawSession(sessionID, s.frames.Add(1))
}

// RecordUserReply audits a human's answer that was given through the host's
// own prompt (after Decide returned ErrDeferred) and applies it: "always"
// becomes a grant only where the gate offers one (it is recorded as "once"
// otherwise), a note becomes a user rule. It returns the reply as applied.
func (s *Server) RecordUserReply(ctx context.Context, sessionID string, turn int, call protocol.ToolCall, user protocol.PermissionReply) (protocol.PermissionReply, error) {
	ctx, rq, err := s.hostRequest(ctx, sessionID, turn, call)
	if err != nil {
		return protocol.PermissionReply{}, err
	}
	offered := rq.verdict.Always != nil && !rq.verdict.HumanOnly
	return s.commit(ctx, rq, rq.fromUser(user, offered, "answered in the host's own prompt: "+reasonText(rq.verdict)))
}

// hostRequest is a request for a call a host adapter reports on (its
// outcome, its user's answer, a repeat of a rejection), in turn of
// session sessionID, with the gate's verdict on it. A report that comes
// in a later turn (the host wrote the outcome late) is recorded in the
// call's own turn (turn 0: the current one).
func (s *Server) hostRequest(ctx context.Context, sessionID string, turn int, call protocol.ToolCall) (context.Context, *request, error) {
	w, sess, err := s.live(sessionID)
	if err != nil {
		return ctx, nil, err
	}
	ctx = s.event(ctx)
	rq := &request{snapshot: sess.begin(turn), arrival: s.arrival(ctx), w: w, sess: sess, call: call}
	if turn > 0 {
		rq.turn = turn
	}
	rq.verdict = s.analyze(w, sess, call)
	return ctx, rq, nil
}

// live is the world and the live session sessionID.
func (s *Server) live(sessionID string) (*world, *session, error) {
	if sessionID == "" {
		return nil, nil, errNoSession
	}
	w, err := s.world()
	if err != nil {
		return nil, nil, err
	}
	sess, err := s.session(sessionID)
	if err != nil {
		return nil, nil, err
	}
	return w, sess, nil
}

// DB is the open project's store, for a host adapter's own state (the
// hooks' turns and pending asks) in the same file and under the same lock
// as the audit, instead of a second handle on it.
func (s *Server) DB() (*store.DB, error) {
	w, err := s.world()
	if err != nil {
		return nil, err
	}
	return w.db, nil
}

// Check is permission/check in process: the gate's verdict on call in
// session sessionID (its cwd, "always" cache and the project's grants). A
// dry run: nothing is recorded, no judge, no human.
func (s *Server) Check(sessionID string, call protocol.ToolCall) (protocol.CheckResult, error) {
	w, sess, err := s.live(sessionID)
	if err != nil {
		return protocol.CheckResult{}, err
	}
	v := s.analyze(w, sess, call)
	return protocol.CheckResult{Decision: v.Decision, Risk: v.Risk, HumanOnly: v.HumanOnly, Reasons: v.Reasons, Facts: v.Facts}, nil
}

// ACPCall is the call DecideACP decides for p: p's tool call merged over
// what session/update said of it.
func (s *Server) ACPCall(p protocol.ACPRequestPermissionParams) (protocol.ToolCall, error) {
	_, sess, err := s.live(p.SessionID)
	if err != nil {
		return protocol.ToolCall{}, err
	}
	sess.mu.Lock()
	merged := mergeACP(sess.acpCalls[p.ToolCall.ToolCallID], p.ToolCall)
	sess.mu.Unlock()
	return acpToolCall(merged), nil
}

type commitClaimKey struct{}

// WithCommitClaim returns ctx carrying claim, which a decision made under
// it calls just before its audit record is written. A caller that answers
// on a deadline of its own (a hook's watchdog) uses it to stop racing the
// decision once the record is being written: after claim returns, the
// decision is recorded as a headless reject if ctx was cancelled, else as
// decided, so the record and the caller's answer agree.
func WithCommitClaim(ctx context.Context, claim func()) context.Context {
	return context.WithValue(ctx, commitClaimKey{}, claim)
}

// ReasonHostOutcome is the code of the reason a host outcome's record
// carries after the gate's: what the host adapter knows of the outcome.
const ReasonHostOutcome = "host.outcome"

// RecordHostOutcome audits what became of a call a host adapter left to
// its host when no person answered it: the host's own rules or mode ran it
// (once) or refused it (reject). The record names the host as the
// decider, never the user, and keeps reason (code ReasonHostOutcome).
func (s *Server) RecordHostOutcome(ctx context.Context, sessionID string, turn int, call protocol.ToolCall, kind protocol.ReplyKind, reason string) (protocol.PermissionReply, error) {
	ctx, rq, err := s.hostRequest(ctx, sessionID, turn, call)
	if err != nil {
		return protocol.PermissionReply{}, err
	}
	d := rq.finish(kind, protocol.ByHost, protocol.SourceHost, reason, "")
	d.rec.Reasons = append(slices.Clip(d.rec.Reasons), protocol.Reason{Code: ReasonHostOutcome, Detail: reason})
	return s.commit(ctx, rq, d)
}

// RejectedBefore is the note of the user's rejection, earlier in session
// sessionID, of this exact call (as recorded: redacted), if they gave one
// and have not changed their mind since: a later approval of the same call,
// or a grant or allow rule that now covers it (perm-peer allow, "always"),
// is their later word and wins.
func (s *Server) RejectedBefore(sessionID string, call protocol.ToolCall) (string, bool) {
	w, sess, err := s.live(sessionID)
	if err != nil {
		return "", false
	}
	recs, err := w.db.UserReplies(sessionID, MaxRuleRecords)
	if err != nil {
		return "", false
	}
	want := redact.ToolCall(call)
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if !sameToolCall(r.ToolCall, want) {
			continue
		}
		if r.Decision != protocol.ReplyReject {
			return "", false
		}
		if r.Reply.Feedback != "" {
			return r.Reply.Feedback, !allowedByUser(s.analyze(w, sess, call))
		}
	}
	return "", false
}

// allowedByUser reports whether v allows by something the user made: a
// grant, a session's "always" or an allow rule of their policy (not the
// gate's known-safe list, which a user's rejection overrides).
func allowedByUser(v gate.Verdict) bool {
	if v.Decision != protocol.DecisionAllow {
		return false
	}
	switch v.DecidedBy {
	case protocol.ByGrant, protocol.BySession, protocol.ByRule:
		return true
	}
	return false
}

// RepeatRejection audits and returns the reject of a call the user
// rejected before in this session with a note: their rule, with their note
// as the agent's feedback, whatever the mode and with or without a judge.
func (s *Server) RepeatRejection(ctx context.Context, sessionID string, turn int, call protocol.ToolCall, note string) (protocol.PermissionReply, error) {
	ctx, rq, err := s.hostRequest(ctx, sessionID, turn, call)
	if err != nil {
		return protocol.PermissionReply{}, err
	}
	if rq.verdict.Decision == protocol.DecisionDeny { // a floor or deny rule names itself
		return s.commit(ctx, rq, rq.finish(protocol.ReplyReject, rq.verdict.DecidedBy, protocol.SourceAuto, reasonText(rq.verdict), feedbackPolicy))
	}
	return s.commit(ctx, rq, rq.finish(protocol.ReplyReject, protocol.ByRule, protocol.SourceAuto,
		"the user rejected this exact call earlier in this session", feedbackUser+" earlier in this session: "+note))
}

// sameToolCall reports whether two recorded calls are one: the same tool
// with the same input, compared as JSON values.
func sameToolCall(a, b protocol.ToolCall) bool {
	return a.Tool == b.Tool && jsonValue(a.RawInput) == jsonValue(b.RawInput)
}

func jsonValue(raw []byte) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&v) != nil {
		return string(raw)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(out)
}
