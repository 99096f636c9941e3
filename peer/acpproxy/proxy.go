package acpproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/perm-peer/perm-peer/peer"
	"github.com/perm-peer/perm-peer/protocol"
)

// MaxPending bounds the agent requests being decided at once.
const MaxPending = 256

// Options configure a Proxy.
type Options struct {
	// Open returns the pipeline for a project root. The proxy calls it when
	// the first session names a project other than the one it started with
	// (only when the project was not fixed on the command line).
	Open func(project string) (*peer.Server, error)
	// FixedProject: the project was given (--project); sessions do not
	// change it.
	FixedProject bool
	// Agent names the agent in the audit until its initialize result does.
	Agent string
}

// Proxy relays one editor ↔ agent connection and guards it.
type Proxy struct {
	opts     Options
	srv      atomic.Pointer[peer.Server]
	mem      *memory
	toEditor *lineWriter
	toAgent  *lineWriter

	// base ends when the editor is gone or the agent's output ends: every
	// pending decision is then withdrawn (headless reject, recorded).
	base context.Context
	stop context.CancelFunc

	mu        sync.Mutex
	pending   map[string]*pending      // agent requests being decided, by id
	forwarded map[string]chan envelope // of those, the ones the editor was asked
	withdrawn []string                 // forwarded ids answered without the editor, oldest first
	chosen    bool                     // the project is settled
	closing   bool                     // no new decisions are started
	inflight  sync.WaitGroup
}

type pending struct {
	session string
	cancel  context.CancelFunc
}

// New returns a proxy deciding with srv (already opened).
func New(srv *peer.Server, opts Options) *Proxy {
	p := &Proxy{opts: opts, mem: newMemory(), pending: map[string]*pending{}, forwarded: map[string]chan envelope{},
		chosen: opts.FixedProject}
	p.srv.Store(srv)
	p.mem.setAgentName(opts.Agent)
	p.base, p.stop = context.WithCancel(context.Background())
	return p
}

// Server is the pipeline the proxy decides with now.
func (p *Proxy) Server() *peer.Server { return p.srv.Load() }

// Run relays until the agent's output ends. When the editor's input ends,
// pending decisions are withdrawn and answered, then agentIn is closed (the
// editorGone runs: the caller gives the agent its grace period). Run
// returns after every decision it started has been recorded and answered.
func (p *Proxy) Run(editorIn io.Reader, editorOut io.Writer, agentIn io.WriteCloser, agentOut io.Reader, editorGone func()) {
	p.toEditor = &lineWriter{w: editorOut}
	p.toAgent = &lineWriter{w: agentIn}
	go func() {
		p.fromEditor(editorIn)
		p.finish()
		_ = agentIn.Close()
		if editorGone != nil {
			editorGone()
		}
	}()
	p.fromAgent(agentOut)
	p.finish()
}

// finish withdraws every pending decision and waits for them to be
// answered. It is safe to call twice.
func (p *Proxy) finish() {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	p.stop()
	p.inflight.Wait()
}

// fromAgent reads the agent's lines and relays or acts on each.
func (p *Proxy) fromAgent(r io.Reader) {
	readLines(r, "agent", func(line []byte) {
		if len(bytes.TrimSpace(line)) > 0 {
			p.agentLine(line)
		}
	})
}

// readLines calls handle with each line of r until r ends; a line over
// MaxLine is dropped and logged (from the agent it is never forwarded:
// perm-peer could not check it).
func readLines(r io.Reader, from string, handle func(line []byte)) {
	lr := newLineReader(r, MaxLine)
	for {
		line, err := lr.readLine()
		if errors.Is(err, errLineTooLong) {
			slog.Error("acp: dropped a line over the size limit", "from", from, "limit", MaxLine)
			continue
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				slog.Warn("acp: reading", "from", from, "err", err)
			}
			return
		}
		handleSafely(from, line, handle)
	}
}

