package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

// seenRequest is one request the fake model received.
type seenRequest struct {
	path, auth string
	body       map[string]any
}

// model is a real HTTP server playing an OpenAI-compatible model: handle
// answers request n (0-based).
type model struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []seenRequest
}

func newModel(t *testing.T, handle func(n int, w http.ResponseWriter, r *http.Request)) *model {
	t.Helper()
	m := &model{}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(data, &body)
		m.mu.Lock()
		n := len(m.reqs)
		m.reqs = append(m.reqs, seenRequest{path: r.URL.Path, auth: r.Header.Get("Authorization"), body: body})
		m.mu.Unlock()
		handle(n, w, r)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *model) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.reqs)
}

func (m *model) request(i int) seenRequest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reqs[i]
}

// reply answers with content as choices[0].message.content.
func reply(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
	})
}

func scripted(contents ...string) func(int, http.ResponseWriter, *http.Request) {
	return func(n int, w http.ResponseWriter, _ *http.Request) { reply(w, contents[min(n, len(contents)-1)]) }
}

// drop closes the connection without an answer: a transport error.
func drop(w http.ResponseWriter) {
	conn, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}

var testCall = Call{Tool: "bash", Kind: "execute", Action: "bash: go test ./...", Input: `{"command":"go test ./..."}`}

func verdictJSON(decision, risk string) string {
	return `{"decision":"` + decision + `","risk_level":"` + risk + `","reason":"r ` + decision + `"}`
}

// Each row of the verdict table, through a real HTTP round trip.
func TestDecideVerdictTable(t *testing.T) {
	tests := []struct {
		decision, risk string
		want           Outcome
	}{
		{"allow", "low", Allow}, {"allow", "medium", Allow}, {"allow", "high", Allow}, {"allow", "critical", Escalate},
		{"deny", "low", Escalate}, {"deny", "medium", Escalate}, {"deny", "high", Escalate}, {"deny", "critical", Reject},
		{"escalate", "low", Escalate}, {"escalate", "medium", Escalate}, {"escalate", "high", Escalate}, {"escalate", "critical", Escalate},
	}
	for _, tc := range tests {
		t.Run(tc.decision+"+"+tc.risk, func(t *testing.T) {
			m := newModel(t, scripted(verdictJSON(tc.decision, tc.risk)))
			j := New(Config{Endpoint: m.srv.URL, Model: "qwen2.5-coder:7b"})
			d := j.Decide(context.Background(), "abc", nil, testCall)
			assert.Equal(t, tc.want, d.Outcome)
			assert.Equal(t, protocol.JudgeDetails{
				Model:   "qwen2.5-coder:7b",
				Verdict: string(tc.want),
				Risk:    protocol.Risk(tc.risk),
				Reason:  "r " + tc.decision,
				// sha256("abc"), the FIPS 180-2 test vector.
				PromptPrefixHash: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
				LatencyMs:        d.Details.LatencyMs,
			}, d.Details)
			assert.GreaterOrEqual(t, d.Details.LatencyMs, int64(0))
			assert.Equal(t, 1, m.count())
		})
	}
}

func TestDecideMalformedRepliesEscalate(t *testing.T) {
	tests := []struct{ name, content, errPart string }{
		{"prose", "Allow. This is routine.", "not a JSON object"},
		{"prose around", `OK: {"decision":"allow","risk_level":"low","reason":"x"} done`, "not a JSON object"},
		{"extra field", `{"decision":"allow","risk_level":"low","reason":"x","note":"y"}`, `unexpected key "note"`},
		{"typo risk", `{"decision":"allow","risk_level":"loww","reason":"x"}`, `unknown risk_level "loww"`},
		{"unknown decision", `{"decision":"approve","risk_level":"low","reason":"x"}`, `unknown decision "approve"`},
		{"two objects", `{"decision":"allow","risk_level":"low","reason":"x"} {"decision":"allow","risk_level":"low","reason":"x"}`, "trailing data"},
		{"empty", "", "empty reply"},
		{"allow substring", `"allow"`, "not a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(t, scripted(tc.content))
			d := New(Config{Endpoint: m.srv.URL, Model: "m"}).Decide(context.Background(), "p", nil, testCall)
			assert.Equal(t, Escalate, d.Outcome)
			assert.Equal(t, "escalate", d.Details.Verdict)
			assert.Equal(t, protocol.Risk(""), d.Details.Risk)
			assert.Contains(t, d.Details.Error, tc.errPart)
			assert.Contains(t, d.Details.Error, "; reply ")
			assert.Equal(t, 1, m.count(), "a bad reply is not retried")
		})
	}
}

