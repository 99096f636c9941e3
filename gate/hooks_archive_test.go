package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// TestByHookAsksUnknown checks the entries whose hook reads their flags
// (argv.ByHook: tar's letters): each names a hook, and each of its
// known-safe examples with a flag it lacks added is not allowed, as an
// entry that asks about an unknown flag would make it.
func TestByHookAsksUnknown(t *testing.T) {
	e := env(protocol.Policy{})
	n := 0
	for _, c := range cmds.All() {
		if c.Unknown != argv.ByHook {
			continue
		}
		assert.NotEmpty(t, c.Hook, c.Name)
		for _, ex := range c.Examples {
			if ex.Want != "allow" {
				continue
			}
			n++
			assert.Equal(t, protocol.DecisionAllow, Analyze(bash(c.Name+" "+ex.Args), e).Decision, c.Name+" "+ex.Args)
			for _, bogus := range []string{" --zz-bogus", " --zz-bogus=1"} {
				assert.NotEqual(t, protocol.DecisionAllow, Analyze(bash(c.Name+" "+ex.Args+bogus), e).Decision, c.Name+" "+ex.Args+bogus)
			}
		}
	}
	assert.GreaterOrEqual(t, n, 2)
}
