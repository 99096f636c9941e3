package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

func TestPolicyExamplesCheckedAtLoad(t *testing.T) {
	dir := t.TempDir()
	user := filepath.Join(dir, "policy.json")
	good := `{
  "allow": ["Bash(npm test *)"],
  "deny": ["Bash(git push *)"],
  "examples": [
    {"call": "npm test", "want": "allow"},
    {"call": "git push origin main", "want": "deny"},
    {"call": "make deploy", "want": "ask"},
    {"tool": "Read", "path": ".env", "want": "ask"},
    {"call": "rm -rf /", "want": "deny"}
  ]
}`
	require.NoError(t, os.WriteFile(user, []byte(good), 0o600))
	p, err := LoadPolicy(user, "", dir)
	require.NoError(t, err)
	rs := p.CheckExamples(dir)
	require.Len(t, rs, 5)
	for _, r := range rs {
		assert.True(t, r.OK, "%+v", r)
	}
	assert.Equal(t, 5, rs[0].Line)
	assert.Equal(t, "rule.allow Bash(npm test *)", rs[0].Why)

	bad := `{
  "mode": "ask",
  "examples": [
    {"call": "ls", "want": "allow"},
    {"call": "npm test", "want": "allow"}
  ]
}`
	require.NoError(t, os.WriteFile(user, []byte(bad), 0o600))
	_, err = LoadPolicy(user, "", dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), user+":5: /examples/1: \"npm test\" is ask, the example wants allow")

	// auto mode runs what is open, but never what only a person may approve
	auto := &Policy{User: protocol.Policy{Mode: protocol.ModeAuto}}
	assert.Equal(t, protocol.DecisionAllow, auto.Outcome(Verdict{Decision: protocol.DecisionAsk}))
	assert.Equal(t, protocol.DecisionAsk, auto.Outcome(Verdict{Decision: protocol.DecisionAsk, HumanOnly: true}))
	full := &Policy{User: protocol.Policy{Mode: protocol.ModeFull}}
	assert.Equal(t, protocol.DecisionAllow, full.Outcome(Verdict{Decision: protocol.DecisionAsk, HumanOnly: true}))
	assert.Equal(t, protocol.DecisionDeny, full.Outcome(Verdict{Decision: protocol.DecisionDeny}))

	// the schema: want is closed, an example names a call or a tool
	for _, doc := range []string{`{"examples":[{"call":"ls","want":"maybe"}]}`, `{"examples":[{"want":"allow"}]}`, `{"examples":[{"call":"ls","want":"allow","x":1}]}`} {
		require.NoError(t, os.WriteFile(user, []byte(doc), 0o600))
		_, err = LoadPolicy(user, "", dir)
		assert.Error(t, err, doc)
	}
}
