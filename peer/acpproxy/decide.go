package acpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// The editor-side effects perm-peer gates.
const (
	methodWriteFile      = "fs/write_text_file"
	methodReadFile       = "fs/read_text_file"
	methodTerminalCreate = "terminal/create"
)

// maxEffectContent bounds the file content of fs/write_text_file that the
// gate reads and the audit keeps.
const maxEffectContent = 64 << 10

// outcome is where a decided agent request goes: an answer to the agent, or
// the request itself on to the editor.
type outcome struct {
	answer  any
	forward bool
}

// permission decides the agent's session/request_permission: perm-peer
// answers it, asking the editor first when it needs a human.
func (p *Proxy) permission(ctx context.Context, env envelope, line []byte) outcome {
	var params protocol.ACPRequestPermissionParams
	if err := decodeStrict(env.params, &params); err != nil || params.SessionID == "" || params.ToolCall.ToolCallID == "" {
		why := "the request has no sessionId or toolCall.toolCallId"
		if err != nil {
			why = err.Error()
		}
		slog.Warn("acp: refused a permission request perm-peer cannot read", "err", why)
		return outcome{answer: refusal(env, why)}
	}
	params.ToolCall = withDiffLocations(params.ToolCall)
	srv := p.srv.Load()
	call, err := srv.ACPCall(params)
	if err != nil {
		return outcome{answer: refusal(env, err.Error())}
	}
	var chosen protocol.ACPPermissionKind // the kind the human chose, if asked
	ask := func(actx context.Context, _ protocol.AskParams) (protocol.PermissionReply, error) {
		reply, kind, err := p.askEditor(actx, env, line, params.Options)
		chosen = kind
		return reply, err
	}
	res, err := srv.DecideACP(ctx, params, ask)
	switch {
	case ctx.Err() != nil:
		res = cancelled(res.Meta) // withdrawn (session/cancel, the editor gone): recorded as a headless reject
	case err != nil:
		slog.Error("acp: decision failed; rejected", "session", params.SessionID, "err", err)
		res = rejection(params.Options, &protocol.ReplyMeta{DecidedBy: protocol.ByHeadless, Reason: "decision failed: " + err.Error()})
	default:
		res = narrow(res, params.Options, chosen)
	}
	if res.Meta != nil && res.Meta.DecidedBy == protocol.ByUser && allows(params.Options, res) {
		p.mem.approve(params.SessionID, call)
	}
	return outcome{answer: result(env.id, res)}
}

// narrow keeps later calls coming to perm-peer: an allow_always (perm-peer
// holds the grant now) becomes the agent's allow_once when it offers one. A
// human's reject_always is relayed as such: it only makes the agent stricter.
func narrow(res protocol.ACPRequestPermissionResult, opts []protocol.ACPPermissionOption, chosen protocol.ACPPermissionKind) protocol.ACPRequestPermissionResult {
	if res.Outcome.Outcome != protocol.ACPOutcomeSelected {
		return res
	}
	switch optionOf(opts, res.Outcome.OptionID) {
	case protocol.ACPAllowAlways:
		if id := firstOfKind(opts, protocol.ACPAllowOnce); id != "" {
			res.Outcome.OptionID = id
		}
	case protocol.ACPRejectOnce:
		if chosen == protocol.ACPRejectAlways {
			res.Outcome.OptionID = firstOfKind(opts, protocol.ACPRejectAlways)
		}
	}
	return res
}

// allows reports whether res selects an allow option.
func allows(opts []protocol.ACPPermissionOption, res protocol.ACPRequestPermissionResult) bool {
	if res.Outcome.Outcome != protocol.ACPOutcomeSelected {
		return false
	}
	k := optionOf(opts, res.Outcome.OptionID)
	return k == protocol.ACPAllowOnce || k == protocol.ACPAllowAlways
}

// askEditor forwards the agent's request line to the editor, unchanged
// but for its id (perm-peer's own), and waits for its answer or the end of
// ctx.
func (p *Proxy) askEditor(ctx context.Context, env envelope, line []byte, opts []protocol.ACPPermissionOption) (protocol.PermissionReply, protocol.ACPPermissionKind, error) {
	if err := ctx.Err(); err != nil {
		return protocol.PermissionReply{}, "", err
	}
	id := p.nextAskID()
	key := string(id)
	ch := make(chan envelope, 1)
	p.mu.Lock()
	p.forwarded[key] = ch
	if pr := p.pending[idKey(env.id)]; pr != nil {
		pr.askedAs = id
	}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.forwarded, key) // a late answer is dropped: no request waits for its id
		p.mu.Unlock()
	}()
	if err := p.toEditor.write(env.withID(line, id)); err != nil {
		return protocol.PermissionReply{}, "", err
	}
	select {
	case resp := <-ch:
		return userReply(resp, opts)
	case <-ctx.Done():
		return protocol.PermissionReply{}, "", ctx.Err()
	}
}

