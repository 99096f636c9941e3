package peer

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/perm-peer/perm-peer/protocol"
)

// escalate is step 8: ask the editor's human with permission/ask, or reject
// headless when no human can be asked. It never returns an approval the user
// did not give.
func (s *Server) escalate(ctx context.Context, rq *request, reason string) decision {
	if !rq.canAsk {
		return rq.finish(protocol.ReplyReject, protocol.ByHeadless, protocol.SourceSystem, "needs a human, and the client cannot prompt: "+reason, feedbackHeadless)
	}
	s.mu.Lock()
	conn := s.conn
	s.mu.Unlock()
	v := rq.verdict
	params := protocol.AskParams{
		SessionID:  rq.sess.info.ID,
		ToolCallID: rq.call.ToolCallID,
		ToolCall:   rq.call,
		Risk:       v.Risk,
		Reason:     reason,
		Options:    []protocol.ReplyKind{protocol.ReplyOnce, protocol.ReplyReject},
	}
	offerAlways := v.Always != nil && !v.HumanOnly
	if offerAlways {
		params.Options = []protocol.ReplyKind{protocol.ReplyOnce, protocol.ReplyAlways, protocol.ReplyReject}
		params.AlwaysCovers = v.Always.Covers
	}
	if params.Risk == "" {
		params.Risk = protocol.RiskMedium
	}

	askCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if rq.w.askTimeout > 0 {
		var c2 context.CancelFunc
		askCtx, c2 = context.WithTimeout(askCtx, rq.w.askTimeout)
		defer c2()
	}
	stop := context.AfterFunc(s.inputGone, cancel)
	defer stop()
	askID := "ask-" + strconv.FormatUint(s.askSeq.Add(1), 10)
	rq.sess.mu.Lock()
	rq.sess.asks[askID] = cancel
	rq.sess.mu.Unlock()
	defer func() {
		rq.sess.mu.Lock()
		delete(rq.sess.asks, askID)
		rq.sess.mu.Unlock()
	}()

	var user protocol.PermissionReply
	err := errors.New("no connection to the editor")
	if conn != nil {
		var waiter jsonrpc2.Waiter
		waiter, err = conn.DispatchCall(askCtx, protocol.MethodPermissionAsk, params, jsonrpc2.PickID(jsonrpc2.ID{Str: askID, IsString: true}))
		if err == nil {
			err = waiter.Wait(askCtx, &user)
		}
		if askCtx.Err() != nil && s.inputGone.Err() == nil {
			// Withdraw the question from the editor's UI.
			_ = conn.Notify(context.Background(), protocol.MethodCancelRequest, protocol.CancelParams{ID: askID})
		}
	}
	if err != nil {
		why := err.Error()
		switch {
		case errors.Is(askCtx.Err(), context.DeadlineExceeded):
			why = fmt.Sprintf("the editor did not answer within %s", rq.w.askTimeout)
		case askCtx.Err() != nil:
			why = "the question was withdrawn before the editor answered"
		}
		return rq.finish(protocol.ReplyReject, protocol.ByHeadless, protocol.SourceSystem, why+"; "+reason, feedbackHeadless)
	}
	return rq.fromUser(user, offerAlways, reason)
}

// fromUser turns the editor's permission reply into the decision: the
// user's reply is audited verbatim; "always" grants only what was offered.
func (rq *request) fromUser(user protocol.PermissionReply, offeredAlways bool, reason string) decision {
	v := rq.verdict
	note := user.Feedback
	audited := user
	audited.Meta = nil
	rec := rq.record(audited, protocol.ByUser, protocol.SourceUser)
	kind := user.Reply
	metaReason := "user: " + reason
	if kind == protocol.ReplyAlways {
		if offeredAlways {
			rec.Grant = v.Always.Pattern
		} else {
			kind = protocol.ReplyOnce // "always" was not offered: it runs once, grants nothing
			metaReason = "user answered always where it is not offered; approved once: " + reason
		}
	}
	rec.Decision = kind
	reply := protocol.PermissionReply{Reply: kind, Feedback: note}
	meta := &protocol.ReplyMeta{DecidedBy: protocol.ByUser, Risk: v.Risk, Reason: metaReason}
	switch {
	case kind == protocol.ReplyReject:
		reply.Feedback = feedbackUser
		if note != "" {
			reply.Feedback += ": " + note
		}
	case note != "":
		meta.ToolResultNote = toolResultPrefix + note
	}
	reply.Meta = meta
	return decision{reply: reply, rec: rec, note: note}
}
