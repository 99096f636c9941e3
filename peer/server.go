package peer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/judge"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/schemas"
	"github.com/perm-peer/perm-peer/store"
)

// Config is what the command line gives the server.
type Config struct {
	Project        string // default project root (absolute); initialize may name another
	DBPath         string // "" = store.DefaultPath(project)
	UserPolicyFile string // may not exist
	Home           string // "" = os.UserHomeDir
	Framing        Framing
	MaxFrame       int
	Version        string
	// Judge, when set, overrides the user policy's judge block (flags).
	Judge *protocol.JudgeConfig
	// AskTimeout, when > 0, overrides the policy's bound on permission/ask.
	AskTimeout time.Duration
	// StoreOptions tune the store.
	StoreOptions store.Options
	// Agent names the agent of a session opened without one (a hook
	// host: claude-code, codex, ...), so the log can say who made a call.
	Agent string
	// NoProject: Project keys the DB and the judge's context but is not a
	// project (a hook session started in $HOME, / or above $HOME): the gate
	// sees no project, so every write is outside it, and no project policy
	// applies.
	NoProject bool
	// HostAllow are the allow rules of the user's own host settings (a
	// hook host's, e.g. Claude Code's permissions.allow): they clear only a
	// human-only call a policy allow rule naming it would clear
	// (gate.Policy.AddHostAllowFunc), since the host allows it without a
	// prompt. Read only when a call meets such a fact.
	HostAllow func() []string
	// Protected are more of perm-peer's own files (a write to them is a
	// floor), beside the DB, policies and state directory it knows.
	Protected []string
}

// Server serves one editor connection.
type Server struct {
	cfg Config

	mu          sync.Mutex
	initialized bool
	shutdown    bool
	exitCode    int
	exited      chan struct{}
	client      protocol.InitializeParams
	w           *world
	sessions    map[string]*session
	pending     map[jsonrpc2.ID]context.CancelFunc
	// withdrawals is the frame of the latest session/cancel or
	// session/close of each session id, loaded or not: a request may have
	// arrived before the cancel and load its session after it (on a worker).
	// It is emptied whenever no request is in flight (s.pending).
	withdrawals map[string]uint64

	inflight sync.WaitGroup
	askSeq   atomic.Uint64
	// frames numbers the messages in the order the read loop takes them, so
	// a request can tell whether a session/cancel came after it on the wire
	// (session.withdrawnAt), however late it starts.
	frames atomic.Uint64

	// inputGone is cancelled when stdin ends: escalations can no longer be
	// answered and resolve headless so in-flight requests finish.
	inputGone   context.Context
	cancelInput context.CancelFunc
	stream      *Stream
	stopping    bool // set by drain: no new requests
	closed      bool // set when Serve returns: the read loop stops
	asks        askTable
	workers     *workers
	load        load         // requests in flight, for back-pressure
	acpBytes    atomic.Int64 // remembered ACP tool calls over all sessions

	// beforeRecord and afterRecord, set only by tests, run in decide just
	// before a decision is recorded and right after its record is durable:
	// the moments a cancellation can otherwise only hit by chance.
	beforeRecord, afterRecord func(ctx context.Context)
}

// world is the project the connection decides for: policy, store, judge.
type world struct {
	project string
	// scope is the project root the gate sees: project, or "" when the
	// configuration says project is no project (Config.NoProject).
	scope  string
	home   string
	policy *gate.Policy
	db     *store.DB
	judge  *judge.Judge
	// protected are files whose writes are a hard floor (the DB, policies).
	protected  []string
	askTimeout time.Duration
	// dirs are the directory listings the gate's walks of recursive
	// searches read, kept for the session's next search of the same tree.
	dirs *gate.DirCache
}

