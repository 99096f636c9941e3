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
	turn        int
	userMessage string
	cache       []gate.Grant         // "always" answers given in this session
	history     []judge.HistoryEntry // this turn's calls, oldest first
	acpCalls    map[string]protocol.ACPToolCallUpdate
	asks        map[string]context.CancelFunc // pending escalations by ask id
	// withdrawals counts withdrawAsks calls, so an ACP request can tell that
	// its escalation ended because the agent cancelled the session's turn.
	withdrawals int
}

// maxACPCalls bounds the remembered ACP tool calls of one session.
const maxACPCalls = 1024

func newSession(info protocol.Session) *session {
	return &session{info: info, acpCalls: map[string]protocol.ACPToolCallUpdate{}, asks: map[string]context.CancelFunc{}}
}

// beginTurn starts dialog turn n: the turn's history and breaker reset.
func (ss *session) beginTurn(n int, userMessage string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.startTurnLocked(n)
	ss.userMessage = userMessage
}

func (ss *session) startTurnLocked(n int) {
	if n != ss.turn {
		ss.turn = n
		ss.history = nil
	}
}

// useTurn returns the turn a request belongs to: the request's own turn when
// it names one (a newer turn starts it), else the session's current turn.
func (ss *session) useTurn(requested int) int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if requested > ss.turn {
		ss.startTurnLocked(requested)
	}
	return ss.turn
}

// withdrawAsks cancels every pending escalation of the session.
func (ss *session) withdrawAsks() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss.withdrawals++
	for _, cancel := range ss.asks {
		cancel()
	}
}

// session returns the live session id, loading it from the store (opened
// earlier, maybe by another peer process) or creating it with defaults.
func (s *Server) session(id string) (*session, error) {
	if id == "" {
		return nil, errors.New("empty session id")
	}
	s.mu.Lock()
	ss := s.sessions[id]
	s.mu.Unlock()
	if ss != nil {
		return ss, nil
	}
	w, err := s.world()
	if err != nil {
		return nil, err
	}
	info, err := w.db.Session(id)
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
	ss = newSession(info)
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
		info := protocol.Session{ID: p.SessionID, ParentID: p.ParentSessionID, Cwd: p.Cwd, Mode: p.Mode, Tier: p.Tier,
			Agent: p.Agent, Created: time.Now().UTC().Format(time.RFC3339Nano)}
		if err := w.db.PutSession(info); err != nil {
			return internalError(fmt.Errorf("persist session %s: %w", p.SessionID, err))
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if ss := s.sessions[p.SessionID]; ss != nil {
			ss.mu.Lock()
			ss.info = info
			ss.mu.Unlock()
		} else {
			s.sessions[p.SessionID] = newSession(info)
		}
		return result{value: protocol.SessionOpenResult{}}
	})
}

// modeOf resolves a session's mode and tier: session/open, else initialize
// settings, else the user policy, else ask/standard.
func (s *Server) modeOf(w *world, ss *session) (protocol.Mode, protocol.Tier) {
	ss.mu.Lock()
	mode, tier := ss.info.Mode, ss.info.Tier
	ss.mu.Unlock()
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
