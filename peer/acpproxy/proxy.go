package acpproxy

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perm-peer/perm-peer/peer"
	"github.com/perm-peer/perm-peer/protocol"
)

// MaxPending bounds the agent requests being decided at once.
const MaxPending = 256

// maxPendingBytes bounds the bytes of the agent requests being decided at
// once. A request costs the proxy about twice its size while it waits (its
// line and what is decoded from it), so this keeps the proxy within a
// laptop's budget (docs/HOSTS.md); one request is always taken.
const maxPendingBytes = 64 << 20

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
	// Grace is how long the agent has to exit once the editor is gone (its
	// stdin closed), and again after SIGTERM, before SIGKILL.
	Grace time.Duration
}

// Proxy relays one editor ↔ agent connection and guards it.
type Proxy struct {
	opts     Options
	srv      atomic.Pointer[peer.Server]
	mem      *memory
	toEditor *lineWriter
	toAgent  *lineWriter // writes to queue
	queue    *agentQueue

	// idPrefix starts the ids of the requests forwarded to the editor:
	// the editor's answer is matched by perm-peer's own id, never by the
	// agent's, which it may reuse once it withdrew a request.
	idPrefix string
	lastID   atomic.Uint64

	// base ends when the editor is gone or the agent's output ends: every
	// pending decision is then withdrawn (headless reject, recorded).
	base context.Context
	stop context.CancelFunc

	mu        sync.Mutex
	pending   map[string]*pending      // agent requests being decided, by the agent's id
	heldBytes int                      // the size of their lines
	forwarded map[string]chan envelope // of those, the ones the editor was asked, by perm-peer's id
	chosen    bool                     // the project is settled
	closing   bool                     // no new decisions are started
	inflight  sync.WaitGroup
}

type pending struct {
	size    int
	session string
	cancel  context.CancelFunc
	askedAs json.RawMessage // the id the editor was asked under, if it was
}

// New returns a proxy deciding with srv (already opened).
func New(srv *peer.Server, opts Options) *Proxy {
	p := &Proxy{opts: opts, mem: newMemory(), pending: map[string]*pending{}, forwarded: map[string]chan envelope{},
		chosen: opts.FixedProject, idPrefix: newIDPrefix()}
	p.srv.Store(srv)
	p.mem.setAgentName(opts.Agent)
	p.base, p.stop = context.WithCancel(context.Background())
	return p
}

// newIDPrefix is a prefix no agent can guess for the ids of the requests
// perm-peer forwards to the editor.
func newIDPrefix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "perm-peer-" + hex.EncodeToString(b[:]) + "-"
}

// nextAskID is a fresh id, as JSON, for a request forwarded to the editor.
func (p *Proxy) nextAskID() json.RawMessage {
	return strconv.AppendQuote(nil, p.idPrefix+strconv.FormatUint(p.lastID.Add(1), 10))
}

// ownID reports whether an id (as idKey) is one perm-peer gave.
func (p *Proxy) ownID(key string) bool { return strings.HasPrefix(key, `"`+p.idPrefix) }

// Server is the pipeline the proxy decides with now.
func (p *Proxy) Server() *peer.Server { return p.srv.Load() }

// Run relays until the agent has exited and what it wrote last has been
// read: at most drainBound after it exited, since a process it started may
// hold its output open. When the editor's input ends, pending decisions are
// withdrawn and answered, the agent's stdin is closed once what was queued
// for it is written, and the agent is stopped (Agent.Stop with
// Options.Grace). Run returns after every decision it started has been
// recorded and answered.
func (p *Proxy) Run(editorIn io.Reader, editorOut io.Writer, agent *Agent) {
	p.toEditor = &lineWriter{w: editorOut}
	p.queue = newAgentQueue()
	p.toAgent = &lineWriter{w: p.queue}
	go p.queue.run(agent.Stdin)
	go func() {
		p.fromEditor(editorIn)
		p.finish()
		p.queue.close()
		agent.Stop(p.opts.Grace)
	}()
	go func() {
		<-agent.Exited()
		_ = agent.Stdout.SetReadDeadline(time.Now().Add(drainBound))
	}()
	p.fromAgent(agent.Stdout)
	p.finish()
}

