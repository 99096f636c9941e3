// hooks_other.go reads the tools the table does not declare yet whose
// words the gate knows (otherTools): compilers, debuggers, databases.

package gate

import (
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
)

// otherTools are programs that run command strings, write files named by
// an option or print secrets; otherTool models each.
var otherTools = map[string]bool{"sponge": true, "ed": true, "ex": true, "vi": true, "vim": true, "nvim": true, "view": true,
	"emacs": true, "gdb": true, "man": true, "sqlite3": true, "split": true, "cmake": true, "cc": true, "gcc": true, "g++": true,
	"c++": true, "clang": true, "clang++": true, "cpp": true, "tcc": true, "kill": true, "shutdown": true, "reboot": true,
	"poweroff": true, "halt": true, "httpd": true, "gpg": true, "gpg2": true, "security": true, "secret-tool": true,
	"psql": true, "mysql": true, "mariadb": true, "lldb": true}

// compilers read their operands and write -o FILE.
var compilers = map[string]bool{"cc": true, "gcc": true, "g++": true, "c++": true, "clang": true, "clang++": true, "cpp": true, "tcc": true}

// otherTool reads the tools with a language or a target of their own:
// editors driven by commands, debuggers, database shells, split,
// compilers, kill, power switches and the secret stores.
func (c *plainCall) otherTool() summary {
	a, f, idx, lb, args, sc := c.a, c.f, c.idx, c.lb, c.args, c.sc
	var s summary
	secret := func(what string) {
		a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: lb + " " + what}, parent: idx,
			human: reason("human.sensitive-read", lb+" prints "+what)})
		s.taint = true
	}
	ops := operands(args, nil)
	switch {
	case lb == "sponge":
		for _, i := range ops {
			a.writeWord(args[i], sc, idx)
		}
	case lb == "ed" || lb == "ex" || lb == "vi" || lb == "vim" || lb == "nvim" || lb == "view":
		c.exEditor()
	case lb == "emacs":
		c.emacs(ops)
	case lb == "gdb":
		c.gdb()
	case lb == "lldb":
		s.or(c.lldb())
	case lb == "man":
		c.man()
	case lb == "sqlite3":
		c.sqlite3()
	case lb == "psql" || lb == "mysql" || lb == "mariadb":
		a.dbClient(lb, args, sc, idx)
	case lb == "split":
		c.split()
	case lb == "cmake" && len(args) > 1 && args[0].val == "-E":
		a.cmakeE(f, idx, args[1:], sc)
	case compilers[lb]:
		for _, w := range optionValues(args, 'o', "") {
			a.writeWord(w, sc, idx)
		}
		for _, i := range operands(args, map[string]bool{"-o": true, "-I": true, "-L": true, "-l": true, "-D": true, "-x": true, "-include": true, "-MF": true}) {
			a.readWord(args[i], sc, idx, false)
		}
	case lb == "kill":
		c.kill()
	case lb == "httpd":
		f.human = reason("human.file-server", "httpd serves a directory, secrets such as .env included, to the network")
	case lb == "shutdown" || lb == "reboot" || lb == "poweroff" || lb == "halt":
		f.human = reason("human.teardown", lb+" stops the machine")
	case lb == "gpg" || lb == "gpg2":
		if hasLongAbbrev(args, "--export-secret-keys", "--export-secret-subkeys") {
			secret("secret keys")
		}
		for _, i := range ops {
			a.readWord(args[i], sc, idx, false)
		}
	case lb == "security":
		if len(ops) > 0 && (strings.HasPrefix(args[ops[0]].val, "find-") && hasShort(args, "wg") || args[ops[0]].val == "dump-keychain") {
			secret("a keychain password")
		}
	case lb == "secret-tool":
		if len(ops) > 0 && args[ops[0]].val == "lookup" {
			secret("a stored secret")
		}
	}
	return s
}
