package judge

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/redact"
)

// Config configures the model client.
type Config struct {
	Provider  string        // "openai" ("" too) or "anthropic"
	Endpoint  string        // API base URL; requests go to Endpoint + the provider's path
	Model     string        // model name sent as "model"
	APIKey    string        // sent as "Authorization: Bearer KEY" when not empty
	Timeout   time.Duration // whole model call, retry included; 0 → DefaultTimeout
	MaxTokens int           // 0 → DefaultMaxTokens
	// Environment is the user's trusted environment (user policy only),
	// rendered at the head of every turn's prefix.
	Environment *protocol.JudgeEnvironment
}

// Outcome is what the peer does with a verdict.
type Outcome string

// Outcomes.
const (
	Allow    Outcome = "allow"
	Reject   Outcome = "reject"
	Escalate Outcome = "escalate"
)

// TurnKey identifies one dialog turn: the prompt prefix is built once per
// key (and basis, see Judge.Prefix).
type TurnKey struct {
	Project string
	Session string
	Turn    int
}

// SessionContext is the <session_context> section.
type SessionContext struct {
	Agent       string
	Cwd         string // relative to the project
	UserMessage string // the turn's user message; clipped to MaxUserMessageRunes
}

// HistoryEntry is one earlier call of the turn with its outcome.
type HistoryEntry struct {
	Action  string
	Outcome string // once | always | reject
	Note    string // the user's own note only; shown as (user note: "...")
}

// Call is the <tool_call> section.
type Call struct {
	Tool   string
	Kind   string
	Title  string
	Action string
	Input  string // raw input, already redacted (redacted again anyway)
	Paths  []string
}

// Decision is a judge result with the details the audit records.
type Decision struct {
	Outcome Outcome
	Details protocol.JudgeDetails
	// Usage is the tokens the model call used (zero when none was made).
	Usage Usage
	// Err is why the call escalated without a verdict (Details.Error is its
	// text); Diagnose explains it.
	Err error
	// Denied: the model answered "deny" (below critical, so the outcome is
	// Escalate). It is sure, not in doubt, and no tier may approve it.
	Denied bool
}

// BreakerLimit is the number of judge rejections in one turn after which
// DecideTurn stops asking the model and escalates the rest of the turn to
// the human.
const BreakerLimit = 3

// Cache bounds: the newest keepTurns turns of each of the maxSessions most
// recently used sessions keep their prefix and rejection count.
const (
	keepTurns   = 2
	maxSessions = 256
)

// Judge decides calls with a model, caching the prompt prefix per turn. It
// is safe for concurrent use. A nil *Judge is valid and escalates every call.
type Judge struct {
	cfg      Config
	provider provider
	env      string // the rendered <trusted_environment>, "" when none
	url      string
	cfgErr   error
	client   *http.Client

	mu       sync.Mutex
	clock    uint64
	sessions map[sessionKey]*sessionTurns
}

type sessionKey struct{ project, session string }

type sessionTurns struct {
	used  uint64
	turns map[int]*turnEntry
}

type turnEntry struct {
	mu         sync.Mutex // held while the prefix is built
	built      bool
	basis      string // what prefix was built from (see Prefix)
	prefix     string
	rejections int // guarded by Judge.mu
}

