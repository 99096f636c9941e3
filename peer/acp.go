package peer

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/perm-peer/perm-peer/protocol"
)

// acpRequestPermission answers ACP's session/request_permission with the
// option whose kind matches the pipeline's decision (SPEC §3.6).
func (s *Server) acpRequestPermission(ctx context.Context, method string, raw *json.RawMessage, settledOnly bool) result {
	return withSession(s, method, raw, func(p protocol.ACPRequestPermissionParams) string { return p.SessionID },
		func(w *world, sess *session, p protocol.ACPRequestPermissionParams) result {
			if p.ToolCall.ToolCallID == "" {
				return result{err: missing("/toolCall/toolCallId")}
			}
			out, err := s.decideACP(ctx, w, sess, p, s.editorAsker(), settledOnly)
			if err != nil {
				return decideError(err)
			}
			return result{value: out}
		})
}

// decideACP decides an ACP permission request on the full call (the request
// merged over what session/update said of it) and picks the agent's option.
func (s *Server) decideACP(ctx context.Context, w *world, sess *session, p protocol.ACPRequestPermissionParams, asker Asker, settledOnly bool) (protocol.ACPRequestPermissionResult, error) {
	sess.mu.Lock()
	merged := mergeACP(sess.acpCalls[p.ToolCall.ToolCallID], p.ToolCall)
	sess.mu.Unlock()
	// A session/cancel while the call is being decided cancels it,
	// whoever was deciding (gate, judge, user): the agent stopped the
	// turn, so nothing from it may run. decide then records a headless
	// reject and the answer is ACP's "cancelled". One that comes after
	// the decision is recorded gets the decision, as its record says.
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer sess.trackACP(s.arrival(ctx), cancel)()
	reply, err := s.decide(dctx, w, sess, 0, acpToolCall(merged), asker, settledOnly)
	cancelledOut := protocol.ACPRequestPermissionResult{Outcome: protocol.ACPOutcome{Outcome: protocol.ACPOutcomeCancelled}, Meta: reply.Meta}
	switch {
	case errors.Is(err, errCancelled) && ctx.Err() == nil: // withdrawn by session/cancel or session/close
		return cancelledOut, nil
	case err != nil:
		return cancelledOut, err
	}
	if id := pickOption(p.Options, reply.Reply); id != "" {
		return protocol.ACPRequestPermissionResult{Outcome: protocol.ACPOutcome{Outcome: protocol.ACPOutcomeSelected, OptionID: id}, Meta: reply.Meta}, nil
	}
	return cancelledOut, nil
}

// pickOption chooses the offered option for a reply: the exact kind, else
// the nearest one of the same polarity that grants no more than the reply.
func pickOption(opts []protocol.ACPPermissionOption, reply protocol.ReplyKind) string {
	var prefs []protocol.ACPPermissionKind
	switch reply {
	case protocol.ReplyOnce:
		prefs = []protocol.ACPPermissionKind{protocol.ACPAllowOnce}
	case protocol.ReplyAlways:
		prefs = []protocol.ACPPermissionKind{protocol.ACPAllowAlways, protocol.ACPAllowOnce}
	case protocol.ReplyReject:
		prefs = []protocol.ACPPermissionKind{protocol.ACPRejectOnce, protocol.ACPRejectAlways}
	}
	for _, want := range prefs {
		for _, o := range opts {
			if o.Kind == want {
				return o.OptionID
			}
		}
	}
	return ""
}

// acpSessionUpdate remembers tool_call and tool_call_update updates so a
// later request carrying only the id is judged on the full call.
func (s *Server) acpSessionUpdate(raw *json.RawMessage) {
	var p protocol.ACPSessionUpdateParams
	if err := decodeParams(protocol.MethodACPSessionUpdate, raw, &p); err != nil {
		slog.Warn("bad notification", "method", protocol.MethodACPSessionUpdate, "err", err.Message)
		return
	}
	s.noteACPUpdate(p)
}

