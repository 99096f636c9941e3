package gate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/perm-peer/perm-peer/protocol"
)

// TestPublicKeys checks that a public key is no secret, even in ~/.ssh,
// but a .pub name for a private key (a link, a hard link) still is.
func TestPublicKeys(t *testing.T) {
	dir := t.TempDir()
	proj, home := filepath.Join(dir, "p"), filepath.Join(dir, "h")
	key := writeFile(t, home, ".ssh/id_ed25519", "private\n")
	writeFile(t, home, ".ssh/id_ed25519.pub", "ssh-ed25519 AAAA\n")
	writeFile(t, proj, "deploy.pub", "ssh-ed25519 AAAA\n")
	if os.Link(key, filepath.Join(proj, "hard.pub")) != nil {
		t.Skip("no hard links here")
	}
	if err := os.Symlink(key, filepath.Join(proj, "soft.pub")); err != nil {
		t.Fatal(err)
	}
	e := Env{Project: proj, Cwd: proj, Home: home}
	for cmd, human := range map[string]bool{
		"cat ~/.ssh/id_ed25519.pub": false,
		"cat ~/.ssh/*.pub":          false,
		"cat deploy.pub":            false,
		"cat ~/.ssh/id_ed25519":     true,
		"cat hard.pub":              true,
		"cat soft.pub":              true,
	} {
		v := Analyze(bash(cmd), e)
		assert.Equal(t, human, v.HumanOnly, cmd)
	}
	v := Analyze(bash("cat deploy.pub"), e)
	assert.Equal(t, protocol.DecisionAllow, v.Decision)
}
