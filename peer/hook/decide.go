package hook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/perm-peer/perm-peer/peer"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// call is one hook call being decided.
type call struct {
	srv  *peer.Server
	db   *store.DB
	ev   Event
	turn store.HookTurn
	// pending are the session's pending asks as the call found them.
	pending []store.PendingAsk
	// claim is called as this call's decision starts its audit record
	// (the watchdog must not answer otherwise from then on).
	claim func()
}

// claimed is ctx for the call's own decision: see peer.WithCommitClaim.
func (c *call) claimed(ctx context.Context) context.Context {
	if c.claim == nil {
		return ctx
	}
	return peer.WithCommitClaim(ctx, c.claim)
}

// transcriptSize is the size of the host's transcript now (0 when there
// is none, or it is not a regular file).
func (c *call) transcriptSize() int64 {
	if c.ev.Transcript == "" {
		return 0
	}
	st, err := os.Stat(c.ev.Transcript)
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return st.Size()
}

// leaveToHost is the hooks' Asker: a call that needs a human is left to the
// host's own dialog, and the human's answer is audited when the host
// reports it (StagePostTool, or the transcript).
func leaveToHost(context.Context, protocol.AskParams) (protocol.PermissionReply, error) {
	return protocol.PermissionReply{}, peer.ErrDeferred
}

// decide restores the session's turn, settles what earlier calls left
// open, and decides the event.
func (c *call) decide(ctx context.Context) (Outcome, error) {
	fresh, err := c.restoreTurn()
	if err != nil {
		return Outcome{}, err
	}
	if fresh {
		c.endStaleSessions(ctx)
	}
	if c.ev.Transcript != "" {
		c.settleAsks(ctx)
	}
	switch c.ev.Stage {
	case StagePrompt:
		return Outcome{}, nil
	case StagePreTool:
		return c.preTool(ctx)
	case StagePermission:
		return c.permission(ctx)
	case StagePostTool:
		return Outcome{}, c.postTool(ctx)
	}
	return Outcome{}, fmt.Errorf("unknown hook event %q", c.ev.Name)
}

// restoreTurn carries the session's turn across processes: a prompt starts
// the next one; every other call resumes the current one, so that its
// audit record carries the prompt's turn and the judge gets the prompt as
// the task. A new cwd is the session's cwd from now on. fresh: the
// session had no state yet (its first event).
func (c *call) restoreTurn() (fresh bool, err error) {
	id := c.ev.SessionID
	prev, pending, err := c.db.HookState(id)
	if err != nil {
		return false, err
	}
	fresh = prev == (store.HookTurn{}) && len(pending) == 0
	c.pending = pending
	c.turn = prev
	if c.ev.Stage == StagePrompt {
		if c.turn, err = c.db.NextHookTurn(id, c.ev.Prompt, c.ev.Cwd); err != nil {
			return fresh, err
		}
	}
	if prev.Cwd != c.ev.Cwd {
		if err := c.srv.OpenSession(protocol.SessionOpenParams{SessionID: id, Cwd: c.ev.Cwd}); err != nil {
			return fresh, err
		}
		if c.ev.Stage != StagePrompt {
			if err := c.db.SetHookCwd(id, c.ev.Cwd); err != nil {
				return fresh, err
			}
		}
	}
	if c.turn.Turn > 0 {
		return fresh, c.srv.BeginTurn(id, c.turn.Turn, c.turn.Prompt)
	}
	return fresh, nil
}

// maxStalePerCall bounds the work one hook call does for stale sessions
// (sessions listed, asks audited), so that it stays well inside the
// watchdog's bound; the rest waits for the next new session.
const maxStalePerCall = 8

// endStaleSessions ends, as a new session starts, sessions no hook wrote
// for PinMaxAge (their pins are removed as old): the calls they left to
// the host are audited with their outcome unknown, and their state is
// dropped, so the hook state of a project holds the recent sessions only.
// Failures are logged: the current call does not depend on them.
func (c *call) endStaleSessions(ctx context.Context) {
	stale, err := c.db.StaleHookSessions(time.Now().Add(-PinMaxAge), maxStalePerCall)
	if err != nil {
		slog.Warn("list stale hook sessions", "err", err)
		return
	}
	// the records say what became of the calls, whatever the watchdog
	// does to this one
	ctx = context.WithoutCancel(ctx)
	budget := maxStalePerCall
	for _, s := range stale {
		if !c.endStaleSession(ctx, s, &budget) {
			return
		}
	}
}

