package peer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/judge"
	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/store"
)

// session is the in-memory state of one agent session. The persistent part
// (parent, cwd, mode, tier, agent) lives in the store; the rest is dropped by
// session/close.
type session struct {
	info protocol.Session

	mu          sync.Mutex
	turn        int // the host's turn number, as audited
	epoch       int // ours: +1 whenever the turn changes, even backwards; keys the judge's per-turn state
	userMessage string
	cache       []gate.Grant         // "always" answers given in this session
	history     []judge.HistoryEntry // this turn's calls, oldest first
	acpCalls    map[string]protocol.ACPToolCallUpdate
	acpBytes    int                           // acpSize of acpCalls (Server.rememberACPLocked)
	asks        map[string]context.CancelFunc // pending escalations by ask id
	// acpReqs cancels the ACP permission requests being decided, by arrival
	// frame: session/cancel answers them "cancelled", and their records say
	// so (SPEC §3.6).
	acpReqs map[uint64]context.CancelFunc
	// withdrawnAt is the frame number of the latest session/cancel or
	// session/close: a request that arrived before it is withdrawn, even if
	// it started deciding after it (it may have waited for a worker).
	withdrawnAt uint64
}

// maxACPCalls bounds the remembered ACP tool calls of one session.
const maxACPCalls = 1024

// MaxSessions bounds the live sessions of one connection (docs/PROTOCOL.md
// §1); session/close frees one.
const MaxSessions = 1024

var errTooManySessions = fmt.Errorf("too many live sessions (%d): close one with session/close", MaxSessions)

func newSession(info protocol.Session) *session {
	return &session{info: info, acpCalls: map[string]protocol.ACPToolCallUpdate{}, asks: map[string]context.CancelFunc{},
		acpReqs: map[uint64]context.CancelFunc{}}
}

// beginTurn starts dialog turn n: the turn's history resets, and a new epoch
// gives the judge a fresh prefix and breaker. A host that restarts its
// counter (n lower than before) still gets a new epoch, never an old one.
func (ss *session) beginTurn(n int, userMessage string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.startTurnLocked(n)
	ss.userMessage = userMessage
}

func (ss *session) startTurnLocked(n int) {
	if n != ss.turn {
		ss.turn = n
		ss.epoch++
		ss.history = nil
	}
}

// snapshot is what a request reads from its session when it starts.
type snapshot struct {
	info        protocol.Session
	turn, epoch int
}

// begin snapshots the session for a request; a request naming a newer turn
// than the session's starts that turn.
func (ss *session) begin(requestedTurn int) snapshot {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if requestedTurn > ss.turn {
		ss.startTurnLocked(requestedTurn)
	}
	return snapshot{info: ss.info, turn: ss.turn, epoch: ss.epoch}
}

// cached returns a copy of the session's "always" cache.
func (ss *session) cached() []gate.Grant {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return append([]gate.Grant(nil), ss.cache...)
}

// pruneRevoked drops cache entries whose pattern is no longer a persistent
// grant and reports whether it dropped any.
func (ss *session) pruneRevoked(grants []gate.Grant) bool {
	live := make(map[string]bool, len(grants))
	for _, g := range grants {
		live[g.Pattern] = true
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	kept := ss.cache[:0]
	for _, g := range ss.cache {
		if live[g.Pattern] {
			kept = append(kept, g)
		}
	}
	dropped := len(kept) != len(ss.cache)
	ss.cache = kept
	return dropped
}

// withdrawAsks cancels every pending escalation of the session and
// withdraws every request that arrived before frame: the ACP ones being
// decided are cancelled outright.
func (ss *session) withdrawAsks(frame uint64) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.withdrawnAt = max(ss.withdrawnAt, frame)
	for _, cancel := range ss.asks {
		cancel()
	}
	for arrival, cancel := range ss.acpReqs {
		if arrival < frame {
			cancel()
		}
	}
}

// trackACP registers the cancel of an ACP request that arrived as frame
// until untrack is called; one already withdrawn is cancelled at once.
func (ss *session) trackACP(frame uint64, cancel context.CancelFunc) (untrack func()) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.withdrawnAt > frame {
		cancel()
		return func() {}
	}
	ss.acpReqs[frame] = cancel
	return func() {
		ss.mu.Lock()
		delete(ss.acpReqs, frame)
		ss.mu.Unlock()
	}
}

