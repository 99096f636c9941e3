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
	if err := c.restoreTurn(); err != nil {
		return Outcome{}, err
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
// the task. A new cwd is the session's cwd from now on.
func (c *call) restoreTurn() error {
	id := c.ev.SessionID
	prev, pending, err := c.db.HookState(id)
	if err != nil {
		return err
	}
	c.pending = pending
	c.turn = prev
	if c.ev.Stage == StagePrompt {
		if c.turn, err = c.db.NextHookTurn(id, c.ev.Prompt, c.ev.Cwd); err != nil {
			return err
		}
	}
	if prev.Cwd != c.ev.Cwd {
		if err := c.srv.OpenSession(protocol.SessionOpenParams{SessionID: id, Cwd: c.ev.Cwd}); err != nil {
			return err
		}
		if c.ev.Stage != StagePrompt {
			if err := c.db.SetHookCwd(id, c.ev.Cwd); err != nil {
				return err
			}
		}
	}
	if c.turn.Turn > 0 {
		return c.srv.BeginTurn(id, c.turn.Turn, c.turn.Prompt)
	}
	return nil
}

// preTool decides a call before it runs; one that needs a human is left to
// the host's dialog and remembered as pending.
func (c *call) preTool(ctx context.Context) (Outcome, error) {
	reply, err := c.srv.Decide(ctx, c.ev.SessionID, c.turn.Turn, c.ev.Call, leaveToHost)
	if errors.Is(err, peer.ErrDeferred) {
		if c.noHumanFor(reply) {
			return c.headless(ctx)
		}
		a := store.PendingAsk{ID: askID(c.ev.Call), Turn: c.turn.Turn, Call: c.ev.Call, Prompted: c.ev.AskIsPrompt}
		if err := c.db.PutPendingAsk(c.ev.SessionID, a); err != nil {
			return Outcome{}, err
		}
		return Outcome{Verdict: Ask, Reason: "perm-peer: " + metaReason(reply)}, nil
	}
	if err != nil {
		return Outcome{}, err
	}
	return outcomeOf(reply), nil
}

// noHumanFor reports that a call needing a human will not reach one
// through the host: it asks no one (bypassPermissions), or it cannot be
// made to ask before the call (Codex's PreToolUse) and the call is too
// risky to leave to the host's own approval policy, which may run it
// unasked.
func (c *call) noHumanFor(reply protocol.PermissionReply) bool {
	if c.ev.NoHuman {
		return true
	}
	if c.ev.AskIsPrompt {
		return false
	}
	risk := protocol.RiskHigh
	if reply.Meta != nil {
		risk = reply.Meta.Risk
	}
	return risk == protocol.RiskHigh || risk == protocol.RiskCritical
}

// headless decides a call that needs a human as for a client that cannot
// prompt: rejected, and audited so (the judge may still allow in AI mode).
func (c *call) headless(ctx context.Context) (Outcome, error) {
	reply, err := c.srv.Decide(ctx, c.ev.SessionID, c.turn.Turn, c.ev.Call, nil)
	if err != nil {
		return Outcome{}, err
	}
	return outcomeOf(reply), nil
}

// permission answers the host's own dialog: a call this hook already left
// to the human stays with the human; any other (the host's own rules asked)
// is decided, and only a decision made without a human answers.
func (c *call) permission(ctx context.Context) (Outcome, error) {
	for _, a := range c.pending {
		if !sameCall(a.Call, c.ev.Call) {
			continue
		}
		if c.ev.NoHuman {
			return c.headless(ctx)
		}
		if !a.Prompted { // the host asks its user now
			a.Prompted = true
			if err := c.db.PutPendingAsk(c.ev.SessionID, a); err != nil {
				return Outcome{}, err
			}
		}
		return Outcome{}, nil
	}
	reply, err := c.srv.Decide(ctx, c.ev.SessionID, c.turn.Turn, c.ev.Call, leaveToHost)
	if errors.Is(err, peer.ErrDeferred) {
		if c.ev.NoHuman {
			return c.headless(ctx)
		}
		return Outcome{}, nil
	}
	if err != nil {
		return Outcome{}, err
	}
	return outcomeOf(reply), nil
}

// postTool audits a call left to the human that ran: the human approved it
// (when the host showed it to them; else the host's own policy ran it and
// no one decided).
func (c *call) postTool(ctx context.Context) error {
	a, ok, err := c.takeAsk(c.ev.Call)
	if err != nil || !ok || !a.Prompted {
		return err
	}
	return c.recordUser(ctx, a, protocol.PermissionReply{Reply: protocol.ReplyOnce})
}

// takeAsk takes the pending ask of call: by its tool-use id, else (a host
// whose post-tool event has none) by the call itself.
func (c *call) takeAsk(call protocol.ToolCall) (store.PendingAsk, bool, error) {
	if call.ToolCallID != "" {
		return c.db.TakePendingAsk(c.ev.SessionID, call.ToolCallID)
	}
	for _, a := range c.pending {
		if sameCall(a.Call, call) {
			return c.db.TakePendingAsk(c.ev.SessionID, a.ID)
		}
	}
	return store.PendingAsk{}, false, nil
}

// settleAsks resolves the session's earlier pending asks that the
// transcript has answered since: run (the user approved), rejected by the
// user (with their words: a user rule), or refused by the host itself
// (nothing to audit). Failures are logged: the current call does not
// depend on them.
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
		if !found || a.ID == c.ev.Call.ToolCallID {
			c.pending = append(c.pending, a)
			continue
		}
		taken, ok, err := c.db.TakePendingAsk(c.ev.SessionID, a.ID)
		if err != nil || !ok {
			continue
		}
		var user protocol.PermissionReply
		switch res.kind {
		case resultRan:
			user = protocol.PermissionReply{Reply: protocol.ReplyOnce}
		case resultUserRejected:
			user = protocol.PermissionReply{Reply: protocol.ReplyReject, Feedback: res.note}
		default:
			continue // the host refused it itself: no human answered
		}
		if err := c.recordUser(ctx, taken, user); err != nil {
			slog.Warn("record the user's answer", "tool_use_id", a.ID, "err", err)
		}
	}
}

// recordUser audits the human's answer to a call left to the host.
func (c *call) recordUser(ctx context.Context, a store.PendingAsk, user protocol.PermissionReply) error {
	_, err := c.srv.RecordUserReply(ctx, c.ev.SessionID, a.Turn, a.Call, user)
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
