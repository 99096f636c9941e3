package acpproxy

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/perm-peer/perm-peer/protocol"
)

// Bounds of what the proxy remembers (see the package doc).
const (
	maxSetups        = 64
	maxSessions      = 256
	maxApprovals     = 32
	maxApprovalBytes = 64 << 10
	maxPromptBytes   = 16 << 10
)

// The ACP params the proxy reads. Everything else passes untouched.
type (
	sessionSetupParams struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
	}
	sessionSetupResult struct {
		SessionID string `json:"sessionId"`
	}
	initializeResult struct {
		AgentInfo struct {
			Name string `json:"name"`
		} `json:"agentInfo"`
	}
	promptParams struct {
		SessionID string `json:"sessionId"`
		Prompt    []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"prompt"`
	}
	sessionParams struct {
		SessionID string `json:"sessionId"`
	}
	cancelRequestParams struct {
		RequestID json.RawMessage `json:"requestId"`
	}
)

// setup is an editor request whose answer from the agent teaches something:
// initialize (the agent's name) or a session setup (the session's id).
type setup struct {
	method string
	cwd    string
}

// approval is a tool call a human approved in the editor this turn: the
// editor-side effects it leads to count as approved by that human.
type approval struct {
	turn int
	call protocol.ToolCall
}

// memory is what the proxy has learned. All of it is bounded.
type memory struct {
	mu        sync.Mutex
	setups    map[string]setup // by the editor's request id
	setupIDs  []string         // oldest first
	turns     map[string]int   // the last turn of each session
	sessions  []string         // oldest first
	approvals map[string][]approval
	agentName string
}

func newMemory() *memory {
	return &memory{setups: map[string]setup{}, turns: map[string]int{}, approvals: map[string][]approval{}}
}

// noteSetup remembers an editor request until the agent answers it.
func (m *memory) noteSetup(id string, s setup) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.setups[id]; !ok {
		m.setupIDs = append(m.setupIDs, id)
	}
	m.setups[id] = s
	for len(m.setupIDs) > maxSetups {
		delete(m.setups, m.setupIDs[0])
		m.setupIDs = m.setupIDs[1:]
	}
}

// takeSetup returns and forgets the setup request the agent answered.
func (m *memory) takeSetup(id string) (setup, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.setups[id]
	if ok {
		delete(m.setups, id)
		m.setupIDs = slices.DeleteFunc(m.setupIDs, func(x string) bool { return x == id })
	}
	return s, ok
}

// nextTurn starts the session's next turn and returns its number; the
// session's approvals end with the old turn.
func (m *memory) nextTurn(session string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.turns[session]; !ok {
		m.sessions = append(m.sessions, session)
		for len(m.sessions) > maxSessions {
			delete(m.turns, m.sessions[0])
			delete(m.approvals, m.sessions[0])
			m.sessions = m.sessions[1:]
		}
	}
	m.turns[session]++
	delete(m.approvals, session)
	return m.turns[session]
}

func (m *memory) turn(session string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.turns[session]
}

// approve remembers a human's approval of call in the session's current
// turn. A call too large to keep is not remembered: its effects are then
// decided on their own.
func (m *memory) approve(session string, call protocol.ToolCall) {
	if len(call.RawInput)+len(call.Title) > maxApprovalBytes {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	list := append(m.approvals[session], approval{turn: m.turns[session], call: call})
	if len(list) > maxApprovals {
		list = list[len(list)-maxApprovals:]
	}
	m.approvals[session] = list
}

// approved returns the calls a human approved in the session this turn.
func (m *memory) approved(session string) []protocol.ToolCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []protocol.ToolCall
	for _, a := range m.approvals[session] {
		if a.turn == m.turns[session] {
			out = append(out, a.call)
		}
	}
	return out
}

func (m *memory) setAgentName(name string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.agentName = name
}

func (m *memory) agent() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.agentName
}

// promptText is the user's text in a prompt, cut at maxPromptBytes.
func promptText(p promptParams) string {
	var b strings.Builder
	for _, c := range p.Prompt {
		if c.Type != "text" || c.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(c.Text)
		if b.Len() >= maxPromptBytes {
			break
		}
	}
	s := b.String()
	if len(s) > maxPromptBytes {
		s = strings.ToValidUTF8(s[:maxPromptBytes], "")
	}
	return s
}

// withDiffLocations adds the paths of a tool call's diff content to its
// locations: Gemini sends an edit as title, kind, locations and a diff, with
// no rawInput, and the file a diff changes is a file the call writes.
func withDiffLocations(u protocol.ACPToolCallUpdate) protocol.ACPToolCallUpdate {
	if len(u.Content) == 0 {
		return u
	}
	var content []struct {
		Type string `json:"type"`
		Path string `json:"path"`
	}
	if json.Unmarshal(u.Content, &content) != nil {
		return u
	}
	for _, c := range content {
		if c.Type != "diff" || c.Path == "" {
			continue
		}
		if !slices.ContainsFunc(u.Locations, func(l protocol.Location) bool { return l.Path == c.Path }) {
			u.Locations = append(slices.Clone(u.Locations), protocol.Location{Path: c.Path})
		}
	}
	return u
}

// ACP methods the proxy learns from.
const (
	methodInitialize    = "initialize"
	methodSessionNew    = "session/new"
	methodSessionFork   = "session/fork"
	methodSessionLoad   = "session/load"
	methodSessionResume = "session/resume"
	methodSessionPrompt = "session/prompt"
)

// learnRequest learns from an editor request and reports whether it goes
// on to the agent: a session in a project perm-peer cannot open is refused
// here, so the agent never runs a session unguarded.
func (p *Proxy) learnRequest(env envelope) bool {
	switch env.method {
	case methodInitialize:
		p.mem.noteSetup(idKey(env.id), setup{method: env.method})
	case methodSessionNew, methodSessionFork, methodSessionLoad, methodSessionResume:
		var sp sessionSetupParams
		_ = json.Unmarshal(env.params, &sp)
		if err := p.chooseProject(sp.Cwd); err != nil {
			slog.Error("acp: cannot guard the session's project", "cwd", sp.Cwd, "err", err)
			_ = p.toEditor.send(failure(env.id, -32603, "perm-peer cannot guard project "+sp.Cwd+": "+err.Error(), nil))
			return false
		}
		if sp.SessionID != "" && (env.method == methodSessionLoad || env.method == methodSessionResume) {
			p.openSession(sp.SessionID, sp.Cwd)
			return true
		}
		p.mem.noteSetup(idKey(env.id), setup{method: env.method, cwd: sp.Cwd})
	case methodSessionPrompt:
		var pp promptParams
		if json.Unmarshal(env.params, &pp) != nil || pp.SessionID == "" {
			return true
		}
		turn := p.mem.nextTurn(pp.SessionID)
		if err := p.srv.Load().BeginTurn(pp.SessionID, turn, promptText(pp)); err != nil {
			slog.Warn("acp: begin turn", "session", pp.SessionID, "err", err)
		}
	}
	return true
}

// learnAnswer learns from the agent's answer to an editor request.
func (p *Proxy) learnAnswer(env envelope) {
	s, ok := p.mem.takeSetup(idKey(env.id))
	if !ok || env.result == nil {
		return
	}
	if s.method == methodInitialize {
		var r initializeResult
		if json.Unmarshal(env.result, &r) == nil && r.AgentInfo.Name != "" {
			p.mem.setAgentName(r.AgentInfo.Name)
		}
		return
	}
	var r sessionSetupResult
	if json.Unmarshal(env.result, &r) == nil && r.SessionID != "" {
		p.openSession(r.SessionID, s.cwd)
	}
}

// openSession tells the pipeline the session's cwd and agent.
func (p *Proxy) openSession(id, cwd string) {
	if err := p.srv.Load().OpenSession(protocol.SessionOpenParams{SessionID: id, Cwd: cwd, Agent: p.mem.agent()}); err != nil {
		slog.Warn("acp: open session", "session", id, "err", err)
	}
}

// noteUpdate remembers a tool call the agent announced.
func (p *Proxy) noteUpdate(raw json.RawMessage) {
	if !bytes.Contains(raw, []byte(`"tool_call`)) {
		// not a tool call (an escaped spelling is not remembered: the
		// call is then decided on the request's own fields)
		return
	}
	var u protocol.ACPSessionUpdateParams
	if json.Unmarshal(raw, &u) != nil || u.SessionID == "" || len(u.Update) == 0 {
		return
	}
	if len(u.Update) > maxUpdateBytes || bytes.Contains(u.Update, []byte(`"diff"`)) {
		// the rare update to rewrite: decode it (the pipeline ignores
		// what is not a tool call)
		var tc protocol.ACPToolCallUpdate
		if json.Unmarshal(u.Update, &tc) != nil {
			return
		}
		tc = withDiffLocations(tc)
		if len(u.Update) > maxUpdateBytes {
			tc = forgetBulk(tc)
		}
		b, err := json.Marshal(tc)
		if err != nil {
			return
		}
		u.Update = b
	}
	p.srv.Load().NoteACPUpdate(u)
}

// maxUpdateBytes bounds what is remembered of one tool call update.
const maxUpdateBytes = 256 << 10

// tooLargeInput stands for a tool input too large to remember. It repeats
// a key in another letter case, which the gate reads as ambiguous input
// that only a human may approve: a later request naming the call by its id
// alone is never decided on an older, smaller version of it.
var tooLargeInput = json.RawMessage(`{"perm-peer":"this tool call's input was too large to remember","PERM-PEER":""}`)

// forgetBulk keeps the small fields of a tool call update and replaces its
// input with tooLargeInput.
func forgetBulk(u protocol.ACPToolCallUpdate) protocol.ACPToolCallUpdate {
	u.RawInput, u.Content, u.RawOutput = tooLargeInput, nil, nil
	if len(u.Title) > 1024 {
		u.Title = strings.ToValidUTF8(u.Title[:1024], "")
	}
	if len(u.Locations) > 64 {
		u.Locations = u.Locations[:64]
	}
	if len(u.Meta) > 4096 {
		u.Meta = nil
	}
	return u
}