// handleSafely drops a line whose handling panics (a bug): logged, never
// forwarded, and the relay goes on.
func handleSafely(from string, line []byte, handle func([]byte)) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("acp: internal error on a line; dropped", "from", from, "panic", r, "line", clip(line))
		}
	}()
	handle(line)
}

// agentLine handles one line from the agent. A line that is not one JSON
// object perm-peer can read is dropped, never forwarded: the editor might
// read a request in it that perm-peer did not check.
func (p *Proxy) agentLine(line []byte) {
	env, err := parseEnvelope(line)
	if err != nil {
		slog.Warn("acp: dropped a line from the agent that is not a JSON-RPC message", "err", err, "line", clip(line))
		return
	}
	switch {
	case env.hasMethod && gated(env.method):
		if !env.isRequest() {
			slog.Warn("acp: dropped a notification the agent sent for a request method", "method", env.method)
			return
		}
		line = bytes.Clone(line) // the decision outlives the read buffer
		env, _ = parseEnvelope(line)
		p.start(env, line)
		return
	case env.isNotification():
		switch env.method {
		case protocol.MethodACPSessionUpdate:
			p.noteUpdate(env.params)
		case protocol.MethodACPCancelRequest:
			p.cancelRequest(env.params)
		}
	case env.isResponse():
		p.learnAnswer(env)
	}
	_ = p.toEditor.write(line)
}

// gated names the agent requests perm-peer decides.
func gated(method string) bool {
	switch method {
	case protocol.MethodACPRequestPermission, methodWriteFile, methodReadFile, methodTerminalCreate:
		return true
	}
	return false
}

// start registers an agent request and decides it on its own goroutine.
func (p *Proxy) start(env envelope, line []byte) {
	key := idKey(env.id)
	var sp sessionParams
	_ = json.Unmarshal(env.params, &sp)
	p.mu.Lock()
	_, dup := p.pending[key]
	full := len(p.pending) >= MaxPending
	closing := p.closing
	var ctx context.Context
	if !dup && !full && !closing {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(p.base)
		p.pending[key] = &pending{session: sp.SessionID, cancel: cancel}
		p.inflight.Add(1)
	}
	p.mu.Unlock()
	if dup || full || closing {
		why := "too many requests are being decided"
		switch {
		case dup:
			why = "a request with this id is already being decided"
		case closing:
			why = "the editor is gone"
		}
		p.refuseNow(env, why)
		return
	}
	go func() {
		defer p.inflight.Done()
		defer p.release(key)
		defer p.recoverTo(env)
		if env.method == protocol.MethodACPRequestPermission {
			p.permission(ctx, env, line)
		} else {
			p.effect(ctx, env, line)
		}
	}()
}

// release forgets a decided request.
func (p *Proxy) release(key string) {
	p.mu.Lock()
	if pr := p.pending[key]; pr != nil {
		pr.cancel()
		delete(p.pending, key)
	}
	p.mu.Unlock()
}

// recoverTo turns a panic while deciding into an answer that allows nothing.
func (p *Proxy) recoverTo(env envelope) {
	if r := recover(); r != nil {
		slog.Error("acp: internal error while deciding; refused", "method", env.method, "panic", r)
		p.refuseNow(env, fmt.Sprint("internal error: ", r))
	}
}

// refuseNow answers an agent request without deciding it: a permission
// request is rejected, an effect gets an error.
func (p *Proxy) refuseNow(env envelope, why string) {
	if env.method == protocol.MethodACPRequestPermission {
		var params protocol.ACPRequestPermissionParams
		_ = json.Unmarshal(env.params, &params)
		_ = p.toAgent.send(result(env.id, rejection(params.Options, &protocol.ReplyMeta{DecidedBy: protocol.ByHeadless, Reason: why})))
		return
	}
	_ = p.toAgent.send(failure(env.id, codeRefused, "perm-peer refused "+env.method+": "+why, nil))
}

