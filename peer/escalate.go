package peer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/perm-peer/perm-peer/jsonkey"
	"github.com/perm-peer/perm-peer/protocol"
)

// Asker puts a call the pipeline could not settle to a human and returns
// the human's permission reply. params.Options says what may be answered
// ("always" only where a grant is safe). ctx ends when the question is
// withdrawn (session/cancel, the ask timeout, the input ending): the Asker
// must then return promptly with an error. Any error is a headless reject,
// except ErrDeferred.
type Asker func(ctx context.Context, params protocol.AskParams) (protocol.PermissionReply, error)

// ErrDeferred, returned by an Asker, leaves the call to the host's own
// prompt (a hook host that shows its dialog after we answer "ask"): nothing
// is decided or recorded here; the human's answer is recorded when the host
// reports it (Server.RecordUserReply).
var ErrDeferred = errors.New("left to the host's own prompt")

// Deferral is the error Decide returns for a call left to the host's own
// prompt: ErrDeferred, with what a host adapter needs to know of the call
// to answer its host (a human-only call must reach a person; any other
// may be left to the host's own permission rules).
type Deferral struct {
	HumanOnly bool
}

func (d *Deferral) Error() string { return ErrDeferred.Error() }

func (d *Deferral) Unwrap() error { return ErrDeferred }

// escalate is step 8: ask a human through rq.asker, or reject headless when
// no human can be asked. It never returns an approval the user did not give.
func (s *Server) escalate(ctx context.Context, rq *request, reason string) decision {
	if rq.asker == nil {
		return rq.finish(protocol.ReplyReject, protocol.ByHeadless, protocol.SourceSystem, "needs a human, and the client cannot prompt: "+reason, feedbackHeadless)
	}
	v := rq.verdict
	params := protocol.AskParams{
		SessionID:  rq.info.ID,
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
	askKey := strconv.FormatUint(s.askSeq.Add(1), 10)
	rq.sess.mu.Lock()
	withdrawn := rq.sess.withdrawnAt > rq.arrival
	if !withdrawn {
		rq.sess.asks[askKey] = cancel
	}
	rq.sess.mu.Unlock()
	if withdrawn {
		// session/cancel or session/close came after this call (on the
		// wire): the question is withdrawn before it is asked.
		return rq.finish(protocol.ReplyReject, protocol.ByHeadless, protocol.SourceSystem, "the session's pending calls were cancelled; "+reason, feedbackHeadless)
	}
	defer func() {
		rq.sess.mu.Lock()
		delete(rq.sess.asks, askKey)
		rq.sess.mu.Unlock()
	}()

	user, err := rq.asker(askCtx, params)
	if errors.Is(err, ErrDeferred) && askCtx.Err() == nil {
		d := rq.finish(protocol.ReplyReject, "", protocol.SourceSystem, reason, feedbackHeadless)
		d.deferred = true
		return d
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

// editorAsker is the connection's own Asker: permission/ask to the editor,
// or nil when the editor did not declare capabilities.prompt.
func (s *Server) editorAsker() Asker {
	if !s.canPrompt() {
		return nil
	}
	return func(ctx context.Context, params protocol.AskParams) (protocol.PermissionReply, error) {
		s.mu.Lock()
		stream := s.stream
		s.mu.Unlock()
		askID := askPrefix + strconv.FormatUint(s.askSeq.Add(1), 10)
		var user protocol.PermissionReply
		err := s.ask(ctx, stream, askID, params, &user)
		if ctx.Err() != nil && s.inputGone.Err() == nil && stream != nil {
			// Withdraw the question from the editor's UI.
			_ = stream.Notify(protocol.MethodCancelRequest, protocol.CancelParams{ID: askID})
		}
		return user, err
	}
}

// ask sends permission/ask with id and waits for the editor's reply.
func (s *Server) ask(ctx context.Context, stream *Stream, id string, params protocol.AskParams, reply *protocol.PermissionReply) error {
	if stream == nil {
		return errors.New("no connection to the editor")
	}
	body, err := encodeRequest(&jsonrpc2.ID{Str: id, IsString: true}, protocol.MethodPermissionAsk, params)
	if err != nil {
		return err
	}
	ch, err := s.asks.add(id, len(body))
	if err != nil {
		return err // past the bounds on pending asks: a headless reject
	}
	defer s.asks.remove(id)
	// the read loop must not wait for this request's slot: only more input
	// (the answer) ends the wait
	defer s.load.park(frameSize(ctx))()
	if err := stream.WriteMessage(body); err != nil {
		return fmt.Errorf("send permission/ask: %w", err)
	}
	select {
	case resp := <-ch:
		if resp.Error != nil {
			return fmt.Errorf("the editor answered permission/ask with error %d: %s", resp.Error.Code, resp.Error.Message)
		}
		if resp.Result == nil {
			return errors.New("the editor's permission/ask reply has no result")
		}
		if k := repeatedKey(*resp.Result); k != "" {
			// {"reply":"reject","REPLY":"once"}: encoding/json would take
			// the last one, in any letter case; the editor meant one of them
			return fmt.Errorf("the editor's permission/ask reply repeats the key %q", k)
		}
		if err := json.Unmarshal(*resp.Result, reply); err != nil {
			return fmt.Errorf("the editor's permission/ask reply: %w", err)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
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

// repeatedKey returns a top-level key of the JSON object raw that appears
// twice in some letter case, or "".
func repeatedKey(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		k, _ := t.(string)
		if lk := jsonkey.Fold(k); seen[lk] {
			return k
		} else {
			seen[lk] = true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}
