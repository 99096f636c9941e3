package gate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// Every tool's examples run through Analyze and get the answer they
// state; a tool with a hook has examples, so a hook its entry names but
// the gate does not resolve fails here.
func TestToolExamplesDecide(t *testing.T) {
	e := env(protocol.Policy{})
	n := 0
	for _, tl := range cmds.Tools() {
		if tl.Hook != "" {
			assert.NotEmpty(t, tl.Examples, tl.Name)
		}
		for _, ex := range tl.Examples {
			n++
			call := strings.TrimSpace(tl.Name + " " + ex.Args)
			assert.Equal(t, ex.Want, answerOf(Analyze(bash(call), e), ex.Want), call)
		}
	}
	assert.Greater(t, n, 30)
}

// An "always" answer names what the tool's entry says: the subcommand
// (go test *), the script (npm run test *), the action of a group (docker
// compose up *), or the exact call for what installs (npm install x).
func TestToolGrants(t *testing.T) {
	e := env(protocol.Policy{})
	for call, want := range map[string]string{
		"go test ./...":          "Bash(go test *)",
		"npm run test --watch":   "Bash(npm run test *)",
		"docker compose up -d":   "Bash(docker compose up *)",
		"npm install left-pad":   "Bash(npm install left-pad)",
		"go get example.com/m":   "Bash(go get example.com/m)",
		"npm get install":        "Bash(npm get *)",
		"kubectl get pods -A":    "Bash(kubectl get pods *)",
		"oc get pods -A":         "Bash(oc get pods -A)",
		"gmake test":             "Bash(gmake test)",
		"git stash push -m wip":  "Bash(git stash push *)",
		"pip config set a.b c":   "",
		"terraform state list x": "Bash(terraform state list *)",
	} {
		v := Analyze(bash(call), e)
		got := ""
		if v.Always != nil {
			got = v.Always.Pattern
		}
		assert.Equal(t, want, got, call)
	}
}
