package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/perm-peer/perm-peer/protocol"
)

// ownWriters are the ways of writing, deleting, linking or copying onto a
// path P (reliability findings C1, M1): each must be a floor (or at least
// human-only where the path cannot be resolved) however P is spelled.
var ownWriters = []string{
	`echo '{"mode":"full"}' > P`,
	`printf x >> P`,
	`: > P`,
	`truncate -s0 P`,
	`rm -f P`,
	`cp /tmp/x P`,
	`mv /tmp/x P`,
	`sed -i s/deny/allow/ P`,
	`tee P < /tmp/x`,
	`dd if=/dev/zero of=P`,
	`python3 -c "open('P','w').write('{}')"`,
}

// lookup is an Env.Getenv over a fixed map.
func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestOwnFilesEverySpelling checks every writer × every spelling of the
// user policy and the audit DB: with the variables set as the peer's
// environment has them, and with them unset (their defaults).
func TestOwnFilesEverySpelling(t *testing.T) {
	pol, err := PolicyFrom(protocol.Policy{Allow: []string{"Bash(*)", "Write(**)"}}, protocol.Policy{}, "/repo")
	require.NoError(t, err)
	spellings := []string{
		`"${XDG_CONFIG_HOME:-$HOME/.config}/perm-peer/policy.json"`,
		`"${XDG_CONFIG_HOME-$HOME/.config}"/perm-peer/policy.json`,
		`${XDG_CONFIG_HOME:=~/.config}/perm-peer/policy.json`,
		`"${XDG_STATE_HOME:-$HOME/.local/state}"/perm-peer/0123456789abcdef.db`,
		`"${XDG_STATE_HOME:-$HOME/.local/state}/perm-peer/0123456789abcdef.db.lock"`,
		`$HOME/.local/state/perm-peer/0123456789abcdef.db`,
		`~/.config/perm-peer/policy.json`,
		`/repo/.perm-peer/policy.json`,
		`.perm-peer/policy.json`,
	}
	varOnly := []string{ // the variable alone: resolved when set, may-name when not
		`$XDG_STATE_HOME/perm-peer/0123456789abcdef.db`,
		`"$XDG_CONFIG_HOME/perm-peer/policy.json"`,
		`${XDG_CONFIG_HOME}/perm-peer/policy.json`,
	}
	for _, set := range []bool{true, false} {
		e := Env{Project: "/repo", Cwd: "/repo", Home: "/home/u", Policy: pol}
		all := spellings
		if set {
			e.Getenv = lookup(map[string]string{"XDG_CONFIG_HOME": "/cfg", "XDG_STATE_HOME": "/st"})
			all = append(append([]string{}, spellings...), varOnly...)
			all = append(all, `"${XDG_STATE_HOME:-/nowhere}"/perm-peer/x.db`)
		}
		for _, w := range ownWriters {
			for _, p := range all {
				cmd := strings.ReplaceAll(w, "P", p)
				if strings.HasPrefix(w, "python3") {
					cmd = strings.ReplaceAll(w, "P", strings.ReplaceAll(p, `"`, ``))
				}
				v := Analyze(bash(cmd), e)
				assert.Equal(t, protocol.DecisionDeny, v.Decision, "set=%v %s", set, cmd)
				assert.Equal(t, protocol.ByFloor, v.DecidedBy, "set=%v %s", set, cmd)
			}
		}
	}
}

