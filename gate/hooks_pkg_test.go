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
		// a family's examples run as one of its programs
		name, _ := strings.CutSuffix(tl.Name, "*")
		if name != tl.Name {
			name += "example"
		}
		n += examplesDecide(t, e, name, tl.Examples)
	}
	assert.Greater(t, n, 30)
}

// An "always" answer names what the tool's entry says: the subcommand
// (go test *), the script (npm run test *), the action of a group (docker
// compose up *), or the exact call for what installs (npm install x).
func TestToolGrants(t *testing.T) {
	e := env(protocol.Policy{})
	for call, want := range map[string]string{
		"go test ./...":            "Bash(go test *)",
		"npm run test --watch":     "Bash(npm run test *)",
		"docker compose up -d":     "Bash(docker compose up *)",
		"npm install left-pad":     "Bash(npm install left-pad)",
		"go get example.com/m":     "Bash(go get example.com/m)",
		"npm get install":          "Bash(npm get *)",
		"kubectl describe pods -A": "Bash(kubectl describe pods *)",
		"oc get pods -A":           "Bash(oc get pods -A)",
		"gmake test":               "Bash(gmake test)",
		"git stash push -m wip":    "Bash(git stash push *)",
		"pip config set a.b c":     "",
		"terraform state list x":   "Bash(terraform state list *)",
	} {
		v := Analyze(bash(call), e)
		got := ""
		if v.Always != nil {
			got = v.Always.Pattern
		}
		assert.Equal(t, want, got, call)
	}
}

// The subcommand tables hold the tools' forms (Secrets, Configures,
// OntoPath, …), each from the tool's entry only.
func TestToolFormsInSubcmdTables(t *testing.T) {
	tables := map[string]func() map[string][]subcmd{"secretPrinters": secretPrinters, "configWriters": configWriters, "pathInstallers": pathInstallers,
		"uploaders": uploaders, "servers": servers, "unguarded": unguarded, "resolvers": resolvers, "openers": openers, "systemChangers": systemChangers}
	for _, tl := range cmds.Tools() {
		for table, forms := range map[string][]string{"secretPrinters": tl.Secrets, "configWriters": tl.Configures, "pathInstallers": tl.OntoPath,
			"uploaders": tl.Uploads, "servers": tl.Serves, "unguarded": tl.Unguarded, "resolvers": tl.Resolves, "openers": tl.Opens,
			"systemChangers": tl.ChangesSystem} {
			assert.Len(t, tables[table]()[tl.Name], len(forms), tl.Name+" in "+table)
		}
	}
	assert.Len(t, systemChangers()["xattr"], 2, "xattr -c, xattr com.apple.quarantine -d|-w")
	e := env(protocol.Policy{})
	for call, code := range map[string]string{"aws configure get aws_secret_access_key": "human.sensitive-read",
		"brew services start redis": "human.persistence-write", "cargo install ripgrep": "human.outside-write",
		"docker-credential-osxkeychain get": "human.sensitive-read"} { // a family: docker-credential-*
		assert.Contains(t, codes(Analyze(bash(call), e)), code, call)
	}
	assert.NotContains(t, codes(Analyze(bash("cargo install --list"), e)), "human.outside-write")
	assert.NotContains(t, codes(Analyze(bash("aws configure get region"), e)), "human.sensitive-read")
}
