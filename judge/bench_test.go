package judge

import (
	"context"
	"fmt"
	"testing"

	"github.com/perm-peer/perm-peer/protocol"
)

// benchRules are 10 typical rules of a busy session.
func benchRules() []protocol.UserRule {
	var rules []protocol.UserRule
	for i := range 10 {
		rules = append(rules, protocol.UserRule{Kind: KindApproved, Action: fmt.Sprintf("bash: go test ./pkg%d/...", i),
			Resources: []string{fmt.Sprintf("pkg%d", i)}, Note: "fine, tests only touch testdata"})
	}
	return rules
}

var benchHistory = []HistoryEntry{
	{Action: "read: store/store.go", Outcome: "once"},
	{Action: "edit: store/store.go", Outcome: "once", Note: "keep the API stable"},
	{Action: "bash: go build ./...", Outcome: "once"},
	{Action: "bash: rm -rf store/testdata", Outcome: "reject", Note: "never delete fixtures"},
	{Action: "bash: go vet ./store/...", Outcome: "once"},
}

var benchCall = Call{Tool: "bash", Kind: "execute", Title: "Run store tests", Action: "bash: go test -run TestAudit ./store/...",
	Paths: []string{"store"}, Input: `{"command":"go test -run TestAudit ./store/... -count=1","timeout":120}`}

// BenchmarkJudgeOverhead is the judge path's own cost per call, model time
// excluded: build the turn prefix (a cache miss: rules rendered, text
// redacted and escaped), build the prompt, hash the prefix, encode the
// request and parse a verdict.
func BenchmarkJudgeOverhead(b *testing.B) {
	j := New(Config{Endpoint: "http://127.0.0.1:1/v1", Model: "m"})
	sc := SessionContext{Agent: "zed", Cwd: "store", UserMessage: "Fix the failing audit test in store/ and run it."}
	rules := benchRules()
	const reply = `{"decision":"allow","risk_level":"low","reason":"Runs the project's tests."}`
	b.ReportAllocs()
	for b.Loop() {
		prefix := BuildPrefix(sc, rules)
		system, user := BuildPrompt(prefix, benchHistory, benchCall)
		_ = PrefixHash(prefix)
		if _, err := j.provider.encode(j.cfg, exchange{system: system, rest: user}); err != nil {
			b.Fatal(err)
		}
		if out, _, _, err := ParseVerdict(reply); err != nil || out != Allow {
			b.Fatal(out, err)
		}
	}
}

// BenchmarkJudgeOverheadCachedPrefix is the same with the turn's prefix
// already cached: the cost of every call after the first in a turn.
func BenchmarkJudgeOverheadCachedPrefix(b *testing.B) {
	j := New(Config{Endpoint: "http://127.0.0.1:1/v1", Model: "m"})
	key := TurnKey{Project: "/repo", Session: "s", Turn: 1}
	build := func() (SessionContext, []protocol.UserRule) {
		return SessionContext{Agent: "zed", Cwd: "store", UserMessage: "Fix the failing audit test in store/ and run it."}, benchRules()
	}
	const reply = `{"decision":"allow","risk_level":"low","reason":"Runs the project's tests."}`
	b.ReportAllocs()
	for b.Loop() {
		prefix := j.Prefix(key, "", build)
		system, user := BuildPrompt(prefix, benchHistory, benchCall)
		_ = PrefixHash(prefix)
		if _, err := j.provider.encode(j.cfg, exchange{system: system, rest: user}); err != nil {
			b.Fatal(err)
		}
		if out, _, _, err := ParseVerdict(reply); err != nil || out != Allow {
			b.Fatal(out, err)
		}
	}
}

// BenchmarkDecideLocalModel is a whole Decide against an instant local
// model: the overhead above plus one loopback HTTP round trip.
func BenchmarkDecideLocalModel(b *testing.B) {
	t := &testing.T{}
	m := newModel(t, scripted(`{"decision":"allow","risk_level":"low","reason":"ok"}`))
	defer m.srv.Close()
	j := New(Config{Endpoint: m.srv.URL, Model: "m"})
	prefix := BuildPrefix(SessionContext{Agent: "zed"}, benchRules())
	b.ReportAllocs()
	for b.Loop() {
		if d := j.Decide(context.Background(), prefix, benchHistory, benchCall); d.Outcome != Allow {
			b.Fatal(d.Details.Error)
		}
	}
}