// New returns a server for cfg.
func New(cfg Config) *Server {
	if cfg.Framing == "" {
		cfg.Framing = FramingAuto
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{
		cfg:         cfg,
		sessions:    map[string]*session{},
		withdrawals: map[string]uint64{},
		pending:     map[jsonrpc2.ID]context.CancelFunc{},
		exited:      make(chan struct{}),
		inputGone:   ctx,
		cancelInput: cancel,
		exitCode:    0,
		workers:     newWorkers(),
	}
}

// Serve answers requests from r on w until the input ends, the editor sends
// exit or ctx ends (SIGTERM), and returns the process exit code: 0 after EOF
// or after shutdown+exit, 1 after an exit without shutdown. In-flight
// requests finish and write their replies before it returns.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) int {
	stream := NewStream(r, w, nil, s.cfg.Framing, s.cfg.MaxFrame)
	stream.OnBadAnswer = s.badAnswer
	// Set before the loop starts reading: handle, on the read loop, asks
	// the stream whether more input is waiting.
	s.mu.Lock()
	s.stream = stream
	s.mu.Unlock()
	// The loop outlives ctx: a SIGTERM must still let in-flight requests
	// write their replies, so reading stops only after drain.
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		s.readLoop(stream)
	}()
	select {
	case <-loopDone:
	case <-s.exited:
	case <-ctx.Done():
	}
	s.drain()
	s.workers.stop()
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	if err := s.Close(); err != nil {
		slog.Error("close audit db", "err", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitCode
}

// readLoop reads and decodes each frame once, hands responses to the asks
// waiting for them and requests to handle, in wire order. It stops reading
// while the bounds on requests in flight are reached (back-pressure), and
// when the input ends it lets in-flight requests finish first.
func (s *Server) readLoop(stream *Stream) {
	for {
		s.load.waitForRoom()
		msg, err := stream.ReadMessage()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				slog.Warn("input ended", "err", err)
			}
			s.drain()
			return
		}
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if closed {
			continue // Serve has returned: read on, so the writer never blocks, but serve nothing
		}
		if msg.Resp != nil {
			s.asks.deliver(msg.Resp)
			continue
		}
		s.handle(msg.Req, msg.Size)
	}
}

// badAnswer ends ask id, whose answer came in a frame the reader rejected.
func (s *Server) badAnswer(askID, why string) {
	slog.Warn("unreadable answer to permission/ask; rejecting headless", "ask", askID, "err", why)
	s.asks.fail(askID, why)
}

// drain stops taking requests, withdraws pending escalations and waits for
// in-flight requests to reply. It runs when the input ends or the server
// stops, before the connection closes.
func (s *Server) drain() {
	s.mu.Lock()
	s.stopping = true
	s.mu.Unlock()
	s.cancelInput()
	s.inflight.Wait()
}

// handle runs on the read loop, for each request of size bytes: notifications
// are handled here, in order; requests other than the lifecycle ones run on
// a worker goroutine, except a lone permission request that needs neither
// judge nor user, which is answered here (see below).
func (s *Server) handle(req *jsonrpc2.Request, size int) {
	frame := s.frames.Add(1)
	if req.Notif {
		s.handleNotification(req, frame)
		return
	}
	switch req.Method {
	case protocol.MethodInitialize:
		s.reply(req.ID, s.initialize(req))
		return
	case protocol.MethodShutdown:
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		s.reply(req.ID, result{value: nil})
		return
	}
	s.mu.Lock()
	initialized, shuttingDown, stopping := s.initialized, s.shutdown, s.stopping
	_, duplicate := s.pending[req.ID]
	alone := len(s.pending) == 0
	var cancel context.CancelFunc
	var rctx context.Context
	if initialized || acpMethod(req.Method) {
		if !shuttingDown && !stopping && !duplicate {
			// Registered under s.mu so drain's Wait never races an Add.
			rctx, cancel = context.WithCancel(withArrivalSize(context.Background(), frame, size))
			s.pending[req.ID] = cancel
			s.inflight.Add(1)
			s.load.add(size)
		}
	}
	s.mu.Unlock()
	switch {
	case !initialized && !acpMethod(req.Method):
		s.reply(req.ID, failure(protocol.CodeNotInitialized, "server not initialized: send initialize first"))
		return
	case shuttingDown || stopping:
		s.reply(req.ID, failure(protocol.CodeInvalidRequest, "server is shutting down"))
		return
	case duplicate:
		s.reply(req.ID, failure(protocol.CodeInvalidRequest, "invalid request: id "+req.ID.String()+" is already in flight"))
		return
	}
	// A permission request alone (none in flight, no more input waiting) is
	// tried right here on the read loop, settled-only: one that needs no
	// judge and no user is decided, recorded and answered without a
	// hand-off to another goroutine, which on this kind of 2-core machine
	// cut ~130 µs of a ~640 µs sequential decision (docs/PERFORMANCE.md).
	// One that needs the judge or the user goes to a worker: it must not
	// block the loop that reads the editor's answers. When other requests
	// are in flight or waiting, every request goes to a worker, so requests
	// keep being read and group commit keeps batching them.
	if alone && settleable(req.Method) && !s.stream.InputWaiting() && s.runRequest(rctx, cancel, req, size, true) {
		return
	}
	s.workers.run(func() { s.runRequest(rctx, cancel, req, size, false) })
}

