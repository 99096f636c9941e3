package corpus

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

var corpora = []string{"../../testdata/corpus/sample.jsonl", "../../testdata/corpus/gate.jsonl"}

func load(t *testing.T, path string) []Row {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows, err := Read(f)
	require.NoError(t, err)
	return rows
}

// TestCorpora is the acceptance gate of issue 3: every row passes, no call
// that should ask or be denied is allowed, every floor is denied and at
// least 90% of benign calls are allowed.
func TestCorpora(t *testing.T) {
	for _, path := range corpora {
		t.Run(filepath.Base(path), func(t *testing.T) {
			rows := load(t, path)
			res := make([]Result, len(rows))
			for i, r := range rows {
				res[i] = Evaluate(r)
				if !res[i].Pass {
					t.Errorf("%s [%s] %s: %s", r.ID, r.Cat, res[i].Why, firstCode(res[i]))
				}
			}
			st := Summarize(rows, res)
			assert.Zero(t, st.FalseAllows, "false allows")
			assert.Equal(t, st.Floors, st.FloorsDenied, "floors denied")
			assert.GreaterOrEqual(t, float64(st.BenignAllowed), 0.9*float64(st.Benign), "benign allowed")
			t.Logf("%d rows: %d passed, %d failed, %d benign of which %d allowed, %d floors denied, %d over-strict",
				len(rows), st.Passed, st.Failed, st.Benign, st.BenignAllowed, st.FloorsDenied, st.OverStrict)
		})
	}
}

func TestOwnCorpusSize(t *testing.T) {
	rows := load(t, "../../testdata/corpus/gate.jsonl")
	assert.GreaterOrEqual(t, len(rows), 250)
	cats := map[string]int{}
	for _, r := range rows {
		require.NotEmpty(t, r.Cat, "row %s has no cat", r.ID)
		cats[r.Cat]++
	}
	for _, c := range []string{"safe", "chain", "subst", "wrapper", "quoting", "floor", "env", "flags", "redirect",
		"sensitive", "persistence", "human", "parse", "rule", "file", "web"} {
		assert.Positive(t, cats[c], "category %s", c)
	}
}

func firstCode(r Result) string {
	if len(r.Reasons) == 0 {
		return ""
	}
	return r.Reasons[0].Code + " " + r.Reasons[0].Rule
}

func TestRead(t *testing.T) {
	cases := []struct {
		name, in, err string
		n             int
	}{
		{"two rows and a blank line", `{"id":"a","toolCall":{},"expect":"ask"}` + "\n\n" + `{"id":"b","toolCall":{},"expect":"deny"}`, "", 2},
		{"duplicate id", `{"id":"a","toolCall":{},"expect":"ask"}` + "\n" + `{"id":"a","toolCall":{},"expect":"ask"}`, `line 2: id "a" already used on line 1`, 0},
		{"bad expect", `{"id":"a","toolCall":{},"expect":"maybe"}`, `line 1: expect "maybe"`, 0},
		{"missing id", `{"toolCall":{},"expect":"ask"}`, "line 1: missing id", 0},
		{"unknown field", `{"id":"a","expect":"ask","bogus":1}`, "line 1:", 0},
		{"not json", `{"id":`, "line 1:", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rows, err := Read(strings.NewReader(c.in))
			if c.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), c.err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, rows, c.n)
		})
	}
}

