package gate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
)

// Each hook otherTool, archiver and files (crontab, ss, dropdb) read is
// named by an entry of the table (cmds.All, cmds.Tools), and otherTool
// resolves each of its own: a hook renamed on one side only would leave
// its programs to the default reading (not in the known-safe set) and
// fail here.
func TestOtherHooksResolve(t *testing.T) {
	named := map[string]bool{}
	for _, c := range cmds.All() {
		named[c.Hook] = true
	}
	for _, tl := range cmds.Tools() {
		named[tl.Hook] = true
	}
	for _, h := range strings.Fields("sponge man split file-server power-off gpg keychain secret-service lldb sqlite3 db-client cmake cc kill ex vi view emacs gdb") {
		assert.NotNil(t, otherHook(h), h)
		assert.True(t, named[h], "no entry names hook %s", h)
	}
	for _, h := range strings.Fields("tar zip unzip gunzip gzip 7z crontab sockets drop-db") {
		assert.True(t, named[h], "no entry names hook %s", h)
	}
	assert.Nil(t, otherHook("tar"))
}