// The params of the effects.
type (
	writeFileParams struct {
		SessionID string `json:"sessionId"`
		Path      string `json:"path"`
		Content   string `json:"content"`
	}
	readFileParams struct {
		SessionID string `json:"sessionId"`
		Path      string `json:"path"`
	}
	terminalParams struct {
		SessionID string   `json:"sessionId"`
		Command   string   `json:"command"`
		Args      []string `json:"args"`
		Env       []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"env"`
		Cwd string `json:"cwd"`
	}
)

// effectCall is the tool call an editor-side effect amounts to.
func effectCall(method string, raw json.RawMessage) (string, protocol.ToolCall, error) {
	var session string
	var call protocol.ToolCall
	var input map[string]any
	switch method {
	case methodWriteFile:
		var w writeFileParams
		if err := decodeStrict(raw, &w); err != nil {
			return "", call, err
		}
		content := w.Content
		if len(content) > maxEffectContent {
			content = strings.ToValidUTF8(content[:maxEffectContent], "")
		}
		session, input = w.SessionID, map[string]any{"path": w.Path, "content": content}
		call = protocol.ToolCall{Tool: "write", Kind: protocol.KindEdit, Title: method + " " + w.Path}
		if w.Path == "" {
			return "", call, errors.New("params: no path")
		}
	case methodReadFile:
		var r readFileParams
		if err := decodeStrict(raw, &r); err != nil {
			return "", call, err
		}
		session, input = r.SessionID, map[string]any{"path": r.Path}
		call = protocol.ToolCall{Tool: "read", Kind: protocol.KindRead, Title: method + " " + r.Path}
		if r.Path == "" {
			return "", call, errors.New("params: no path")
		}
	case methodTerminalCreate:
		var t terminalParams
		if err := decodeStrict(raw, &t); err != nil {
			return "", call, err
		}
		// The editor runs the command in a shell with the arguments
		// appended as they are (Zed's ShellBuilder does not quote them), so
		// the gate reads the same text the shell will.
		command := strings.Join(append([]string{t.Command}, t.Args...), " ")
		session, input = t.SessionID, map[string]any{"command": command}
		if t.Cwd != "" {
			input["cwd"] = t.Cwd
		}
		if len(t.Env) > 0 {
			env := map[string]any{}
			for _, e := range t.Env {
				env[e.Name] = e.Value
			}
			input["env"] = env
		}
		call = protocol.ToolCall{Tool: "bash", Kind: protocol.KindExecute, Title: method + " " + command}
		if strings.TrimSpace(t.Command) == "" {
			return "", call, errors.New("params: no command")
		}
	}
	if session == "" {
		return "", call, errors.New("params: no sessionId")
	}
	b, err := json.Marshal(input)
	if err != nil {
		return "", call, err
	}
	call.RawInput = b
	return session, call, nil
}

// effect decides an editor-side effect: forwarded to the editor when
// allowed, else answered with an error; never forwarded on a failure.
func (p *Proxy) effect(ctx context.Context, env envelope) outcome {
	session, call, err := effectCall(env.method, env.params)
	if err != nil {
		return outcome{answer: failure(env.id, -32602, "invalid params: "+err.Error(), nil)}
	}
	srv := p.srv.Load()
	check, err := srv.Check(session, call)
	if err != nil {
		return outcome{answer: refusal(env, err.Error())}
	}
	if env.method == methodReadFile && check.Decision == protocol.DecisionAllow {
		return outcome{forward: true} // a read that is not sensitive passes unrecorded
	}
	var reply protocol.PermissionReply
	if check.Decision == protocol.DecisionAsk && p.approvedByHuman(session, check) {
		reply, err = srv.RecordUserReply(ctx, session, 0, call, protocol.PermissionReply{Reply: protocol.ReplyOnce})
	} else {
		reply, err = srv.Decide(ctx, session, 0, call, nil)
	}
	switch {
	case ctx.Err() != nil:
		return outcome{answer: failure(env.id, codeCancelled, "perm-peer: "+env.method+" was cancelled", nil)}
	case err != nil:
		slog.Error("acp: decision failed; refused", "method", env.method, "err", err)
		return outcome{answer: refusal(env, "decision failed: "+err.Error())}
	case reply.Reply == protocol.ReplyOnce || reply.Reply == protocol.ReplyAlways:
		return outcome{forward: true}
	}
	return outcome{answer: failure(env.id, codeRefused, "perm-peer refused "+env.method+": "+reply.Feedback, reply.Meta)}
}

// approvedByHuman reports whether every fact of the effect that the gate
// does not allow by itself is one a human approved this turn, in the tool
// call of the same session that led to it (same path, same command).
func (p *Proxy) approvedByHuman(session string, effect protocol.CheckResult) bool {
	approved := p.mem.approved(session)
	if len(approved) == 0 {
		return false
	}
	srv := p.srv.Load()
	var facts []protocol.Fact
	for _, call := range approved {
		c, err := srv.Check(session, call)
		if err != nil {
			return false
		}
		facts = append(facts, c.Facts...)
	}
	for _, f := range effect.Facts {
		if f.Decision == protocol.DecisionAllow {
			continue
		}
		if f.Decision == protocol.DecisionDeny || !slices.ContainsFunc(facts, func(a protocol.Fact) bool { return sameAction(a, f) }) {
			return false
		}
	}
	return true
}

// sameAction reports whether two facts are the same action on the same thing.
func sameAction(a, b protocol.Fact) bool {
	return a.Kind == b.Kind && a.Path == b.Path && a.Host == b.Host && slices.Equal(a.Argv, b.Argv)
}
