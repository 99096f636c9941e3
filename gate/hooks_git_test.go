package gate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// Every example of git's subcommands and global options in the table runs through Analyze and
// gets the answer it states.
func TestGitExamplesDecide(t *testing.T) {
	e := env(protocol.Policy{})
	n := 0
	check := func(examples []argv.Example) {
		for _, ex := range examples {
			n++
			call := "git " + ex.Args
			v := Analyze(bash(call), e)
			assert.Equal(t, ex.Want, answerOf(v, ex.Want), call)
			assert.NotContains(t, codes(v), "ask.internal", call)
		}
	}
	for _, s := range cmds.GitSubs() {
		check(s.Examples)
	}
	for _, g := range cmds.GitGlobals() {
		check(g.Examples)
	}
	assert.Greater(t, n, 70)
}

// Every entry of git's table that names a hook has examples, which run
// it (TestGitExamplesDecide: a name no reader has panics, and Analyze
// answers ask.internal); a subcommand whose flags are declared is its
// entry's only name.
func TestGitHooksResolve(t *testing.T) {
	for _, s := range cmds.GitSubs() {
		if s.Hook != "" || s.Files != "" {
			assert.NotEmpty(t, s.Examples, "git %s names a hook and has no example", s.Names)
		}
		if s.Cmd != nil {
			assert.Equal(t, s.Cmd.Name, s.Names, "a declared Cmd is its entry's one name")
		}
		if s.Class == cmds.GitRewrites {
			assert.NotEmpty(t, s.Why, s.Names)
		}
		for _, n := range strings.Fields(s.Names) {
			assert.Same(t, s, cmds.GitSubOf(n), n)
		}
	}
	assert.Nil(t, cmds.GitSubOf("frobnicate"))
	assert.False(t, (&gitCall{}).hook("frobnicate"), "an unknown hook name runs nothing")
}

// A -c without "=" sets a key to true, and an include key so is no file:
// the gate reads it without failing (git -c include.path log sliced past
// the word's end, a panic Analyze turned into ask.internal).
func TestGitConfigWithoutValue(t *testing.T) {
	for _, cmd := range []string{"git -c include.path log", "git -c includeIf.onbranch:x.path status", "git -c include.path= log"} {
		v := Analyze(bash(cmd), env(protocol.Policy{}))
		assert.NotContains(t, codes(v), "ask.internal", cmd)
		assert.Contains(t, codes(v), "ask.flag", cmd)
	}
}