// session returns the live session id, loading it from the store (opened
// earlier, maybe by another peer process) or creating it with defaults.
func (s *Server) session(id string) (*session, error) {
	if id == "" {
		return nil, errors.New("empty session id")
	}
	s.mu.Lock()
	ss, full := s.sessions[id], len(s.sessions) >= MaxSessions
	s.mu.Unlock()
	if ss != nil {
		return ss, nil
	}
	if full { // before the store: a refused session writes nothing
		return nil, errTooManySessions
	}
	w, err := s.world()
	if err != nil {
		return nil, err
	}
	info, err := w.db.Session(id)
	// The stored row gives parent, cwd and agent. Its mode and tier are not
	// honoured: another connection (or an earlier run) chose them, and they
	// must not loosen this connection's own settings.
	info.Mode, info.Tier = "", ""
	if errors.Is(err, store.ErrNotFound) {
		info = protocol.Session{ID: id, Created: time.Now().UTC().Format(time.RFC3339Nano)}
		err = w.db.PutSession(info)
	}
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if existing := s.sessions[id]; existing != nil {
		return existing, nil
	}
	if len(s.sessions) >= MaxSessions {
		return nil, errTooManySessions
	}
	ss = newSession(info)
	// a session/cancel or session/close that came before the session was
	// loaded still withdraws the requests that arrived before it
	ss.withdrawnAt = s.withdrawals[id]
	s.sessions[id] = ss
	return ss, nil
}

func (s *Server) sessionOpen(method string, raw *json.RawMessage) result {
	return withWorld(s, method, raw, func(w *world, p protocol.SessionOpenParams) result {
		if p.SessionID == "" {
			return result{err: missing("/sessionId")}
		}
		if p.ParentSessionID == p.SessionID {
			return failure(protocol.CodeInvalidParams, "invalid params: /parentSessionId: a session cannot be its own parent")
		}
		if err := s.openSession(w, p); errors.Is(err, errTooManySessions) {
			return failure(protocol.CodeInvalidRequest, err.Error())
		} else if err != nil {
			return internalError(err)
		}
		return result{value: protocol.SessionOpenResult{}}
	})
}

// openSession persists a session's settings and makes it live. The caller
// has checked p (an id, not its own parent).
func (s *Server) openSession(w *world, p protocol.SessionOpenParams) error {
	info := protocol.Session{ID: p.SessionID, ParentID: p.ParentSessionID, Cwd: p.Cwd, Mode: p.Mode, Tier: p.Tier,
		Agent: p.Agent, Created: time.Now().UTC().Format(time.RFC3339Nano)}
	if info.Agent == "" {
		info.Agent = s.agentName()
	}
	if info.Cwd == "" && p.ParentSessionID != "" {
		// a subagent works where its parent does unless it says otherwise
		s.mu.Lock()
		parent := s.sessions[p.ParentSessionID]
		s.mu.Unlock()
		if parent != nil {
			parent.mu.Lock()
			info.Cwd = parent.info.Cwd
			parent.mu.Unlock()
		} else if stored, err := w.db.Session(p.ParentSessionID); err == nil {
			info.Cwd = stored.Cwd
		}
	}
	s.mu.Lock()
	full := s.sessions[p.SessionID] == nil && len(s.sessions) >= MaxSessions
	s.mu.Unlock()
	if full { // before the store: a refused session writes nothing
		return errTooManySessions
	}
	if err := w.db.PutSession(info); err != nil {
		return fmt.Errorf("persist session %s: %w", p.SessionID, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss := s.sessions[p.SessionID]; ss != nil {
		ss.mu.Lock()
		ss.info = info
		ss.mu.Unlock()
	} else {
		if len(s.sessions) >= MaxSessions {
			return errTooManySessions
		}
		ss := newSession(info)
		// a session/close before this reopening still withdraws the
		// requests that arrived before it (see Server.session)
		ss.withdrawnAt = s.withdrawals[p.SessionID]
		s.sessions[p.SessionID] = ss
	}
	return nil
}

// modeOf resolves a session's mode and tier: session/open on this
// connection, else initialize settings, else the user policy, else
// ask/standard.
func (s *Server) modeOf(w *world, info protocol.Session) (protocol.Mode, protocol.Tier) {
	mode, tier := info.Mode, info.Tier
	dm, dt := s.defaultSettings()
	if mode == "" {
		mode = dm
	}
	if tier == "" {
		tier = dt
	}
	if mode == "" {
		mode = w.policy.Mode()
	}
	if tier == "" {
		tier = w.policy.Tier()
	}
	return mode, tier
}