// settleable reports whether a method may be run settled-only on the read loop.
func settleable(method string) bool {
	return method == protocol.MethodRequestPermission || method == protocol.MethodACPRequestPermission
}

// runRequest dispatches a registered request, replies and releases it. With
// settledOnly it reports false, having done nothing, for a request that
// needs the judge or the user (see Server.decide).
func (s *Server) runRequest(ctx context.Context, cancel context.CancelFunc, req *jsonrpc2.Request, size int, settledOnly bool) bool {
	res := s.dispatchSafely(ctx, req, settledOnly)
	if res.unsettled {
		return false
	}
	defer s.inflight.Done()
	defer s.load.done(size) // after the reply: the bound counts replies not yet written
	defer func() {
		s.mu.Lock()
		delete(s.pending, req.ID)
		if len(s.pending) == 0 {
			// no request that arrived before a withdrawal is left to load
			// its session
			clear(s.withdrawals)
		}
		s.mu.Unlock()
		cancel()
	}()
	// A permission request answers what its audit record says: -32800 if
	// it was cancelled before a decision (decide reports errCancelled), the
	// decision if the cancellation came after it was recorded. Any other
	// method is simply cancelled.
	if ctx.Err() != nil && !settleable(req.Method) {
		res = failure(protocol.CodeCancelled, "request cancelled")
	}
	s.reply(req.ID, res)
	return true
}

