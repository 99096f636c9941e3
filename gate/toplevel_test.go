package gate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

// TestToplevelSubstitution: $(git rev-parse --show-toplevel) is the
// repository's root found on disk, so cd into it and list is known-safe
// and deleting it is the floor it is; under a .git file (a worktree, a
// submodule) or with GIT_DIR set the root is not known and nothing relaxes.
func TestToplevelSubstitution(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	sub := filepath.Join(proj, "src", "pkg")
	wt := filepath.Join(dir, "wt")
	for _, d := range []string{filepath.Join(proj, ".git"), sub, wt} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+proj+"/.git/worktrees/wt\n"), 0o644))
	shell := func(cmd string) protocol.ToolCall {
		raw, err := json.Marshal(map[string]string{"command": cmd})
		require.NoError(t, err)
		return protocol.ToolCall{Tool: "bash", RawInput: raw}
	}
	for _, c := range []struct {
		cmd, cwd string
		want     protocol.Decision
		code     string
	}{
		{`cd "$(git rev-parse --show-toplevel)" && ls`, sub, protocol.DecisionAllow, "gate.safe"},
		{`cd $(git rev-parse --show-toplevel); cat README.md`, sub, protocol.DecisionAllow, "gate.safe"},
		{`rm -rf "$(git rev-parse --show-toplevel)"`, sub, protocol.DecisionDeny, "floor.rm-root"},
		{`cd "$(git rev-parse --show-toplevel)" && ls`, wt, protocol.DecisionAsk, ""},
		{`export GIT_DIR=/x; cd "$(git rev-parse --show-toplevel)" && ls`, sub, protocol.DecisionAsk, ""},
	} {
		v := Analyze(shell(c.cmd), Env{Project: proj, Cwd: c.cwd, Home: filepath.Join(dir, "home")})
		assert.Equal(t, c.want, v.Decision, "%s in %s: %+v", c.cmd, c.cwd, v.Reasons)
		if c.code != "" {
			assert.Contains(t, codes(v), c.code, c.cmd)
		}
	}
}