// fromEditor reads the editor's lines and relays or acts on each. The
// editor is trusted: a line perm-peer cannot read still goes to the agent.
func (p *Proxy) fromEditor(r io.Reader) {
	readLines(r, "editor", func(line []byte) {
		env, err := parseEnvelope(line)
		if err == nil && env.isResponse() {
			env, _ = parseEnvelope(bytes.Clone(line)) // it may go to a waiting decision
		}
		if err == nil && !p.editorMessage(env) {
			return
		}
		_ = p.toAgent.write(line)
	})
}

// editorMessage acts on one message from the editor and reports whether it
// goes on to the agent.
func (p *Proxy) editorMessage(env envelope) bool {
	switch {
	case env.isResponse():
		return p.deliver(env)
	case env.isRequest():
		return p.learnRequest(env)
	case env.isNotification() && env.method == protocol.MethodACPSessionCancel:
		var sp sessionParams
		if json.Unmarshal(env.params, &sp) == nil && sp.SessionID != "" {
			p.cancelSession(sp.SessionID)
		}
	}
	return true
}

// deliver hands the editor's answer to the forwarded request waiting for
// it; an answer to one already withdrawn is dropped. Other answers (to the
// agent's fs and terminal requests) go on.
func (p *Proxy) deliver(env envelope) bool {
	key := idKey(env.id)
	p.mu.Lock()
	defer p.mu.Unlock()
	if ch, ok := p.forwarded[key]; ok {
		delete(p.forwarded, key)
		ch <- env
		return false
	}
	if i := slices.Index(p.withdrawn, key); i >= 0 {
		p.withdrawn = slices.Delete(p.withdrawn, i, i+1)
		return false
	}
	return true
}

// cancelSession withdraws every pending request of the session.
func (p *Proxy) cancelSession(session string) {
	p.mu.Lock()
	for _, pr := range p.pending {
		if pr.session == session {
			pr.cancel()
		}
	}
	p.mu.Unlock()
	p.srv.Load().CancelSession(session)
}

// cancelRequest is the agent's $/cancel_request: a request of its own that
// perm-peer is deciding is withdrawn (and answered); the notification goes
// on to the editor either way.
func (p *Proxy) cancelRequest(raw json.RawMessage) {
	var c cancelRequestParams
	if json.Unmarshal(raw, &c) != nil || c.RequestID == nil {
		return
	}
	p.mu.Lock()
	if pr := p.pending[idKey(c.RequestID)]; pr != nil {
		pr.cancel()
	}
	p.mu.Unlock()
}

// chooseProject makes dir the project, when no project was fixed and no
// session has settled it yet.
func (p *Proxy) chooseProject(dir string) error {
	p.mu.Lock()
	if p.chosen || dir == "" || !filepath.IsAbs(dir) {
		p.mu.Unlock()
		return nil
	}
	p.chosen = true
	p.mu.Unlock()
	dir = filepath.Clean(dir)
	old := p.srv.Load()
	if old.Project() == dir {
		return nil
	}
	// The old pipeline's DB is closed first: with a fixed --db both are
	// the same file, which one process cannot open twice.
	if err := old.Close(); err != nil {
		slog.Warn("acp: close the audit db", "err", err)
	}
	srv, err := p.opts.Open(dir)
	if err != nil {
		p.mu.Lock()
		p.chosen = false // the next session tries again, and fails again
		p.mu.Unlock()
		back, berr := p.opts.Open(old.Project())
		if berr != nil {
			slog.Error("acp: cannot reopen the startup project; every call will be refused", "err", berr)
		} else {
			p.srv.Store(back)
		}
		return err
	}
	p.srv.Store(srv)
	return nil
}

// Close releases the pipeline.
func (p *Proxy) Close() error { return p.srv.Load().Close() }

// clip shortens a line for a log message.
func clip(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
