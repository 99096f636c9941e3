package gate

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// A program the gate has no model for still shows its arguments (SPEC
// §5.5): it may read a secret or a system file it is handed, or run the
// command its arguments spell (frobnicate rm -rf ~). What it does is only
// guessed, so the guesses can only make the answer stricter.

// unmodelled reports an exec fact (fact idx of n) that no model of the gate
// claimed: no known family, no wrapper, not known-safe, no sub-fact.
// flagValueSecrets then reads all of its words.
func unmodelled(f *rfact, idx, n int, lb string) bool {
	return n == idx+1 && f.safe == nil && f.floor == nil && !f.wrapper && !knownFamily(lb)
}

// flagOutsideModel reports a call the code found known-safe with a flag the
// table does not declare (lspci -F FILE): what that flag does with its value
// is as unknown as an unknown program's arguments, so they are read the same
// way. allowlist later turns the call itself into an ask.
func flagOutsideModel(f *rfact) bool {
	return f.safe != nil && f.safe.Code == "gate.safe" && len(f.argv) > 0 && unknownFlag(f.argv) != ""
}

// handedPaths reads the words of a call whose arguments the gate does not
// model: a sensitive or system path among them (a word, or a --flag=VALUE's
// value) is a human-only read, since the program may read it, and a
// persistence file a human-only write, since it may write it.
func (fl *factLog) handedPaths(args []word, sc *scope, idx int) {
	for _, w := range args {
		v := w.val
		if w.dyn || v == "" || strings.HasPrefix(v, "-") && !strings.Contains(v, "=") {
			continue
		}
		if strings.HasPrefix(v, "-") {
			_, v, _ = strings.Cut(v, "=") // --config=/etc/x
		}
		if !pathLiteral(v) && !isSensitiveName(strings.ToLower(v)) && persistenceOf("/"+v) == "" {
			continue // a word, not a path (CLAUDE.md is one, a bare name)
		}
		switch r := fl.resolvePath(v, sc.cwd, false); {
		case readBy(fl.facts, idx, r):
		case fl.sensitive(r):
			fl.add(&rfact{kind: protocol.FactRead, path: r, parent: idx,
				human: reason("human.sensitive-read", "a sensitive file is handed to a program the gate does not know")})
		case r.known && systemPath(r.abs):
			fl.add(&rfact{kind: protocol.FactRead, path: r, parent: idx,
				human: reason("human.system-path", "a system path is handed to a program the gate does not know")})
		case r.known:
			// it may write what it is handed (ditto x .git/hooks/pre-commit);
			// persistence may look at the disk, so it is asked once
			if kind := fl.persistence(r); kind != "" {
				fl.add(&rfact{kind: protocol.FactWrite, path: r, parent: idx,
					human: reason("human.persistence-write", "a "+kind+" is handed to a program the gate does not know")})
			}
		}
	}
}

// readBy reports that the exec fact idx already reads p (date -f FILE:
// its model saw the read before the flag was found outside it).
func readBy(facts []*rfact, idx int, p pathRef) bool {
	return p.known && slices.ContainsFunc(facts[idx+1:], func(g *rfact) bool {
		return g.kind == protocol.FactRead && g.parent == idx && g.path.abs == p.abs
	})
}

// knownFamily reports a program one of the gate's families models even
// when this call gave it nothing to say (docker compose --env-file .env up).
func knownFamily(lb string) bool {
	return cmds.ToolOf(lb) != nil && cmds.ToolOf(lb).Modelled() || netKnown(lb) ||
		isShell(lb) || isInterpreter(lb) || isPrefixRunner(lb) || otherHook(hookName(cmds.Lookup(lb), lb)) != nil || cmds.ClassOf(lb) == argv.Data
}

// visibleCommands are the programs whose name among an unknown program's
// arguments is read as the command it runs (sandbox-exec -p P rm -rf ~):
// those whose floors depend on their arguments, the shells and eval.
var visibleCommands = setOf("rm shred dd chmod chown mv cp tee truncate curl wget nc ncat netcat socat scp rsync eval " +
	"sh bash zsh dash ksh fish env xargs find sudo doas su mkfs wipefs python python3 perl ruby node")

// systemPath reports a path in the system's own tree: /etc, /usr, /bin,
// /System, /Library (not ~/Library), /boot, a device, the kernel's settings.
func systemPath(p string) bool {
	if strings.HasPrefix(p, "/dev/") {
		return !harmlessDevice(p)
	}
	return slices.ContainsFunc(systemDirs, func(d string) bool { return within(p, d) })
}

var systemDirs = []string{"/etc", "/private/etc", "/usr", "/bin", "/sbin", "/boot", "/System", "/Library", "/private/var/db",
	"/var/db", "/var/root", "/proc/sys", "/sys", "/lib", "/lib64"}

// binaryReaders inspect the files they are given and change nothing: their
// operands are reads, checked like cat's (ldd /usr/bin/ls reads outside the
// project, not a system path handed to an unknown program).
var binaryReaders = setOf("ldd otool nm readelf objdump size lipo dwarfdump xxd hexdump od sha1sum sha256sum md5 shasum")
