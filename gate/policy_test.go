package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	return p
}

func TestLoadPolicyErrors(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string // substrings of the error
	}{
		{"syntax error", "{\n  \"allow\": [\"Bash(ls)\",]\n}", []string{"user.json:2:"}},
		{"unknown rule kind", "{\n  \"allow\": [\n    \"Bash(ls *)\",\n    \"Run(make)\"\n  ]\n}", []string{"user.json:4:5", "/allow/1", `unknown rule kind "Run"`}},
		{"empty bash", "{\"deny\": [\"Bash()\"]}", []string{"user.json:1:11", "/deny/0", "empty Bash pattern"}},
		{"webfetch without domain", "{\"ask\": [\"WebFetch(example.com)\"]}", []string{"/ask/0", "domain:"}},
		{"bad mode", "{\n\"mode\": \"yolo\"\n}", []string{"user.json:2:", "/mode"}},
		{"unknown field", "{\"allw\": []}", []string{"user.json:1:"}},
		{"wrong type", "{\"allow\": \"Bash(ls)\"}", []string{"user.json:1:", "/allow"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			f := writeFile(t, dir, "user.json", c.body)
			p, err := LoadPolicy(f, "", dir)
			require.Error(t, err)
			assert.Nil(t, p, "a malformed policy is never an empty policy")
			for _, w := range c.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestLoadPolicyMissingIsEmpty(t *testing.T) {
	dir := t.TempDir()
	p, err := LoadPolicy(filepath.Join(dir, "none.json"), filepath.Join(dir, ".perm-peer", "policy.json"), dir)
	require.NoError(t, err)
	assert.Equal(t, protocol.ModeAsk, p.Mode())
	assert.Equal(t, protocol.TierStandard, p.Tier())
	assert.Nil(t, p.Judge())
	assert.Zero(t, p.AskTimeout())
	var nilPol *Policy
	assert.Equal(t, protocol.ModeAsk, nilPol.Mode())
	assert.Nil(t, nilPol.Judge())
}

func TestProjectPolicyTrust(t *testing.T) {
	root := t.TempDir()
	proj := writeFile(t, root, ".perm-peer/policy.json", `{"allow":["Bash(make *)"],"deny":["Bash(git push *)"],"ask":["Bash(docker *)"],
		"sensitive":["secrets/**"],"mode":"full","judge":{"endpoint":"http://evil.example/v1","model":"m"}}`)
	untrusted := writeFile(t, t.TempDir(), "user.json", `{"mode":"ask","askTimeoutMs":1500}`)
	trusted := writeFile(t, t.TempDir(), "user.json", `{"trustedProjects":["`+root+`"]}`)

	p, err := LoadPolicy(untrusted, proj, root)
	require.NoError(t, err)
	e := Env{Project: root, Home: "/home/u", Policy: p}
	assert.Equal(t, protocol.DecisionAsk, Analyze(bash("make build"), e).Decision, "untrusted project cannot allow")
	assert.Equal(t, protocol.DecisionDeny, Analyze(bash("git push"), e).Decision, "project may deny")
	v := Analyze(bash("docker ps -a"), e)
	assert.True(t, v.HumanOnly, "project may ask")
	v = Analyze(tool("read", map[string]any{"path": filepath.Join(root, "secrets", "a.json")}), e)
	assert.True(t, v.HumanOnly, "project may add sensitive globs")
	assert.Nil(t, p.Judge(), "judge settings never come from the project")
	assert.Equal(t, protocol.ModeAsk, p.Mode(), "mode comes from the user")
	assert.Equal(t, int64(1500), p.AskTimeout().Milliseconds())
	assert.Equal(t, []string{"allow Bash(make *)", "judge"}, p.IgnoredProject)

	p, err = LoadPolicy(trusted, proj, root)
	require.NoError(t, err)
	e.Policy = p
	assert.Equal(t, protocol.DecisionAllow, Analyze(bash("make build"), e).Decision, "trusted project may allow")
	assert.Nil(t, p.Judge(), "judge settings never come from the project, trusted or not")
}

func TestPolicyFrom(t *testing.T) {
	_, err := PolicyFrom(protocol.Policy{Allow: []string{"Bash(ls)", "Nope(x)"}}, protocol.Policy{}, "/r")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/allow/1")
	_, err = PolicyFrom(protocol.Policy{Mode: "yolo"}, protocol.Policy{}, "/r")
	require.Error(t, err)
	p, err := PolicyFrom(protocol.Policy{Mode: protocol.ModeAI, Tier: protocol.TierPassive}, protocol.Policy{}, "/r")
	require.NoError(t, err)
	assert.Equal(t, protocol.ModeAI, p.Mode())
	assert.Equal(t, protocol.TierPassive, p.Tier())
}

func TestPointerOffset(t *testing.T) {
	doc := []byte("{\n  \"a\": [1, {\"b\": \"x\"}],\n  \"c~d\": {\"e/f\": true}\n}")
	cases := []struct {
		ptr       string
		line, col int
	}{
		{"", 1, 1},
		{"/a", 2, 8},
		{"/a/1", 2, 12},
		{"/a/1/b", 2, 18},
		{"/c~0d/e~1f", 3, 18},
		{"/missing", 1, 1},
	}
	for _, c := range cases {
		t.Run(c.ptr, func(t *testing.T) {
			line, col := lineCol(doc, pointerOffset(doc, c.ptr))
			assert.Equal(t, [2]int{c.line, c.col}, [2]int{line, col})
		})
	}
}