// drainBound is how long the agent's output is still read once the agent
// has exited: what it wrote is in the pipe by then, so this only ends the
// wait for a process it started that holds the pipe.
const drainBound = 500 * time.Millisecond

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
	readLines(r, "agent", func(line []byte) bool {
		if len(bytes.TrimSpace(line)) > 0 {
			p.agentLine(line)
		}
		return true
	})
}

// readLines calls handle with each line of r until r ends or handle
// returns false; a line over MaxLine is dropped and logged (from the agent
// it is never forwarded: perm-peer could not check it).
func readLines(r io.Reader, from string, handle func(line []byte) bool) {
	lr := newLineReader(r, MaxLine)
	for {
		line, err := lr.readLine()
		if errors.Is(err, errLineTooLong) {
			slog.Error("acp: dropped a line over the size limit", "from", from, "limit", MaxLine)
			continue
		}
		switch {
		case errors.Is(err, os.ErrDeadlineExceeded):
			slog.Warn("acp: the agent has exited but a process it started holds its output open; stopped reading it", "from", from)
			return
		case err != nil:
			if !errors.Is(err, io.EOF) {
				slog.Warn("acp: reading", "from", from, "err", err)
			}
			return
		}
		if !handleSafely(from, line, handle) {
			return
		}
	}
}

// handleSafely drops a line whose handling panics (a bug): logged, never
// forwarded, and the relay goes on. It reports whether to go on.
func handleSafely(from string, line []byte, handle func([]byte) bool) (goOn bool) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("acp: internal error on a line; dropped", "from", from, "panic", r, "line", clip(line))
			goOn = true
		}
	}()
	return handle(line)
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
			line = p.cancelRequest(line, env.params)
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
	why := p.cannotTake(key, len(line))
	var ctx context.Context
	if why == "" {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(p.base)
		p.pending[key] = &pending{size: len(line), session: sp.SessionID, cancel: cancel}
		p.heldBytes += len(line)
		p.inflight.Add(1)
	}
	p.mu.Unlock()
	if why != "" {
		p.refuseNow(env, why)
		return
	}
	go func() {
		defer p.inflight.Done()
		defer p.recoverTo(key, env)
		var out outcome
		if env.method == protocol.MethodACPRequestPermission {
			out = p.permission(ctx, env, line)
		} else {
			out = p.effect(ctx, env)
		}
		// the id is free once the agent has its answer: it may reuse it
		p.release(key)
		if out.forward {
			_ = p.toEditor.write(line)
		} else {
			_ = p.toAgent.send(out.answer)
		}
	}()
}

// cannotTake says why a request of size bytes with id key cannot be
// decided now ("" when it can). p.mu is held.
func (p *Proxy) cannotTake(key string, size int) string {
	switch _, dup := p.pending[key]; {
	case dup:
		return "a request with this id is already being decided"
	case p.closing:
		return "the editor is gone"
	case len(p.pending) >= MaxPending:
		return "too many requests are being decided"
	case len(p.pending) > 0 && p.heldBytes+size > maxPendingBytes:
		return fmt.Sprintf("the requests being decided already hold %d MiB (the limit is %d MiB)", p.heldBytes>>20, maxPendingBytes>>20)
	}
	return ""
}

// release forgets a decided request.
func (p *Proxy) release(key string) {
	p.mu.Lock()
	if pr := p.pending[key]; pr != nil {
		pr.cancel()
		p.heldBytes -= pr.size
		delete(p.pending, key)
	}
	p.mu.Unlock()
}

// recoverTo turns a panic while deciding into an answer that allows nothing.
func (p *Proxy) recoverTo(key string, env envelope) {
	if r := recover(); r != nil {
		slog.Error("acp: internal error while deciding; refused", "method", env.method, "panic", r)
		p.release(key)
		p.refuseNow(env, fmt.Sprint("internal error: ", r))
	}
}

