package gate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// Every network client's examples run through Analyze and get the answer
// they state: a file it sends is the exfil floor, a program it wires to a
// socket the reverse-shell floor, a tunnel human-only.
func TestNetExamplesDecide(t *testing.T) {
	e := env(protocol.Policy{})
	n := 0
	for _, c := range cmds.NetTools() {
		assert.NotEmpty(t, c.Examples, c.Name)
		n += examplesDecide(t, e, c.Name, c.Examples)
	}
	assert.Greater(t, n, 80)
}

// Every hook and upload syntax a network client's entry names is one the
// network hook reads, and each is named by some entry.
func TestNetHooksResolve(t *testing.T) {
	used := map[string]bool{}
	for _, c := range cmds.NetTools() {
		if c.Hook != "" {
			assert.Contains(t, strings.Fields(netHooks), c.Hook, c.Name)
			used["hook "+c.Hook] = true
		}
		if c.Uploads != "" {
			assert.Contains(t, strings.Fields(uploadSyntaxes), c.Uploads, c.Name)
			used["uploads "+c.Uploads] = true
		}
	}
	for _, h := range strings.Fields(netHooks) {
		assert.True(t, used["hook "+h], h)
	}
	for _, u := range strings.Fields(uploadSyntaxes) {
		assert.True(t, used["uploads "+u], u)
	}
}