// New returns a judge for cfg, filling in the default timeout and token
// limit. A config whose endpoint is not an http(s) URL or whose model is
// empty yields a judge that escalates every call with that error.
func New(cfg Config) *Judge {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	p, perr := providerFor(cfg.Provider)
	if perr != nil {
		p = openAI{}
	}
	j := &Judge{
		cfg:      cfg,
		provider: p,
		env:      RenderEnvironment(cfg.Environment),
		url:      strings.TrimRight(cfg.Endpoint, "/") + p.path(),
		client: &http.Client{
			Transport: http.DefaultTransport.(*http.Transport).Clone(),
			// A redirect is answered as an HTTP error: a POST turned into a
			// GET, or a key sent to another host, is never what was configured.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		sessions: make(map[sessionKey]*sessionTurns),
	}
	if perr != nil {
		j.cfgErr = perr
	} else if err := checkEndpoint(cfg.Endpoint); err != nil {
		j.cfgErr = err
	} else if strings.TrimSpace(cfg.Model) == "" {
		j.cfgErr = fmt.Errorf("judge: model is empty")
	}
	return j
}

// Model is the configured model name.
func (j *Judge) Model() string {
	if j == nil {
		return ""
	}
	return j.cfg.Model
}

// Prefix returns the turn's prompt prefix (<session_context> and
// <user_rules>). build runs the first time key is seen — concurrent callers
// of the same turn wait for that one build — so every call of the turn gets
// byte-identical bytes, unless basis changes. basis names the inputs of
// the rules that must not go stale within a turn (the peer passes the
// project's grants): a call with a different basis than the build's
// rebuilds the prefix, so a grant revoked mid-turn is not still shown to
// the model as a "Persistent grant". Only the newest two turns of a
// session and the 256 most recently used sessions are kept.
func (j *Judge) Prefix(key TurnKey, basis string, build func() (SessionContext, []protocol.UserRule)) string {
	e := j.entry(key)
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.built || e.basis != basis {
		sc, rules := build()
		e.prefix, e.basis, e.built = j.buildPrefix(sc, rules), basis, true
	}
	return e.prefix
}

// entry finds or creates the cache entry of key, evicting old turns and
// least recently used sessions. A turn older than the kept ones gets a fresh
// entry that is not stored.
func (j *Judge) entry(key TurnKey) *turnEntry {
	if j == nil {
		return &turnEntry{}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.clock++
	sk := sessionKey{key.Project, key.Session}
	st := j.sessions[sk]
	if st == nil {
		st = &sessionTurns{used: j.clock, turns: make(map[int]*turnEntry)}
		j.sessions[sk] = st
		j.evictSessions()
	}
	st.used = j.clock
	if e := st.turns[key.Turn]; e != nil {
		return e
	}
	newest := key.Turn
	for t := range st.turns {
		newest = max(newest, t)
	}
	if key.Turn <= newest-keepTurns {
		return &turnEntry{}
	}
	e := &turnEntry{}
	st.turns[key.Turn] = e
	for t := range st.turns {
		if t <= newest-keepTurns {
			delete(st.turns, t)
		}
	}
	return e
}

// evictSessions drops the least recently used sessions over maxSessions.
// Called with j.mu held.
func (j *Judge) evictSessions() {
	for len(j.sessions) > maxSessions {
		var oldest sessionKey
		var used uint64
		first := true
		for k, st := range j.sessions {
			if first || st.used < used {
				oldest, used, first = k, st.used, false
			}
		}
		delete(j.sessions, oldest)
	}
}

// Forget drops the cached turns of a session (on session/close).
func (j *Judge) Forget(project, session string) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	delete(j.sessions, sessionKey{project, session})
}

// Rejections is the number of Reject outcomes DecideTurn has returned for
// key's turn.
func (j *Judge) Rejections(key TurnKey) int {
	e := j.entry(key)
	if j == nil {
		return 0
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return e.rejections
}

// Tripped reports whether key's turn has reached BreakerLimit rejections:
// the rest of the turn goes to the human.
func (j *Judge) Tripped(key TurnKey) bool { return j.Rejections(key) >= BreakerLimit }

// DecideTurn is Decide with the per-turn circuit breaker: once BreakerLimit
// judge rejections happened in key's turn, it escalates without asking the
// model (Details.Error says why); every Reject it returns is counted.
func (j *Judge) DecideTurn(ctx context.Context, key TurnKey, prefix string, history []HistoryEntry, call Call) Decision {
	if j.Tripped(key) {
		d := escalation(j, prefix)
		d.Details.Error = fmt.Sprintf("judge: circuit breaker open: %d judge rejections in this turn", BreakerLimit)
		return d
	}
	d := j.Decide(ctx, prefix, history, call)
	if d.Outcome == Reject && j != nil {
		e := j.entry(key)
		j.mu.Lock()
		e.rejections++
		j.mu.Unlock()
	}
	return d
}

// escalation is the fail-closed decision every error path starts from.
func escalation(j *Judge, prefix string) Decision {
	return Decision{Outcome: Escalate, Details: protocol.JudgeDetails{
		Model:            j.Model(),
		Verdict:          string(Escalate),
		PromptPrefixHash: PrefixHash(prefix),
	}}
}

// Decide asks the model about call. It never returns Allow on any error: an
// unconfigured judge, a transport or HTTP error, a timeout, a cancelled ctx
// or a reply ParseVerdict refuses all escalate with Details.Error set.
// Details.LatencyMs is the model's time only (both attempts on a retry).
func (j *Judge) Decide(ctx context.Context, prefix string, history []HistoryEntry, call Call) Decision {
	d := escalation(j, prefix)
	if j == nil {
		d.Details.Error = "judge: not configured"
		return d
	}
	if j.cfgErr != nil {
		d.Details.Error, d.Err = j.cfgErr.Error(), j.cfgErr
		return d
	}
	system, user := BuildPrompt(prefix, history, call)
	head, rest := splitPrefix(prefix, user)
	start := time.Now()
	ans, err := j.complete(ctx, exchange{system: system, prefix: head, rest: rest})
	d.Details.LatencyMs = time.Since(start).Milliseconds()
	d.Usage = ans.usage
	if err != nil {
		d.Details.Error, d.Err = err.Error(), err
		return d
	}
	v, err := parseModelVerdict(ans.content)
	if err != nil {
		d.Err = &verdictError{err}
		d.Details.Error = fmt.Sprintf("%v; reply %s", err, snippet(redact.String(ans.content)))
		return d
	}
	d.Outcome = v.outcome
	d.Denied = v.decision == "deny"
	d.Details.Verdict = string(v.outcome)
	d.Details.Risk = v.risk
	d.Details.Reason = redact.String(v.reason)
	return d
}