// endStaleSession audits stale session s's asks, as many as *budget
// allows, and drops its state once none is left; false when the budget ran
// out first.
func (c *call) endStaleSession(ctx context.Context, s store.StaleHookSession, budget *int) bool {
	for _, a := range s.Asks {
		if *budget == 0 {
			return false
		}
		*budget--
		if taken, ok, err := c.db.TakePendingAsk(s.ID, a.ID); err != nil {
			slog.Warn("take a pending ask", "session", s.ID, "tool_use_id", a.ID, "err", err)
			return false
		} else if ok {
			if err := c.recordUnknown(ctx, s.ID, taken); err != nil {
				slog.Warn("record a call's outcome", "session", s.ID, "tool_use_id", a.ID, "err", err)
			}
		}
	}
	if err := c.db.DropHookSession(s.ID); err != nil {
		slog.Warn("drop a stale hook session", "session", s.ID, "err", err)
	}
	return true
}

// preTool decides a call before it runs (SPEC §10.2, additive): a floor,
// deny rule or judge reject is denied; known-safe, an allow rule, a grant
// or a judge allow is allowed; a human-only call is put to the host's
// dialog (or denied, telling the agent to ask the user, where no dialog
// can show); any other call gets no verdict, so the host's own mode and
// rules decide it as they would without perm-peer ("hookAsks":
// "perm-peer" asks instead). A call left to the host is remembered as
// pending, and audited when the host reports what became of it.
func (c *call) preTool(ctx context.Context) (Outcome, error) {
	o, def, err := c.decideOrDefer(ctx)
	if def == nil || err != nil {
		return o, err
	}
	owned := def.humanOnly || c.srv.OwnsHookAsks()
	if !owned {
		a := store.PendingAsk{ID: askID(c.ev.Call), Turn: c.turn.Turn, Call: c.ev.Call, HumanOnly: false, Offset: c.transcriptSize()}
		return Outcome{Verdict: NoVerdict}, c.db.PutPendingAsk(c.ev.SessionID, a)
	}
	if !c.ev.CanAsk && (def.humanOnly || c.ev.NoHuman || riskyReply(def.reply)) {
		return c.headless(ctx)
	}
	if !c.ev.CanAsk {
		// perm-peer owns plain asks, but this host cannot ask here: its own
		// approval prompt (PermissionRequest) or policy decides
		a := store.PendingAsk{ID: askID(c.ev.Call), Turn: c.turn.Turn, Call: c.ev.Call, Offset: c.transcriptSize()}
		return Outcome{Verdict: NoVerdict}, c.db.PutPendingAsk(c.ev.SessionID, a)
	}
	a := store.PendingAsk{ID: askID(c.ev.Call), Turn: c.turn.Turn, Call: c.ev.Call, HumanOnly: def.humanOnly,
		Prompted: true, Offset: c.transcriptSize()}
	if err := c.db.PutPendingAsk(c.ev.SessionID, a); err != nil {
		return Outcome{}, err
	}
	return Outcome{Verdict: Ask, Reason: "perm-peer: " + metaReason(def.reply)}, nil
}

// riskyReply: a call too risky to leave to an approval policy that may run
// it unasked (Codex's PreToolUse cannot ask) when perm-peer owns asks.
func riskyReply(reply protocol.PermissionReply) bool {
	risk := protocol.RiskHigh
	if reply.Meta != nil {
		risk = reply.Meta.Risk
	}
	return risk == protocol.RiskHigh || risk == protocol.RiskCritical
}

// deferral is a call the pipeline left to a human: the reply it carries
// (risk, reason) and whether only a person may approve the call.
type deferral struct {
	reply     protocol.PermissionReply
	humanOnly bool
}

// decideOrDefer decides the call where perm-peer can without a human (a
// repeat of the user's explained rejection, the pipeline), or returns the
// deferral that leaves it to one.
func (c *call) decideOrDefer(ctx context.Context) (Outcome, *deferral, error) {
	if o, ok, err := c.rejectedBefore(ctx); ok || err != nil {
		return o, nil, err
	}
	reply, err := c.srv.Decide(c.claimed(ctx), c.ev.SessionID, c.turn.Turn, c.ev.Call, leaveToHost)
	var def *peer.Deferral
	switch {
	case errors.As(err, &def):
		return Outcome{}, &deferral{reply: reply, humanOnly: def.HumanOnly}, nil
	case err != nil:
		return Outcome{}, nil, err
	}
	return outcomeOf(reply), nil, nil
}

// rejectedBefore rejects a call the user rejected before in this session
// and explained: the same exact call gets their note as the agent's
// feedback, whatever the mode, with or without a judge.
func (c *call) rejectedBefore(ctx context.Context) (Outcome, bool, error) {
	note, ok := c.srv.RejectedBefore(c.ev.SessionID, c.ev.Call)
	if !ok {
		return Outcome{}, false, nil
	}
	reply, err := c.srv.RepeatRejection(c.claimed(ctx), c.ev.SessionID, c.turn.Turn, c.ev.Call, note)
	if err != nil {
		return Outcome{}, true, err
	}
	return outcomeOf(reply), true, nil
}