// TestOwnFilesUnresolved checks that a path the gate cannot resolve that
// may still name perm-peer's own files is human-only, and one that does
// not only asks.
func TestOwnFilesUnresolved(t *testing.T) {
	pol, err := PolicyFrom(protocol.Policy{}, protocol.Policy{}, "/repo")
	require.NoError(t, err)
	e := Env{Project: "/repo", Cwd: "/repo", Home: "/home/u", Policy: pol} // no variable set
	human := []string{
		`rm -f $XDG_STATE_HOME/perm-peer/*.db`,
		`echo x > "$XDG_CONFIG_HOME/perm-peer/policy.json"`,
		`truncate -s0 $S/*/0123456789abcdef.db`,
		`cp x "$(dirname $P)/perm-peer/policy.json"`,
		`sed -i s/a/b/ $D/perm-*/policy.json`,
		`ln $XDG_STATE_HOME/perm-peer/a.db notes.db`,
		`sqlite3 $XDG_STATE_HOME/perm-peer/a.db 'delete from x'`,
		`python3 -c "import os; open(os.environ['XDG_STATE_HOME']+'/perm-peer/a.db','w')"`,
		`python3 -c "import os; open(os.path.join(os.environ['XDG_STATE_HOME'], 'perm-peer', 'a.db'), 'w')"`,
		`python3 -c "open('$XDG_STATE_HOME/perm-peer/a.db','w')"`,
	}
	for _, cmd := range human {
		v := Analyze(bash(cmd), e)
		assert.Equal(t, protocol.DecisionAsk, v.Decision, cmd)
		assert.True(t, v.HumanOnly, cmd)
	}
	plain := []string{
		`echo x > $OUT/report.txt`,
		`rm -f "$OUT/report.txt"`,
		`sed -i s/a/b/ $CFG/perm-peer`,
		`go build -o $GOBIN/perm-peer ./cmd/perm-peer`,
		`cp x $DIR/policy.json`,
	}
	for _, cmd := range plain {
		v := Analyze(bash(cmd), e)
		assert.Equal(t, protocol.DecisionAsk, v.Decision, cmd)
		assert.False(t, v.HumanOnly, cmd)
	}
}

// TestOwnFilesBenign checks that reading perm-peer's own files and writing
// elsewhere under ~/.config are what they were: a plain ask.
func TestOwnFilesBenign(t *testing.T) {
	pol, err := PolicyFrom(protocol.Policy{}, protocol.Policy{}, "/repo")
	require.NoError(t, err)
	e := Env{Project: "/repo", Cwd: "/repo", Home: "/home/u", Policy: pol, Getenv: lookup(map[string]string{"XDG_CONFIG_HOME": "/cfg"})}
	for cmd, human := range map[string]bool{
		`cat ~/.config/perm-peer/policy.json`:                           false,
		`cat "${XDG_CONFIG_HOME:-$HOME/.config}/perm-peer/policy.json"`: false,
		`echo x > ~/.config/foo/bar`:                                    true, // outside the project, as before
		`echo x > "${XDG_CONFIG_HOME:-$HOME/.config}/foo/bar"`:          false,
	} {
		v := Analyze(bash(cmd), e)
		assert.Equal(t, protocol.DecisionAsk, v.Decision, cmd)
		assert.Equal(t, human, v.HumanOnly, cmd)
	}
	v := Analyze(bash(`cat .perm-peer/policy.json`), e)
	assert.Equal(t, protocol.DecisionAllow, v.Decision)
}

// TestOwnFilesHardLinks checks that a write through a hard link to the
// audit DB or the project policy is the floor a write to them is (M1).
func TestOwnFilesHardLinks(t *testing.T) {
	dir := t.TempDir()
	proj, home, state := filepath.Join(dir, "p"), filepath.Join(dir, "h"), filepath.Join(dir, "st")
	db := writeFile(t, state, "perm-peer/0123456789abcdef.db", "bolt")
	other := writeFile(t, state, "perm-peer/fedcba9876543210.db", "bolt")
	projPol := writeFile(t, proj, ".perm-peer/policy.json", "{}")
	writeFile(t, proj, "README.md", "hi\n")
	for src, name := range map[string]string{db: "hard.db", other: "other.db", projPol: "hard_pol.json"} {
		if os.Link(src, filepath.Join(proj, name)) != nil {
			t.Skip("no hard links here")
		}
	}
	pol, err := PolicyFrom(protocol.Policy{Allow: []string{"Bash(*)", "Write(**)"}}, protocol.Policy{}, proj)
	require.NoError(t, err)
	e := Env{Project: proj, Cwd: proj, Home: home, Policy: pol, Protected: []string{db, db + ".lock"}}
	for _, name := range []string{"hard.db", "other.db", "hard_pol.json"} {
		for _, w := range ownWriters {
			cmd := strings.ReplaceAll(w, "P", name)
			v := Analyze(bash(cmd), e)
			assert.Equal(t, protocol.DecisionDeny, v.Decision, cmd)
			assert.Equal(t, protocol.ByFloor, v.DecidedBy, cmd)
		}
		v := Analyze(tool("write", map[string]any{"path": filepath.Join(proj, name), "content": "x"}), e)
		assert.Equal(t, protocol.DecisionDeny, v.Decision, name)
	}
	v := Analyze(bash("echo x >> README.md"), e)
	assert.Equal(t, protocol.DecisionAllow, v.Decision, "a file with one link is itself")
}