func TestEvaluateRules(t *testing.T) {
	yes, no := true, false
	call := protocol.ToolCall{Tool: "bash", RawInput: []byte(`{"command":"rm -rf build"}`)}
	cases := []struct {
		name       string
		row        Row
		pass, over bool
	}{
		{"ask row answered ask", Row{ID: "a", ToolCall: call, Project: "/p", Expect: protocol.DecisionAsk}, true, false},
		{"allow row answered ask fails", Row{ID: "b", ToolCall: call, Project: "/p", Expect: protocol.DecisionAllow}, false, false},
		{"alt accepts ask", Row{ID: "c", ToolCall: call, Project: "/p", Expect: protocol.DecisionAllow, Alt: []protocol.Decision{protocol.DecisionAsk}}, true, false},
		{"deny on an ask row is over-strict", Row{ID: "d", ToolCall: call, Project: "/p", Expect: protocol.DecisionAsk,
			Policy: protocol.Policy{Deny: []string{"Bash(rm *)"}}}, true, true},
		{"humanOnly required", Row{ID: "e", ToolCall: call, Project: "/p", Expect: protocol.DecisionAsk, HumanOnly: &yes}, false, false},
		{"humanOnly false on a human-only ask is over-strict", Row{ID: "g", ToolCall: protocol.ToolCall{Tool: "bash", RawInput: []byte(`{"command":"rm -rf $X"}`)},
			Project: "/p", Expect: protocol.DecisionAsk, HumanOnly: &no}, true, true},
		{"bad policy fails the row", Row{ID: "f", ToolCall: call, Project: "/p", Expect: protocol.DecisionAsk, Policy: protocol.Policy{Allow: []string{"Nope(x)"}}}, false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Evaluate(c.row)
			assert.Equal(t, c.pass, r.Pass, r.Why)
			assert.Equal(t, c.over, r.OverStrict)
		})
	}
}

// TestEvalBinary builds perm-peer and runs "perm-peer eval" on both corpora,
// as make test does.
func TestEvalBinary(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "perm-peer")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/perm-peer")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	for _, path := range corpora {
		out, err := exec.Command(bin, "eval", path).Output()
		require.NoError(t, err, string(out))
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		last := lines[len(lines)-1]
		assert.Regexp(t, `^\d+ passed, 0 failed$`, last)

		js, err := exec.Command(bin, "eval", "--json", path).Output()
		require.NoError(t, err)
		for _, l := range strings.Split(strings.TrimSpace(string(js)), "\n") {
			assert.True(t, strings.HasPrefix(l, `{"id":`), "json line %q", l)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"id":"x","toolCall":{"tool":"bash","rawInput":{"command":"rm -rf /"}},"project":"/p","expect":"allow"}`+"\n"), 0o600))
	cmd := exec.Command(bin, "eval", bad)
	out, _ = cmd.Output()
	assert.Equal(t, 1, cmd.ProcessState.ExitCode())
	assert.Contains(t, string(out), "0 passed, 1 failed")

	checkCLI(t, bin)
}

// checkCLI runs "perm-peer check" as a user would.
func checkCLI(t *testing.T, bin string) {
	proj, home := t.TempDir(), t.TempDir()
	run := func(args ...string) (string, int) {
		cmd := exec.Command(bin, append([]string{"check", "--project", proj, "--home", home, "--policy", filepath.Join(home, "policy.json")}, args...)...)
		out, _ := cmd.CombinedOutput()
		return string(out), cmd.ProcessState.ExitCode()
	}
	out, code := run("--json", "--", "ls && rm -rf ~")
	require.Equal(t, 0, code, out)
	var res protocol.CheckResult
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	assert.Equal(t, protocol.DecisionDeny, res.Decision)
	assert.Equal(t, protocol.RiskCritical, res.Risk)
	assert.Equal(t, "floor.rm-root", res.Reasons[0].Code)

	out, code = run("--tool", "Read", "--path", ".env")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "decision:  ask")
	assert.Contains(t, out, "humanOnly: true")
	assert.Contains(t, out, "human.sensitive-read")

	out, code = run("--", "go test ./...")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "always:    Bash(go test *)")

	_, code = run()
	assert.Equal(t, 2, code, "usage error")

	require.NoError(t, os.WriteFile(filepath.Join(home, "policy.json"), []byte("{\n  \"deny\": [\"Nope(x)\"]\n}"), 0o600))
	out, code = run("--", "ls")
	assert.Equal(t, 3, code, "startup error")
	assert.Contains(t, out, "policy.json:2:12: /deny/0")
}
