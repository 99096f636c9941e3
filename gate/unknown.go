package gate

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
	"github.com/perm-peer/perm-peer/gate/internal/cmds"
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

// knownFamily reports a program one of the gate's families models even
// when this call gave it nothing to say (docker compose --env-file .env up).
func knownFamily(lb string) bool {
	return subcommandTools[lb] || packageManagers[lb] || versionTools[lb] || urlFetchers[lb] || netTools[lb] || downloaders[lb] ||
		shells[lb] || isInterpreter(lb) || prefixRunners[lb] || otherTools[lb] || cmds.ClassOf(lb) == argv.Data
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

// gitPacks reads a git archive or bundle create: whether it streams the
// repository to stdout, else the files it packs it into.
func gitPacks(args []word) (stdout bool, files []word) {
	if rest, ok := pathRest(args, []string{"archive"}, false); ok && !hasLongAbbrev(rest, "--remote", "--list") && !hasShort(rest, "l") {
		files = optionValues(rest, 'o', "--output")
		return len(files) == 0, files
	}
	if rest, ok := pathRest(args, []string{"bundle", "create"}, false); ok {
		if ops := operands(rest, nil); len(ops) > 0 {
			return rest[ops[0]].val == "-", rest[ops[0] : ops[0]+1]
		}
	}
	return false, nil
}
