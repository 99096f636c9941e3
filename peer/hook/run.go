package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/perm-peer/perm-peer/peer"
	"github.com/perm-peer/perm-peer/store"
)

// Hosts are the hook hosts by the name `perm-peer hook NAME` takes.
var Hosts = map[string]Host{
	"claude-code": claude{},
	"codex":       codex{},
	"gemini":      gemini{},
	"cursor":      cursor{},
}

// Host is one agent host's hook protocol.
type Host interface {
	// name is the host's name in `perm-peer hook NAME`.
	name() string
	// parse reads one hook input.
	parse(raw []byte) (Event, error)
	// answer renders the outcome of ev in the host's form.
	answer(ev Event, o Outcome) Reply
	// fail is the host's blocking answer to a failure while handling ev
	// (ev is zero when the input could not be read): deny, except where
	// the event cannot block (a prompt).
	fail(ev Event, reason string) Reply
}

// hostRules is a host whose user keeps allow rules in the host's own
// settings, which the host applies without a prompt: hostAllow are those
// rules in the gate's syntax, read for a session pinned at pin whose event
// came from cwd (some hosts read settings from their working directory).
type hostRules interface {
	hostAllow(ctx context.Context, pin Pin, home, cwd string) []string
}

// Options configure Run.
type Options struct {
	// Config is the peer configuration; Run sets its Project to the
	// event's project. Its StoreOptions.LockTimeout should be well inside
	// Bound.
	Config peer.Config
	// Bound is how long one call may take before the watchdog answers
	// deny (it must be inside the host's hook timeout).
	Bound time.Duration
	// Exit ends the process with a code; the watchdog calls it when the
	// decision is late.
	Exit func(code int)
	// Pins is where each session's project is pinned.
	Pins Pins
}

// watchdogMargin is how long after the watchdog the decision's own
// deadline falls.
const watchdogMargin = 250 * time.Millisecond

// maxInput bounds the hook input read from stdin.
const maxInput = 4 << 20

// Run serves one hook call of host h: the event on in, the answer on out
// (and errOut), the exit code returned. It never returns a code that lets
// a host run a tool it was not told to run (for these hosts, 1).
func Run(h Host, in io.Reader, out, errOut io.Writer, opts Options) (code int) {
	// The watchdog answers at Bound and cancels ctx; the deadline is only a
	// backstop, set a little later so that the two do not race and the
	// host hears the watchdog's reason, not a cancelled decision's.
	ctx, cancel := context.WithTimeout(context.Background(), opts.Bound+watchdogMargin)
	defer cancel()
	r := &responder{out: out, errOut: errOut, cancel: cancel}
	watchdog := time.AfterFunc(opts.Bound, func() {
		// once the decision has begun its audit record it answers, so that
		// the host hears what the audit says (N7); before that, the deny
		// cancels the decision, which is then recorded as a headless reject
		code, ok := r.late(h, fmt.Sprintf("perm-peer did not decide within %s", opts.Bound))
		if ok && opts.Exit != nil {
			opts.Exit(code)
		}
	})
	defer watchdog.Stop()
	defer func() {
		if p := recover(); p != nil {
			slog.Error("hook panic", "panic", p, "stack", string(debug.Stack()))
			code, _ = r.send(h.fail(r.event(), fmt.Sprintf("perm-peer failed: %v", p)))
		}
	}()
	o, err := serve(ctx, h, in, r, opts)
	ev := r.event()
	if err != nil {
		slog.Error("hook", "event", ev.Name, "session", ev.SessionID, "err", err)
		code, _ = r.send(h.fail(ev, "perm-peer: "+err.Error()))
		return code
	}
	code, _ = r.send(h.answer(ev, o))
	return code
}

// serve reads the event into *ev and decides it.
func serve(ctx context.Context, h Host, in io.Reader, r *responder, opts Options) (Outcome, error) {
	raw, err := io.ReadAll(io.LimitReader(in, maxInput+1))
	if err != nil {
		return Outcome{}, fmt.Errorf("read hook input: %w", err)
	}
	if len(raw) > maxInput {
		return Outcome{}, fmt.Errorf("hook input larger than %d bytes", maxInput)
	}
	parsed, err := h.parse(raw)
	r.setEvent(parsed)
	ev := &parsed
	if err != nil {
		return Outcome{}, fmt.Errorf("unreadable hook input: %w", err)
	}
	pin, err := opts.Pins.Pin(h.name(), ev.SessionID, ev.Cwd)
	if err != nil {
		return Outcome{}, err
	}
	cfg := opts.Config
	cfg.Project, cfg.NoProject = pin.Root, pin.NoProject
	cfg.Protected = append(cfg.Protected[:len(cfg.Protected):len(cfg.Protected)], opts.Pins.Dir)
	// only before the host's own rules: a PermissionRequest comes after
	// they sent the call to a dialog (an ask rule, or no rule matched)
	if hr, ok := h.(hostRules); ok && ev.Stage == StagePreTool {
		cfg.HostAllow = func() []string { return hr.hostAllow(ctx, pin, opts.Pins.Home, ev.Cwd) }
	}
	srv := peer.New(cfg)
	if err := srv.Open(); err != nil {
		return Outcome{}, fmt.Errorf("cannot start: %w", err)
	}
	defer srv.Close()
	db, err := srv.DB()
	if err != nil {
		return Outcome{}, fmt.Errorf("cannot start: %w", err)
	}
	o, err := (&call{srv: srv, db: db, ev: *ev, claim: r.claim}).decide(ctx)
	if errors.Is(err, store.ErrLocked) {
		return Outcome{}, fmt.Errorf("the audit db is busy: %w", err)
	}
	return o, err
}

// responder writes exactly one reply, whether the decision or the watchdog
// gets there first.
type responder struct {
	mu          sync.Mutex
	ev          Event // the event, once read
	sent        bool
	claimed     bool // the decision is being recorded: it answers
	code        int
	cancel      context.CancelFunc
	out, errOut io.Writer
}

func (r *responder) setEvent(ev Event) {
	r.mu.Lock()
	r.ev = ev
	r.mu.Unlock()
}

func (r *responder) event() Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ev
}

// claim marks the decision as being recorded, unless the watchdog has
// answered already (then the decision finds its context cancelled).
func (r *responder) claim() {
	r.mu.Lock()
	if !r.sent {
		r.claimed = true
	}
	r.mu.Unlock()
}

// late is the watchdog's deny: sent, and the decision cancelled, unless
// the decision is already being recorded.
func (r *responder) late(h Host, reason string) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sent || r.claimed {
		return r.code, false
	}
	r.cancel()
	return r.sendLocked(h.fail(r.ev, reason))
}

func (r *responder) send(rep Reply) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sendLocked(rep)
}

func (r *responder) sendLocked(rep Reply) (int, bool) {
	if r.sent {
		return r.code, false
	}
	r.sent, r.code = true, rep.Exit
	if len(rep.Stdout) > 0 {
		_, _ = r.out.Write(rep.Stdout)
	}
	if rep.Stderr != "" {
		_, _ = io.WriteString(r.errOut, rep.Stderr+"\n")
	}
	return rep.Exit, true
}