// dispatchSafely turns a panic in a method into -32603: a bug must not kill
// the connection (and never becomes an allow).
func (s *Server) dispatchSafely(ctx context.Context, req *jsonrpc2.Request, settledOnly bool) (res result) {
	defer func() {
		if r := recover(); r != nil {
			slog.Error("panic in method", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
			res = failure(protocol.CodeInternalError, fmt.Sprintf("internal error in %s", req.Method))
		}
	}()
	return s.dispatch(ctx, req, settledOnly)
}

func acpMethod(m string) bool {
	switch m {
	case protocol.MethodACPRequestPermission, protocol.MethodACPSessionUpdate, protocol.MethodACPSessionCancel:
		return true
	}
	return false
}

// result is a method's outcome: a value or a JSON-RPC error, or, for a
// request dispatched settled-only, the news that it must run elsewhere.
type result struct {
	value     any
	err       *jsonrpc2.Error
	unsettled bool // nothing was done: dispatch it again without settledOnly
}

func failure(code int64, msg string) result {
	return result{err: &jsonrpc2.Error{Code: code, Message: msg}}
}

func internalError(err error) result {
	slog.Error("internal error", "err", err)
	return failure(protocol.CodeInternalError, err.Error())
}

func (s *Server) reply(id jsonrpc2.ID, res result) {
	s.mu.Lock()
	stream := s.stream
	s.mu.Unlock()
	var err error
	if res.err != nil {
		err = stream.WriteErrorReply(id, res.err)
	} else {
		err = stream.WriteResult(id, res.value)
	}
	if err != nil {
		slog.Warn("write reply", "id", id.String(), "err", err)
	}
}

// dispatch runs one request method. settledOnly applies to the permission
// requests (Server.decide); the other methods never block on the editor.
func (s *Server) dispatch(ctx context.Context, req *jsonrpc2.Request, settledOnly bool) result {
	switch req.Method {
	case protocol.MethodSessionOpen:
		return s.sessionOpen(req.Method, req.Params)
	case protocol.MethodRequestPermission:
		return s.requestPermission(ctx, req.Method, req.Params, settledOnly)
	case protocol.MethodACPRequestPermission:
		return s.acpRequestPermission(ctx, req.Method, req.Params, settledOnly)
	case protocol.MethodPermissionCheck:
		return s.check(req.Method, req.Params)
	case protocol.MethodPermissionAudit:
		return s.audit(req.Method, req.Params)
	case protocol.MethodPermissionRules:
		return s.rules(req.Method, req.Params)
	case protocol.MethodGrantsList:
		return s.grantsList(req.Method, req.Params)
	case protocol.MethodGrantsRevoke:
		return s.grantsRevoke(req.Method, req.Params)
	}
	return failure(protocol.CodeMethodNotFound, fmt.Sprintf("method not found: %s", req.Method))
}

// decodeParams validates params against the method's schema, then decodes
// them into v. A failure is a -32602 naming the bad field; nothing changes.
// Params the strict check certainly accepts (schemas.Certain: what every
// host sends) skip the validator; everything else goes to it, so every
// rejection is the validator's (SPEC §3.8).
func decodeParams(method string, raw *json.RawMessage, v any) *jsonrpc2.Error {
	params := json.RawMessage("{}")
	if raw != nil && len(*raw) > 0 && string(*raw) != "null" {
		params = *raw
	}
	if !schemas.Certain(method, params) {
		if err := validateParams(method, params); err != nil {
			return err
		}
	}
	if err := json.Unmarshal(params, v); err != nil {
		msg := err.Error()
		var terr *json.UnmarshalTypeError
		if errors.As(err, &terr) && terr.Field != "" {
			msg = fmt.Sprintf("field /%s: want %s, got %s", strings.ReplaceAll(terr.Field, ".", "/"), terr.Type, terr.Value)
		}
		return &jsonrpc2.Error{Code: protocol.CodeInvalidParams, Message: "invalid params: " + msg}
	}
	return nil
}

// validateParams is the validator's verdict on params, and a key that
// differs from a declared field only in letter case, which the validator
// ignores and encoding/json would decode into that field, is rejected.
func validateParams(method string, params json.RawMessage) *jsonrpc2.Error {
	if p := schemas.FoldedKey(method, params); p != "" {
		return &jsonrpc2.Error{Code: protocol.CodeInvalidParams, Message: "invalid params: " + p + ": differs from a field of the same name only in letter case"}
	}
	if err := schemas.ValidateParams(method, params); err != nil {
		var verr *schemas.Error
		if !errors.As(err, &verr) {
			// The validator itself failed: fail closed, change nothing.
			return &jsonrpc2.Error{Code: protocol.CodeInternalError, Message: "validate params: " + err.Error()}
		}
		e := &jsonrpc2.Error{Code: protocol.CodeInvalidParams, Message: "invalid params: " + err.Error()}
		e.SetError(verr)
		return e
	}
	return nil
}

// missing is a -32602 for a required field the schema did not catch.
func missing(pointer string) *jsonrpc2.Error {
	return &jsonrpc2.Error{Code: protocol.CodeInvalidParams, Message: "invalid params: " + pointer + ": required"}
}

func (s *Server) handleNotification(req *jsonrpc2.Request, frame uint64) {
	switch req.Method {
	case protocol.MethodInitialized:
	case protocol.MethodExit:
		s.mu.Lock()
		if !s.shutdown {
			s.exitCode = 1
		}
		s.mu.Unlock()
		select {
		case <-s.exited:
		default:
			close(s.exited)
		}
	case protocol.MethodCancelRequest:
		var p protocol.CancelParams
		if decodeParams(req.Method, req.Params, &p) == nil {
			s.cancelRequest(p.ID)
		}
	case protocol.MethodACPCancelRequest:
		var p protocol.ACPCancelRequestParams
		if decodeParams(req.Method, req.Params, &p) == nil {
			s.cancelRequest(p.RequestID)
		}
	case protocol.MethodSessionTurn:
		var p protocol.SessionTurnParams
		if err := decodeParams(req.Method, req.Params, &p); err != nil {
			slog.Warn("bad notification", "method", req.Method, "err", err.Message)
			return
		}
		if sess, err := s.session(p.SessionID); err == nil {
			sess.beginTurn(p.Turn, p.UserMessage)
		}
	case protocol.MethodSessionClose:
		var p protocol.SessionCloseParams
		if decodeParams(req.Method, req.Params, &p) == nil {
			s.mu.Lock()
			sess := s.sessions[p.SessionID]
			delete(s.sessions, p.SessionID)
			s.noteWithdrawalLocked(p.SessionID, frame)
			s.mu.Unlock()
			if sess != nil {
				sess.withdrawAsks(frame)
				s.forgetACP(sess)
				if w, err := s.world(); err == nil {
					w.judge.Forget(w.project, p.SessionID)
				}
			}
		}
	case protocol.MethodACPSessionUpdate:
		s.acpSessionUpdate(req.Params)
	case protocol.MethodACPSessionCancel:
		var p protocol.ACPSessionCancelParams
		if decodeParams(req.Method, req.Params, &p) == nil {
			s.withdrawSession(p.SessionID, frame)
		}
	default:
		slog.Debug("ignored notification", "method", req.Method)
	}
}

// withdrawSession withdraws every request of a session that arrived before
// frame (ACP's session/cancel): pending asks end, decisions still running
// are cancelled.
func (s *Server) withdrawSession(id string, frame uint64) {
	s.mu.Lock()
	sess := s.sessions[id]
	s.noteWithdrawalLocked(id, frame)
	s.mu.Unlock()
	if sess != nil {
		sess.withdrawAsks(frame)
	}
}

// noteWithdrawalLocked remembers a session/cancel or session/close of id
// for the requests in flight, which may load the session after it. With
// none in flight there is nothing to withdraw, so nothing is kept: the map
// does not grow with every session id ever cancelled or closed.
func (s *Server) noteWithdrawalLocked(id string, frame uint64) {
	if len(s.pending) == 0 {
		clear(s.withdrawals)
		return
	}
	s.withdrawals[id] = frame
}

// cancelRequest cancels an in-flight request by its id (a JSON number or string).
func (s *Server) cancelRequest(raw any) {
	var id jsonrpc2.ID
	switch v := raw.(type) {
	case string:
		id = jsonrpc2.ID{Str: v, IsString: true}
	case float64:
		if v < 0 || v != float64(uint64(v)) {
			return
		}
		id = jsonrpc2.ID{Num: uint64(v)}
	case json.Number:
		var n uint64
		if _, err := fmt.Sscan(v.String(), &n); err != nil {
			return
		}
		id = jsonrpc2.ID{Num: n}
	default:
		return
	}
	s.mu.Lock()
	cancel := s.pending[id]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func homeDir(cfg Config) string {
	if cfg.Home != "" {
		return cfg.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// arrivalKey keys a request's *arrival in its context.
type arrivalKey struct{}

// arrival is where a request came off the wire: its frame number and its
// frame's size (what it counts against the bounds on requests in flight).
type arrival struct {
	frame uint64
	size  int
}

func withArrival(ctx context.Context, frame uint64) context.Context {
	return withArrivalSize(ctx, frame, 0)
}

func withArrivalSize(ctx context.Context, frame uint64, size int) context.Context {
	return context.WithValue(ctx, arrivalKey{}, &arrival{frame: frame, size: size})
}

// arrival is the frame number of the request ctx belongs to; a request
// that did not come off the wire (tests, tools) arrives now.
func (s *Server) arrival(ctx context.Context) uint64 {
	if a, ok := ctx.Value(arrivalKey{}).(*arrival); ok {
		return a.frame
	}
	return s.frames.Load()
}

// frameSize is the size of the frame of the request ctx belongs to.
func frameSize(ctx context.Context) int {
	if a, ok := ctx.Value(arrivalKey{}).(*arrival); ok {
		return a.size
	}
	return 0
}