// refuseNow answers an agent request without deciding it.
func (p *Proxy) refuseNow(env envelope, why string) { _ = p.toAgent.send(refusal(env, why)) }

// refusal is the answer to an agent request that perm-peer does not allow
// without deciding it: a permission request is rejected, an effect gets an
// error.
func refusal(env envelope, why string) any {
	if env.method == protocol.MethodACPRequestPermission {
		var params protocol.ACPRequestPermissionParams
		_ = json.Unmarshal(env.params, &params)
		return result(env.id, rejection(params.Options, &protocol.ReplyMeta{DecidedBy: protocol.ByHeadless, Reason: why}))
	}
	return failure(env.id, codeRefused, "perm-peer refused "+env.method+": "+why, nil)
}

// fromEditor reads the editor's lines and relays or acts on each. The
// editor is trusted: a line perm-peer cannot read still goes to the agent.
func (p *Proxy) fromEditor(r io.Reader) {
	readLines(r, "editor", func(line []byte) bool {
		env, err := parseEnvelope(line)
		if err == nil && env.isResponse() {
			env, _ = parseEnvelope(bytes.Clone(line)) // it may go to a waiting decision
		}
		if err == nil && !p.editorMessage(env) {
			return true
		}
		return p.queueForAgent(r, line)
	})
}

// queueForAgent queues an editor line for the agent. While the queue is
// full (the agent is not reading) the editor is not read either, but its
// hangup is still seen: the line is then dropped and queueForAgent
// reports false (the editor is gone).
func (p *Proxy) queueForAgent(editorIn io.Reader, line []byte) bool {
	if p.queue.offer(line) {
		return true
	}
	slog.Warn("acp: the agent is not reading its input; perm-peer stops reading the editor until it does", "queuedLimit", maxQueued)
	stop := make(chan struct{})
	defer close(stop)
	hup := hangup(editorIn, stop)
	for {
		select {
		case <-p.queue.space:
			if p.queue.offer(line) {
				slog.Info("acp: the agent reads its input again; perm-peer reads the editor again")
				return true
			}
		case <-hup:
			slog.Warn("acp: the editor closed its end while the agent was not reading; the lines still queued for the agent are not delivered")
			return false
		}
	}
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
// it, found by the id perm-peer gave it; an answer carrying a perm-peer id
// no request waits for (withdrawn, or answered twice) is dropped. Other
// answers (to the agent's fs and terminal requests) go on.
func (p *Proxy) deliver(env envelope) bool {
	key := idKey(env.id)
	p.mu.Lock()
	defer p.mu.Unlock()
	if ch, ok := p.forwarded[key]; ok {
		delete(p.forwarded, key)
		ch <- env
		return false
	}
	if p.ownID(key) {
		slog.Info("acp: dropped the editor's answer to a withdrawn request", "id", key)
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
// perm-peer is deciding is withdrawn (and answered). It returns the line
// the editor gets: the agent's, or, for a request the editor was asked
// under perm-peer's id, the same notification naming that id.
func (p *Proxy) cancelRequest(line []byte, raw json.RawMessage) []byte {
	var c cancelRequestParams
	if json.Unmarshal(raw, &c) != nil || c.RequestID == nil {
		return line
	}
	var asked json.RawMessage
	p.mu.Lock()
	if pr := p.pending[idKey(c.RequestID)]; pr != nil {
		pr.cancel()
		asked = pr.askedAs
	}
	p.mu.Unlock()
	if asked == nil {
		return line
	}
	b, err := json.Marshal(struct {
		JSONRPC string              `json:"jsonrpc"`
		Method  string              `json:"method"`
		Params  cancelRequestParams `json:"params"`
	}{"2.0", protocol.MethodACPCancelRequest, cancelRequestParams{RequestID: asked}})
	if err != nil {
		return line
	}
	return b
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
