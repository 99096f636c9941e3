// hooks_other.go reads the tools with a language or a target of their
// own that no other family claims: editors driven by commands, debuggers,
// database shells, split, compilers, kill, power switches, a file server
// and the secret stores, each through the hook its table entry names.

package gate

import (
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/protocol"
)

// hookName is the hook the table names for program lb: its entry's
// (spec, nil for none), else its tool's; "" for none.
func hookName(spec *argv.Command, lb string) string {
	if spec != nil && spec.Hook != "" {
		return spec.Hook
	}
	return toolHook(lb)
}

// otherHook is the reader of hook name h that otherTool runs, nil for a
// name that is not one of its hooks.
func otherHook(h string) func(*plainCall) {
	switch h {
	case "sponge":
		return (*plainCall).sponge
	case "man":
		return (*plainCall).man
	case "split":
		return (*plainCall).split
	case "file-server":
		return (*plainCall).fileServer
	case "power-off":
		return (*plainCall).powerOff
	case "gpg":
		return (*plainCall).gpg
	case "keychain":
		return (*plainCall).keychain
	case "secret-service":
		return (*plainCall).secretService
	case "lldb":
		return func(c *plainCall) { c.s.or(c.lldb()) }
	case "sqlite3":
		return (*plainCall).sqlite3
	case "db-client", "psql":
		return func(c *plainCall) { c.a.dbClient(hookName(c.spec, c.lb), c.args, c.sc, c.idx) }
	case "cmake":
		return (*plainCall).cmake
	case "cc":
		return (*plainCall).compile
	case "kill":
		return (*plainCall).kill
	case "ex", "vi", "view":
		return (*plainCall).exEditor
	case "emacs":
		return (*plainCall).emacs
	case "gdb":
		return (*plainCall).gdb
	}
	return nil
}

// otherTool reads a call through its entry's hook among otherHook's.
// It reports whether it read the call.
func (c *plainCall) otherTool() bool {
	run := otherHook(hookName(c.spec, c.lb))
	if run == nil {
		return false
	}
	// the hook runs on a copy: a call through a func value moves its
	// argument to the heap, and c lives on plain's stack for every call
	hc := *c
	run(&hc)
	*c = hc
	return true
}

// cmake -E TOOL ARGS runs TOOL, a command it stands for.
func (c *plainCall) cmake() {
	if len(c.args) > 1 && c.args[0].val == "-E" {
		c.a.cmakeE(c.f, c.idx, c.args[1:], c.sc)
	}
}

// compile: a compiler reads its operands and writes -o FILE.
func (c *plainCall) compile() {
	a, idx, args, sc := c.a, c.idx, c.args, c.sc
	for _, w := range optionValues(args, 'o', "") {
		a.writeWord(w, sc, idx)
	}
	for _, i := range operands(args, map[string]bool{"-o": true, "-I": true, "-L": true, "-l": true, "-D": true, "-x": true, "-include": true, "-MF": true}) {
		a.readWord(args[i], sc, idx, false)
	}
}

// sponge writes its operand with what it soaked up from stdin.
func (c *plainCall) sponge() {
	for _, i := range operands(c.args, nil) {
		c.a.writeWord(c.args[i], c.sc, c.idx)
	}
}

// fileServer: httpd serves a directory to the network.
func (c *plainCall) fileServer() {
	c.f.human = reason("human.file-server", c.lb+" serves a directory, secrets such as .env included, to the network")
}

// powerOff: shutdown, reboot, poweroff and halt stop the machine.
func (c *plainCall) powerOff() {
	c.f.human = reason("human.teardown", c.lb+" stops the machine")
}

// printsSecret adds the human-only read of what, which the call prints,
// and taints its output.
func (c *plainCall) printsSecret(what string) {
	c.a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: c.lb + " " + what}, parent: c.idx,
		human: reason("human.sensitive-read", c.lb+" prints "+what)})
	c.s.taint = true
}

// gpg reads its operands, and --export-secret-keys prints secret keys.
func (c *plainCall) gpg() {
	if hasLongAbbrev(c.args, "--export-secret-keys", "--export-secret-subkeys") {
		c.printsSecret("secret keys")
	}
	for _, i := range operands(c.args, nil) {
		c.a.readWord(c.args[i], c.sc, c.idx, false)
	}
}

// keychain: macOS security find-*-password -w or -g prints a password,
// dump-keychain the keychain.
func (c *plainCall) keychain() {
	args := c.args
	if ops := operands(args, nil); len(ops) > 0 && (strings.HasPrefix(args[ops[0]].val, "find-") && hasShort(args, "wg") || args[ops[0]].val == "dump-keychain") {
		c.printsSecret("a keychain password")
	}
}

// secretService: secret-tool lookup prints a stored secret.
func (c *plainCall) secretService() {
	if ops := operands(c.args, nil); len(ops) > 0 && c.args[ops[0]].val == "lookup" {
		c.printsSecret("a stored secret")
	}
}