// headless decides a call that needs a human as for a client that cannot
// prompt: rejected, and audited so (the judge may still allow in AI mode).
// The agent is told to ask the user.
func (c *call) headless(ctx context.Context) (Outcome, error) {
	reply, err := c.srv.Decide(c.claimed(ctx), c.ev.SessionID, c.turn.Turn, c.ev.Call, nil)
	if err != nil {
		return Outcome{}, err
	}
	return outcomeOf(reply), nil
}

// permission answers the host's dialog that is about to show (or, where
// no one is there, the host's auto-deny): a call this hook left to the
// host stays with it, now shown to its user; any other call (the host's
// own rules asked) is decided, and only a decision made without a human
// (a grant, an allow rule, the judge) answers.
func (c *call) permission(ctx context.Context) (Outcome, error) {
	for _, a := range c.pending {
		if !sameCall(a.Call, c.ev.Call) {
			continue
		}
		if a.HumanOnly && c.ev.NoHuman {
			return c.settleHeadless(ctx, a)
		}
		if !a.Prompted && !c.ev.NoHuman { // the host asks its user now
			a.Prompted = true
			if err := c.db.PutPendingAsk(c.ev.SessionID, a); err != nil {
				return Outcome{}, err
			}
		}
		return Outcome{}, nil
	}
	o, def, err := c.decideOrDefer(ctx)
	if def == nil || err != nil {
		return o, err
	}
	if def.humanOnly && c.ev.NoHuman {
		return c.headless(ctx)
	}
	a := store.PendingAsk{ID: askID(c.ev.Call), Turn: c.turn.Turn, Call: c.ev.Call, HumanOnly: def.humanOnly,
		Prompted: !c.ev.NoHuman, Offset: c.transcriptSize()}
	return Outcome{}, c.db.PutPendingAsk(c.ev.SessionID, a)
}

// settleHeadless takes pending ask a and rejects its call headless.
func (c *call) settleHeadless(ctx context.Context, a store.PendingAsk) (Outcome, error) {
	if _, _, err := c.db.TakePendingAsk(c.ev.SessionID, a.ID); err != nil {
		return Outcome{}, err
	}
	return c.headless(ctx)
}

// postTool audits a call left to the host that ran: the user approved it
// when the host showed it to them; else the host's own rules or mode ran
// it, asking no one.
func (c *call) postTool(ctx context.Context) error {
	a, ok, err := c.takeAsk(c.ev.Call)
	if err != nil || !ok {
		return err
	}
	return c.recordOutcome(ctx, a, toolResult{kind: resultRan})
}

// takeAsk takes the pending ask of call: by its tool-use id, else (a host
// whose post-tool event has none) by the call itself. Only an ask found
// among the session's pending asks read at the start of this call is
// taken: the host fires a call's pre-tool and permission events, which
// leave asks pending, before its post-tool event, so a call with nothing
// pending then has nothing to take, and costs no write.
func (c *call) takeAsk(call protocol.ToolCall) (store.PendingAsk, bool, error) {
	for _, a := range c.pending {
		if (call.ToolCallID != "" && a.ID == call.ToolCallID) || (call.ToolCallID == "" && sameCall(a.Call, call)) {
			return c.db.TakePendingAsk(c.ev.SessionID, a.ID)
		}
	}
	return store.PendingAsk{}, false, nil
}

// settleAsks resolves the session's earlier pending asks that the
// transcript has answered since: run (the user approved), rejected by the
// user (with their words: a user rule), or refused by the host itself; and
// those it never will answer, left to the host with their outcome unknown.
// Failures are logged: the current call does not depend on them.
func (c *call) settleAsks(ctx context.Context) {
	pending := c.pending
	if len(pending) == 0 {
		return
	}
	results, err := transcriptResults(c.ev.Transcript, pending)
	if errors.Is(err, fs.ErrNotExist) {
		return // not written yet
	}
	if err != nil {
		slog.Warn("read transcript", "path", c.ev.Transcript, "err", err)
		return
	}
	c.pending = nil
	for _, a := range pending {
		res, found := results[a.ID]
		if !found && a.Turn < c.turn.Turn {
			// a later turn began, so the host wrote this call's result
			// long ago, or never will: stop looking (N8), and say so
			c.settle(ctx, a, toolResult{kind: resultUnknown})
			continue
		}
		if !found || a.ID == c.ev.Call.ToolCallID {
			c.pending = append(c.pending, a)
			continue
		}
		c.settle(ctx, a, res)
	}
}