func (s *Server) noteACPUpdate(p protocol.ACPSessionUpdateParams) {
	var u protocol.ACPToolCallUpdate
	if json.Unmarshal(p.Update, &u) != nil || u.ToolCallID == "" {
		return
	}
	if u.SessionUpdate != "tool_call" && u.SessionUpdate != "tool_call_update" {
		return
	}
	sess, err := s.session(p.SessionID)
	if err != nil {
		slog.Warn("session/update", "err", err)
		return
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	s.rememberACPLocked(sess, mergeACP(sess.acpCalls[u.ToolCallID], u))
}

// Bounds on the ACP tool calls remembered from session/update (docs/
// PROTOCOL.md §1): per session in count (maxACPCalls) and bytes, and over
// all sessions in bytes. Past a session's bounds its oldest-known calls are
// forgotten; past the total the update is dropped. Either way a later
// request that names only the id is judged on less, which asks.
const (
	MaxACPBytesPerSession = 8 << 20
	MaxACPBytes           = 32 << 20
)

// rememberACPLocked stores call in sess's cache within the bounds; sess.mu
// is held.
func (s *Server) rememberACPLocked(sess *session, call protocol.ACPToolCallUpdate) {
	size := acpSize(call)
	old, known := sess.acpCalls[call.ToolCallID]
	if known {
		sess.acpBytes -= acpSize(old)
		s.acpBytes.Add(-int64(acpSize(old)))
		delete(sess.acpCalls, call.ToolCallID)
	}
	for id, c := range sess.acpCalls {
		if len(sess.acpCalls) < maxACPCalls && sess.acpBytes+size <= MaxACPBytesPerSession {
			break
		}
		sess.acpBytes -= acpSize(c) // forget an arbitrary old call
		s.acpBytes.Add(-int64(acpSize(c)))
		delete(sess.acpCalls, id)
	}
	if size > MaxACPBytesPerSession || s.acpBytes.Load()+int64(size) > MaxACPBytes {
		slog.Warn("session/update: ACP tool call not remembered, over the memory bound",
			"session", sess.info.ID, "toolCallId", call.ToolCallID, "bytes", size)
		return
	}
	sess.acpCalls[call.ToolCallID] = call
	sess.acpBytes += size
	s.acpBytes.Add(int64(size))
}

// acpSize is about what a remembered call holds in memory.
func acpSize(c protocol.ACPToolCallUpdate) int {
	n := 64 + len(c.ToolCallID) + len(c.Title) + len(c.Kind) + len(c.Status) + len(c.RawInput) + len(c.Meta)
	for _, l := range c.Locations {
		n += 24 + len(l.Path)
	}
	return n
}

// forgetACP releases the remembered calls of a closed session.
func (s *Server) forgetACP(sess *session) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	s.acpBytes.Add(-int64(sess.acpBytes))
	sess.acpBytes = 0
	clear(sess.acpCalls)
}

// mergeACP applies an update's present fields over what is known.
func mergeACP(known, u protocol.ACPToolCallUpdate) protocol.ACPToolCallUpdate {
	out := known
	out.ToolCallID = u.ToolCallID
	if u.Title != "" {
		out.Title = u.Title
	}
	if u.Kind != "" {
		out.Kind = u.Kind
	}
	if u.Status != "" {
		out.Status = u.Status
	}
	if len(u.RawInput) > 0 {
		out.RawInput = u.RawInput
	}
	if u.Locations != nil {
		out.Locations = u.Locations
	}
	if len(u.Meta) > 0 {
		out.Meta = u.Meta
	}
	return out
}

// acpToolCall converts an ACP tool call. ACP has no tool name; a host may
// name the tool in _meta ({"toolName": ...} at any one level), else the gate
// decides on kind and input.
func acpToolCall(u protocol.ACPToolCallUpdate) protocol.ToolCall {
	return protocol.ToolCall{ToolCallID: u.ToolCallID, Tool: metaToolName(u.Meta), Kind: u.Kind, Title: u.Title,
		RawInput: u.RawInput, Locations: u.Locations}
}

func metaToolName(meta json.RawMessage) string {
	if len(meta) == 0 {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(meta, &m) != nil {
		return ""
	}
	var name string
	if json.Unmarshal(m["toolName"], &name) == nil && name != "" {
		return name
	}
	for _, v := range m {
		var inner struct {
			ToolName string `json:"toolName"`
		}
		if json.Unmarshal(v, &inner) == nil && inner.ToolName != "" {
			return inner.ToolName
		}
	}
	return ""
}
