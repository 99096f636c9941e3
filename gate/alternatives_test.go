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

func TestAlternativeNamesTheSaferWay(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, ".env"), []byte("T=1\n"), 0o600))
	env := Env{Project: root, Cwd: root, Home: filepath.Dir(root)}
	for cmd, want := range map[string]string{
		"git push --force origin main": "--force-with-lease",
		"git push -f":                  "--force-with-lease",
		"cat .env":                     ".env.example",
		"cat ~/.ssh/id_rsa":            "ask the user for what you need",
		"rm -rf /":                     "ask the user to remove anything else",
		"rm -rf ../other":              "ask the user to change files outside it",
		"git reset --hard HEAD~3":      "git revert",
		"npm test":                     "",
		"ls":                           "",
	} {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		v := Analyze(protocol.ToolCall{Tool: "bash", RawInput: in}, env)
		if want == "" {
			assert.Empty(t, Alternative(v), cmd)
			continue
		}
		assert.Contains(t, Alternative(v), want, cmd)
	}
}