// settle takes pending ask a and audits res as its outcome, unless another
// process took it first (and audits it). The outcome is a fact of the
// past, so the current call's deadline does not cancel its record (a
// cancelled commit would record it as a headless reject); an outcome that
// could not be recorded is put back, for a later call to settle.
// Failures are logged.
func (c *call) settle(ctx context.Context, a store.PendingAsk, res toolResult) {
	taken, ok, err := c.db.TakePendingAsk(c.ev.SessionID, a.ID)
	if err != nil {
		slog.Warn("take a pending ask", "tool_use_id", a.ID, "err", err)
	}
	if !ok {
		return
	}
	if err := c.recordOutcome(context.WithoutCancel(ctx), taken, res); err != nil {
		slog.Warn("record a call's outcome", "tool_use_id", a.ID, "err", err)
		if err := c.db.PutPendingAsk(c.ev.SessionID, taken); err != nil {
			slog.Warn("put back a pending ask", "tool_use_id", a.ID, "err", err)
		}
	}
}

// UnknownOutcome is the recorded reason of a call left to the host whose
// outcome the host never reported. It is recorded as run by the host
// ("once", decided by the host, never by the user): perm-peer did not
// refuse it, and an auditor must count it among the calls that may have
// run.
const UnknownOutcome = "deferred to the host, which never reported its outcome: it may have run"

// recordOutcome audits what became of a call left to the host: the
// user's answer when a person was shown it (a rejection's note becomes
// their rule), else the host's own.
func (c *call) recordOutcome(ctx context.Context, a store.PendingAsk, res toolResult) error {
	if res.kind == resultUnknown {
		return c.recordUnknown(ctx, c.ev.SessionID, a)
	}
	if a.Prompted && !c.ev.NoHuman {
		user := protocol.PermissionReply{Reply: protocol.ReplyOnce}
		switch res.kind {
		case resultUserRejected:
			user = protocol.PermissionReply{Reply: protocol.ReplyReject, Feedback: res.note}
		case resultRefused:
			_, err := c.srv.RecordHostOutcome(ctx, c.ev.SessionID, a.Turn, a.Call, protocol.ReplyReject,
				"deferred to the host, which refused it itself (a rule or an interruption)")
			return err
		}
		_, err := c.srv.RecordUserReply(ctx, c.ev.SessionID, a.Turn, a.Call, user)
		return err
	}
	kind, why := protocol.ReplyOnce, "deferred to the host: its own rules or mode ran it, asking no one"
	if res.kind != resultRan {
		kind, why = protocol.ReplyReject, "deferred to the host: it refused the call, asking no one"
	}
	_, err := c.srv.RecordHostOutcome(ctx, c.ev.SessionID, a.Turn, a.Call, kind, why)
	return err
}

// recordUnknown audits pending ask a of session as left to the host with
// its outcome unknown (UnknownOutcome).
func (c *call) recordUnknown(ctx context.Context, session string, a store.PendingAsk) error {
	_, err := c.srv.RecordHostOutcome(ctx, session, a.Turn, a.Call, protocol.ReplyOnce, UnknownOutcome)
	return err
}

// outcomeOf maps a pipeline reply onto a hook verdict.
func outcomeOf(reply protocol.PermissionReply) Outcome {
	switch reply.Reply {
	case protocol.ReplyOnce, protocol.ReplyAlways:
		return Outcome{Verdict: Allow, Reason: "perm-peer: " + metaReason(reply)}
	}
	why := metaReason(reply)
	if reply.Feedback != "" {
		why = reply.Feedback + " (" + why + ")"
	}
	return Outcome{Verdict: Deny, Reason: "perm-peer: " + why}
}

func metaReason(reply protocol.PermissionReply) string {
	if reply.Meta != nil && reply.Meta.Reason != "" {
		return reply.Meta.Reason
	}
	return "no reason given"
}

// askID names a pending ask: the host's tool-use id, else (a host that
// numbers no calls) the call's content.
func askID(call protocol.ToolCall) string {
	if call.ToolCallID != "" {
		return call.ToolCallID
	}
	sum := sha256.Sum256([]byte(call.Tool + "\x00" + canonical(call.RawInput)))
	return "call-" + hex.EncodeToString(sum[:8])
}

// sameCall reports whether two events describe one call: the same tool
// with the same input (compared as JSON values, not bytes).
func sameCall(a, b protocol.ToolCall) bool {
	return a.Tool == b.Tool && canonical(a.RawInput) == canonical(b.RawInput)
}

func canonical(raw json.RawMessage) string {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return string(raw)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return string(raw)
	}
	return string(out)
}