func TestDecideHTTPFailuresEscalate(t *testing.T) {
	tests := []struct {
		name    string
		handle  func(int, http.ResponseWriter, *http.Request)
		errPart string
	}{
		{"500", func(_ int, w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}, "model HTTP 500"},
		{"401", func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, "no key", http.StatusUnauthorized) }, "model HTTP 401"},
		{"429 with verdict body", func(_ int, w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = io.WriteString(w, `{"choices":[{"message":{"content":"{\"decision\":\"allow\",\"risk_level\":\"low\",\"reason\":\"x\"}"}}]}`)
		}, "model HTTP 429"},
		{"redirect", func(_ int, w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
		}, "model HTTP 307"},
		{"not json", func(_ int, w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "<html>hi</html>") }, "decode response"},
		{"no choices", func(_ int, w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, `{"choices":[]}`) }, "no choices[0].message.content"},
		{"null content", func(_ int, w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"choices":[{"message":{"content":null}}]}`)
		}, "no choices[0].message.content"},
		{"huge body", func(_ int, w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, `{"choices":[{"message":{"content":"`+strings.Repeat("a", maxResponseBytes)+`"}}]}`)
		}, "over 1048576 bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(t, tc.handle)
			d := New(Config{Endpoint: m.srv.URL, Model: "m"}).Decide(context.Background(), "p", nil, testCall)
			assert.Equal(t, Escalate, d.Outcome)
			assert.Contains(t, d.Details.Error, tc.errPart)
			assert.Equal(t, 1, m.count(), "an HTTP answer is not retried")
		})
	}
}

func TestDecideTimeoutEscalates(t *testing.T) {
	release := make(chan struct{})
	m := newModel(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		select { // a model slower than the timeout
		case <-r.Context().Done():
		case <-release:
		}
		reply(w, verdictJSON("allow", "low"))
	})
	t.Cleanup(func() { close(release) }) // runs before the server closes
	j := New(Config{Endpoint: m.srv.URL, Model: "m", Timeout: 300 * time.Millisecond})
	start := time.Now()
	d := j.Decide(context.Background(), "p", nil, testCall)
	elapsed := time.Since(start)
	assert.Equal(t, Escalate, d.Outcome)
	assert.Contains(t, d.Details.Error, "context deadline exceeded")
	assert.Less(t, elapsed, 5*time.Second)
	assert.GreaterOrEqual(t, d.Details.LatencyMs, int64(300))
	assert.Equal(t, 1, m.count(), "a timeout is not retried")
}

func TestDecideCancelledContextEscalates(t *testing.T) {
	m := newModel(t, scripted(verdictJSON("allow", "low")))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := New(Config{Endpoint: m.srv.URL, Model: "m"}).Decide(ctx, "p", nil, testCall)
	assert.Equal(t, Escalate, d.Outcome)
	assert.Contains(t, d.Details.Error, "context canceled")
	assert.Equal(t, 0, m.count())
}

func TestDecideRetriesOneTransportError(t *testing.T) {
	t.Run("drop then success", func(t *testing.T) {
		m := newModel(t, func(n int, w http.ResponseWriter, _ *http.Request) {
			if n == 0 {
				drop(w)
				return
			}
			reply(w, verdictJSON("allow", "low"))
		})
		d := New(Config{Endpoint: m.srv.URL, Model: "m"}).Decide(context.Background(), "p", nil, testCall)
		assert.Equal(t, Allow, d.Outcome)
		assert.Equal(t, "", d.Details.Error)
		assert.Equal(t, 2, m.count())
	})
	t.Run("drop twice", func(t *testing.T) {
		m := newModel(t, func(_ int, w http.ResponseWriter, _ *http.Request) { drop(w) })
		d := New(Config{Endpoint: m.srv.URL, Model: "m"}).Decide(context.Background(), "p", nil, testCall)
		assert.Equal(t, Escalate, d.Outcome)
		assert.Contains(t, d.Details.Error, "judge: POST "+m.srv.URL+"/chat/completions")
		assert.Equal(t, 2, m.count(), "exactly one retry")
	})
	t.Run("connection refused", func(t *testing.T) {
		m := newModel(t, scripted(verdictJSON("allow", "low")))
		url := m.srv.URL
		m.srv.Close()
		d := New(Config{Endpoint: url, Model: "m"}).Decide(context.Background(), "p", nil, testCall)
		assert.Equal(t, Escalate, d.Outcome)
		assert.Contains(t, d.Details.Error, "connect: connection refused")
	})
}

func TestDecideRequestShape(t *testing.T) {
	tests := []struct {
		name, endpoint, key, wantPath, wantAuth string
		maxTokens                               int
		wantMax                                 float64
	}{
		{"no key, defaults", "", "", "/v1/chat/completions", "", 0, 200},
		{"key and max tokens, trailing slash", "/", "sk-test", "/v1/chat/completions", "Bearer sk-test", 64, 64},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(t, scripted(verdictJSON("allow", "low")))
			j := New(Config{Endpoint: m.srv.URL + "/v1" + tc.endpoint, Model: "llama3", APIKey: tc.key, MaxTokens: tc.maxTokens})
			prefix := BuildPrefix(SessionContext{Agent: "zed"}, nil)
			history := []HistoryEntry{{Action: "bash: ls", Outcome: "once"}}
			j.Decide(context.Background(), prefix, history, testCall)
			require.Equal(t, 1, m.count())
			req := m.request(0)
			assert.Equal(t, tc.wantPath, req.path)
			assert.Equal(t, tc.wantAuth, req.auth)
			_, user := BuildPrompt(prefix, history, testCall)
			assert.Equal(t, map[string]any{
				"model": "llama3",
				"messages": []any{
					map[string]any{"role": "system", "content": SystemPrompt},
					map[string]any{"role": "user", "content": user},
				},
				"temperature": float64(0),
				"max_tokens":  tc.wantMax,
				"stream":      false,
			}, req.body)
		})
	}
}

func TestDecideNotConfiguredEscalates(t *testing.T) {
	m := newModel(t, scripted(verdictJSON("allow", "low")))
	tests := []struct {
		name    string
		j       *Judge
		errPart string
	}{
		{"nil judge", nil, "judge: not configured"},
		{"no endpoint", New(Config{Model: "m"}), "is not an http(s) URL"},
		{"bad scheme", New(Config{Endpoint: "ftp://x", Model: "m"}), `endpoint "ftp://x" is not an http(s) URL`},
		{"no model", New(Config{Endpoint: m.srv.URL}), "judge: model is empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.j.Decide(context.Background(), "abc", nil, testCall)
			assert.Equal(t, Escalate, d.Outcome)
			assert.Contains(t, d.Details.Error, tc.errPart)
			assert.Equal(t, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", d.Details.PromptPrefixHash)
		})
	}
	assert.Equal(t, 0, m.count())
}

// The prefix is built once per turn and reaches the model byte for byte in
// every call of the turn; the audit gets its hash.
func TestPrefixByteIdenticalAcrossTurnCalls(t *testing.T) {
	m := newModel(t, scripted(verdictJSON("allow", "low")))
	j := New(Config{Endpoint: m.srv.URL, Model: "m"})
	key := TurnKey{Project: "/repo", Session: "s1", Turn: 1}
	builds := 0
	build := func() (SessionContext, []protocol.UserRule) {
		builds++
		// A build that read the clock would differ on a second run.
		return SessionContext{Agent: "zed", UserMessage: fmt.Sprintf("build #%d", builds)},
			[]protocol.UserRule{{Kind: KindAlways, Action: "bash: go test ./..."}}
	}
	p1 := j.Prefix(key, "", build)
	d1 := j.Decide(context.Background(), p1, nil, testCall)
	p2 := j.Prefix(key, "", build)
	d2 := j.Decide(context.Background(), p2, []HistoryEntry{{Action: testCall.Action, Outcome: "once"}},
		Call{Tool: "bash", Kind: "execute", Action: "bash: go vet ./...", Input: `{"command":"go vet ./..."}`})
	assert.Equal(t, 1, builds)
	assert.Equal(t, p1, p2)
	assert.Contains(t, p1, `user_message: "build #1"`)
	require.Equal(t, 2, m.count())
	u1 := m.request(0).body["messages"].([]any)[1].(map[string]any)["content"].(string)
	u2 := m.request(1).body["messages"].([]any)[1].(map[string]any)["content"].(string)
	assert.True(t, strings.HasPrefix(u1, p1))
	assert.True(t, strings.HasPrefix(u2, p1))
	assert.NotEqual(t, u1, u2)
	assert.Equal(t, PrefixHash(p1), d1.Details.PromptPrefixHash)
	assert.Equal(t, d1.Details.PromptPrefixHash, d2.Details.PromptPrefixHash)
	assert.Len(t, d1.Details.PromptPrefixHash, 64)

	// The next turn builds afresh.
	p3 := j.Prefix(TurnKey{Project: "/repo", Session: "s1", Turn: 2}, "", build)
	assert.Equal(t, 2, builds)
	assert.Contains(t, p3, `user_message: "build #2"`)
}

// A different basis within a turn rebuilds the prefix (a grant revoked
// mid-turn); the same basis again does not, and the breaker count stays.
func TestPrefixRebuiltWhenBasisChanges(t *testing.T) {
	j := New(Config{})
	key := TurnKey{Project: "/p", Session: "s", Turn: 1}
	rules := []protocol.UserRule{{Kind: KindGrant, Action: "Bash(make lint)"}}
	builds := 0
	build := func() (SessionContext, []protocol.UserRule) {
		builds++
		return SessionContext{Agent: "a"}, rules
	}
	p1 := j.Prefix(key, "grants 1", build)
	require.Contains(t, p1, "Persistent grant: Bash(make lint)")
	e := j.entry(key)
	j.mu.Lock()
	e.rejections++ // as DecideTurn counts a Reject
	j.mu.Unlock()
	rules = nil // the grant is revoked
	p2 := j.Prefix(key, "grants none", build)
	assert.Equal(t, 2, builds)
	assert.NotContains(t, p2, "Persistent grant")
	assert.Equal(t, p2, j.Prefix(key, "grants none", build))
	assert.Equal(t, 2, builds)
	assert.Equal(t, 1, j.Rejections(key), "a rebuild keeps the turn's breaker count")
}

func TestPrefixConcurrentBuildOnce(t *testing.T) {
	j := New(Config{})
	var builds atomic.Int32
	key := TurnKey{Project: "/p", Session: "s", Turn: 7}
	var wg sync.WaitGroup
	got := make([]string, 32)
	for i := range got {
		wg.Go(func() {
			got[i] = j.Prefix(key, "", func() (SessionContext, []protocol.UserRule) {
				builds.Add(1)
				return SessionContext{Agent: "a"}, nil
			})
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), builds.Load())
	for _, p := range got {
		assert.Equal(t, got[0], p)
	}
}

func TestPrefixEviction(t *testing.T) {
	counting := func(n *int) func() (SessionContext, []protocol.UserRule) {
		return func() (SessionContext, []protocol.UserRule) { *n++; return SessionContext{}, nil }
	}
	t.Run("old turns of a session", func(t *testing.T) {
		j := New(Config{})
		n := 0
		for turn := 1; turn <= 3; turn++ {
			j.Prefix(TurnKey{"/p", "s", turn}, "", counting(&n))
		}
		require.Equal(t, 3, n)
		j.Prefix(TurnKey{"/p", "s", 3}, "", counting(&n))
		j.Prefix(TurnKey{"/p", "s", 2}, "", counting(&n))
		assert.Equal(t, 3, n, "the two newest turns stay cached")
		j.Prefix(TurnKey{"/p", "s", 1}, "", counting(&n))
		assert.Equal(t, 4, n, "turn 1 was evicted")
		j.Prefix(TurnKey{"/p", "s", 1}, "", counting(&n))
		assert.Equal(t, 5, n, "a turn older than the kept ones is not cached again")
		j.mu.Lock()
		assert.Len(t, j.sessions[sessionKey{"/p", "s"}].turns, 2)
		j.mu.Unlock()
	})
	t.Run("least recently used sessions", func(t *testing.T) {
		j := New(Config{})
		n := 0
		for i := range maxSessions + 1 {
			j.Prefix(TurnKey{"/p", fmt.Sprintf("s%d", i), 1}, "", counting(&n))
		}
		j.mu.Lock()
		assert.Len(t, j.sessions, maxSessions)
		j.mu.Unlock()
		j.Prefix(TurnKey{"/p", "s1", 1}, "", counting(&n))
		assert.Equal(t, maxSessions+1, n, "s1 is still cached")
		j.Prefix(TurnKey{"/p", "s0", 1}, "", counting(&n))
		assert.Equal(t, maxSessions+2, n, "s0 was the least recently used")
	})
	t.Run("forget", func(t *testing.T) {
		j := New(Config{})
		n := 0
		j.Prefix(TurnKey{"/p", "s", 1}, "", counting(&n))
		j.Forget("/p", "s")
		j.Prefix(TurnKey{"/p", "s", 1}, "", counting(&n))
		assert.Equal(t, 2, n)
	})
}

func TestCircuitBreaker(t *testing.T) {
	m := newModel(t, scripted(verdictJSON("deny", "critical")))
	j := New(Config{Endpoint: m.srv.URL, Model: "m"})
	key := TurnKey{Project: "/repo", Session: "s1", Turn: 4}
	for i := 1; i <= BreakerLimit; i++ {
		d := j.DecideTurn(context.Background(), key, "p", nil, testCall)
		require.Equal(t, Reject, d.Outcome)
		assert.Equal(t, i, j.Rejections(key))
	}
	assert.True(t, j.Tripped(key))
	d := j.DecideTurn(context.Background(), key, "p", nil, testCall)
	assert.Equal(t, Escalate, d.Outcome)
	assert.Equal(t, "judge: circuit breaker open: 3 judge rejections in this turn", d.Details.Error)
	assert.Equal(t, "m", d.Details.Model)
	assert.Equal(t, PrefixHash("p"), d.Details.PromptPrefixHash)
	assert.Equal(t, BreakerLimit, m.count(), "the model is not asked once the breaker is open")

	// Another turn and another session have their own counts.
	next := TurnKey{Project: "/repo", Session: "s1", Turn: 5}
	assert.False(t, j.Tripped(next))
	assert.Equal(t, Reject, j.DecideTurn(context.Background(), next, "p", nil, testCall).Outcome)
	assert.Equal(t, 1, j.Rejections(next))
	assert.Equal(t, 0, j.Rejections(TurnKey{Project: "/repo", Session: "s2", Turn: 4}))
}

func TestCircuitBreakerCountsOnlyRejections(t *testing.T) {
	m := newModel(t, scripted(verdictJSON("deny", "high"), verdictJSON("allow", "low"), "garbage", verdictJSON("deny", "critical")))
	j := New(Config{Endpoint: m.srv.URL, Model: "m"})
	key := TurnKey{Project: "/repo", Session: "s", Turn: 1}
	var outcomes []Outcome
	for range 4 {
		outcomes = append(outcomes, j.DecideTurn(context.Background(), key, "p", nil, testCall).Outcome)
	}
	assert.Equal(t, []Outcome{Escalate, Allow, Escalate, Reject}, outcomes)
	assert.Equal(t, 1, j.Rejections(key))
	var nilJudge *Judge
	assert.Equal(t, 0, nilJudge.Rejections(key))
	assert.Equal(t, Escalate, nilJudge.DecideTurn(context.Background(), key, "p", nil, testCall).Outcome)
}

func TestConfigFromPolicy(t *testing.T) {
	env := map[string]string{"JUDGE_API_KEY": "k-123"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name    string
		in      protocol.JudgeConfig
		want    Config
		errPart string
	}{
		{"ollama", protocol.JudgeConfig{Endpoint: "http://127.0.0.1:11434/v1", Model: "qwen2.5-coder:7b", TimeoutMs: 8000},
			Config{Endpoint: "http://127.0.0.1:11434/v1", Model: "qwen2.5-coder:7b", Timeout: 8 * time.Second}, ""},
		{"hosted with key", protocol.JudgeConfig{Endpoint: "https://api.example.com/v1", Model: "small", APIKeyEnv: "JUDGE_API_KEY", MaxTokens: 100},
			Config{Endpoint: "https://api.example.com/v1", Model: "small", APIKey: "k-123", MaxTokens: 100}, ""},
		{"key env empty", protocol.JudgeConfig{Endpoint: "https://x/v1", Model: "m", APIKeyEnv: "MISSING"}, Config{},
			"environment variable MISSING named by apiKeyEnv is empty"},
		{"no model", protocol.JudgeConfig{Endpoint: "https://x/v1"}, Config{}, "model is empty"},
		{"relative endpoint", protocol.JudgeConfig{Endpoint: "localhost:11434", Model: "m"}, Config{}, "not an http(s) URL"},
		{"negative timeout", protocol.JudgeConfig{Endpoint: "http://x", Model: "m", TimeoutMs: -1}, Config{}, "must not be negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ConfigFromPolicy(tc.in, getenv)
			if tc.errPart != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.errPart)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestNewDefaults(t *testing.T) {
	j := New(Config{Endpoint: "http://x", Model: "m"})
	assert.Equal(t, DefaultTimeout, j.cfg.Timeout)
	assert.Equal(t, 8*time.Second, j.cfg.Timeout)
	assert.Equal(t, 200, j.cfg.MaxTokens)
	assert.Equal(t, "m", j.Model())
	var nilJudge *Judge
	assert.Equal(t, "", nilJudge.Model())
	var te *transportError
	assert.False(t, errors.As(fmt.Errorf("x"), &te))
}
