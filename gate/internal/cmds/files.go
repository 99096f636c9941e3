package cmds

import (
	"strings"
	"sync"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// The file tools write, delete, move or change files. What each does to
// its operands is its Does; the flags declared are those whose value is no
// operand (Value) and those whose value is a file it reads or writes (Role
// Read, Write),
// read by the gate's own scan of the words, not yet by argv. Their other
// flags are not declared (Unknown: Ignore): none of them is known-safe with
// a file operand, so an unknown flag changes no answer.

// Does is what a file tool does to its operands.
type Does uint8

const (
	// Deletes its operands; -f/--force makes it forceful, -r/-R/--recursive recursive (rm, shred)
	Deletes      Does = iota + 1
	DeletesTrees      // deletes its operands recursively whatever its flags (rimraf, del-cli)
	Copies            // copies its sources to its last operand or -t DIR (cp, install, link)
	Moves             // moves them: the sources are deleted (mv)
	Links             // gives its sources another name; one operand links into the cwd (ln)
	Syncs             // copies between local paths; --delete* empties the destination (rsync)
	// ChangesMeta changes its operands' metadata or creates them empty
	// (touch, mkdir, chmod); Lead operands come first (chmod's mode)
	ChangesMeta
	Tees    // writes its operands and stdout (tee)
	Keyed   // its operands are KEY=VALUE, and Keys say which are files it reads or writes (dd)
	Patches // writes the files its patch names and its first operand (patch)
	Outputs // with ReadsOperands reads its operands (shuf, iconv)
)

// FileTool is a program that writes, deletes, moves or changes files.
type FileTool struct {
	Cmd  *argv.Command
	Does Does
	// Lead is how many operands come before the files (chmod MODE, chown OWNER)
	Lead int
	// LeadLikeFlag: its lead operand may look like a flag (chmod -w f:
	// the mode), so with one such word no operand is taken as the lead
	LeadLikeFlag bool
	// ReadsOperands: its operands are files it reads (iconv)
	ReadsOperands bool
	// Keys are the KEY= prefixes of a Keyed tool's operands whose value
	// is a file, with what the tool does with it (dd of=FILE: Write)
	Keys []Key
	// Recursive is its flag that makes it change a directory's whole
	// tree (chmod -R), "" for none: find / -exec chmod 777 {} + is
	// chmod -R 777 /
	Recursive string

	once   sync.Once
	values map[string]bool
}

// ValueFlags are the spellings of the flags that take a value, which is
// no operand.
func (t *FileTool) ValueFlags() map[string]bool {
	t.once.Do(func() {
		t.values = map[string]bool{}
		for _, f := range t.Cmd.Flags {
			if f.Arity == argv.Value {
				for _, n := range strings.Fields(f.Names) {
					t.values[n] = true
				}
			}
		}
	})
	return t.values
}

// FileFlags are the flags whose value is a file the tool reads or writes
// (argv.Read, argv.Write), in their declared order.
func (t *FileTool) FileFlags() []FileFlag {
	var out []FileFlag
	for _, f := range t.Cmd.Flags {
		if f.Role != argv.Read && f.Role != argv.Write {
			continue
		}
		ff := FileFlag{Role: f.Role}
		for _, n := range strings.Fields(f.Names) {
			if strings.HasPrefix(n, "--") {
				ff.Long = n
			} else if len(n) == 2 {
				ff.Letter = n[1]
			}
		}
		out = append(out, ff)
	}
	return out
}

// Key is a KEY= prefix of an operand whose value is a file (dd if=).
type Key struct {
	Prefix string
	Role   argv.Role
}

// FileFlag is a flag whose value is a file the tool reads or writes: its
// short letter (0: none), its long spelling and its role.
type FileFlag struct {
	Letter byte
	Long   string
	Role   argv.Role
}

// fixer is a linter or formatter whose --fix or --write rewrites the
// files it is given (eslint, prettier): its hook reads them.
func fixer(t *Tool) *Tool {
	t.Hook = "fixer"
	t.Examples = append(t.Examples, want("--fix src/a.js", "ask"), want("-o /home/u/.bashrc src", "human human.persistence-write"))
	return t
}

// fileTool is a file tool's entry: its flags with a value, its examples.
func fileTool(name string, does Does, f []argv.Flag, ex ...argv.Example) *FileTool {
	return &FileTool{Cmd: &argv.Command{Name: name, Class: argv.Files, Unknown: argv.Ignore, Flags: f, Examples: ex}, Does: does}
}

// recursiveBy is t whose flag f makes it change a whole tree.
func recursiveBy(t *FileTool, f string) *FileTool { t.Recursive = f; return t }

// values are flags that take a value, which is no file.
func values(names string) []argv.Flag { return each(nil, names, argv.Value) }

// CopyTarget is what the flag of a copy, move or link whose value is
// the directory its sources go to sets (argv.Flag.Sets): -t DIR,
// --target-directory=DIR, and -t in a cluster (cp -rt DIR).
const CopyTarget argv.Sets = 1

// copyTool is a copy, move or link tool with its flags declared: GNU
// coreutils 9.x's (long options by unique prefix) and BSD's and macOS's
// letters, which GNU's do not contradict; where they do (install -D,
// -T, -S) the GNU reading is declared, and a BSD value read as an
// operand is one more file read. A letter it lacks is read past
// (ReadOn), so -Zt DIR keeps -t. Its flags are all declared, so one it
// lacks is reported (Unknown: Ask); it is never known-safe whatever its
// flags.
func copyTool(name string, does Does, none, vals, opt string, ex ...argv.Example) *FileTool {
	t := fileTool(name, does, with(flags(none, vals, opt), means("-t --target-directory", argv.Value, CopyTarget)), ex...)
	t.Cmd.Abbrev, t.Cmd.ReadOn, t.Cmd.Unknown = true, true, argv.Ask
	return t
}

// cpSwitches are cp's flags without a value (GNU's, and BSD's and
// macOS's -c clone, -N no ACLs, -X no extended attributes).
const cpSwitches = "-a --archive --attributes-only -b --copy-contents -d -f --force -i --interactive -H -l --link -L --dereference " +
	"-n --no-clobber -P --no-dereference -p --parents -R -r --recursive --remove-destination -s --symbolic-link " +
	"--strip-trailing-slashes -T --no-target-directory -u -v --verbose -x --one-file-system -Z --keep-directory-symlink --debug -c -N -X"

// What an rsync filter option does (argv.Flag.Sets), read by the gate's
// rsync hook (gate/hooks_net.go) when it looks for the secrets a
// directory sent to another host holds.
const (
	RsyncExclude argv.Sets = iota + 1 // its value is a pattern of files not sent: --exclude PAT
	// RsyncRule: a rule that may send an excluded file after all, or
	// names the files sent (--include, --filter, -F, --files-from)
	RsyncRule
)

// rsyncFlags are rsync's flags with a value the gate reads: its transport
// (-e), its exclude patterns and the rules that may undo them. The files
// its --files-from, --include-from and --exclude-from read are Read.
var rsyncFlags = with(values("-e --rsh"), means("--exclude", argv.Value, RsyncExclude),
	meansEach("--include -f --filter", argv.Value, RsyncRule), means("-F", argv.None, RsyncRule),
	argv.Flag{Names: "--files-from", Arity: argv.Value, Role: argv.Read, Sets: RsyncRule},
	argv.Flag{Names: "--include-from", Arity: argv.Value, Role: argv.Read, Sets: RsyncRule}, reads("--exclude-from"))

// readsOn is t whose clusters are read on past a letter it lacks
// (argv.Command.ReadOn).
func readsOn(t *FileTool) *FileTool { readOn(t.Cmd); return t }

// asks is t whose flags are all declared: one the table lacks asks.
func asks(t *FileTool) *FileTool { t.Cmd.Unknown = argv.Ask; return t }

// modeLikeFlag is t whose lead operand, a mode, may look like a flag.
func modeLikeFlag(t *FileTool) *FileTool { t.LeadLikeFlag = true; return t }

// withLead is t with n operands before its files.
func withLead(t *FileTool, n int) *FileTool { t.Lead = n; return t }

var fileTools = []*FileTool{
	fileTool("rm", Deletes, nil, want("-rf build", "ask"), want("-rf ~", "deny floor.rm-root"), want("-r /home/u/old", "human human.outside-write")),
	fileTool("rmdir", Deletes, nil, ex("empty", "")),
	fileTool("unlink", Deletes, nil, ex("x", "")),
	fileTool("shred", Deletes, nil, ex("-u secret.txt", "")),
	fileTool("srm", Deletes, nil, ex("-r dir", "")),
	fileTool("trash", Deletes, nil, ex("old.txt", "")),
	fileTool("trash-put", Deletes, nil, ex("old.txt", "")),
	fileTool("rimraf", DeletesTrees, nil, want("node_modules", "ask"), want("/", "deny floor.rm-root")),
	fileTool("del-cli", DeletesTrees, nil, ex("dist", "")),

	copyTool("cp", Copies, cpSwitches, "-S --suffix --no-preserve --sparse", "--backup --preserve --reflink --update --context",
		want("-r src dst", "ask"), want("-t /home/u/bin a b", "human human.outside-write"), want("-rt /home/u/bin a b", "human human.outside-write"),
		want("--target=/home/u/bin a b", "human human.outside-write"), want("-S .t a /home/u/b", "human human.outside-write")),
	// install: GNU's flags, and BSD's -B SUFFIX, -f FLAGS, -h HASH, -l
	// LINKS, -N DBDIR, -M, -U
	copyTool("install", Copies, "-b -c -C --compare -d --directory -D -p --preserve-timestamps -s --strip -T --no-target-directory -v --verbose "+
		"--preserve-context -Z --debug -M -U", "-S --suffix -g --group -m --mode -o --owner --strip-program -B -f -h -l -N", "--backup --context",
		ex("-m 755 bin/x /usr/local/bin", ""), want("-Dm644 -t /home/u/.config/x a.conf", "human human.outside-write")),
	// link FILE1 FILE2 takes no option
	copyTool("link", Copies, "", "", "", ex("a b", "")),
	// mv: GNU's, and BSD's -h (a link to a directory is the target itself)
	copyTool("mv", Moves, "-b -f --force -i --interactive -n --no-clobber --exchange --no-copy --strip-trailing-slashes -T --no-target-directory "+
		"-u -v --verbose -Z --debug -h", "-S --suffix", "--backup --update --context",
		want("a b", "ask"), want("-t dir /home/u/notes", "human human.outside-write"), want("-ft /home/u/notes a", "human human.outside-write")),
	// ln: GNU's, and BSD's -h and -w
	copyTool("ln", Links, "-b -d -F --directory -f --force -i --interactive -L --logical -n --no-dereference -P --physical -r --relative "+
		"-s --symbolic -T --no-target-directory -v --verbose -h -w", "-S --suffix", "--backup",
		want("-s target name", "ask"), want("-s x /home/u/.bashrc", "human human.persistence-write"), want("-sft /home/u x", "human human.outside-write")),
	// rsync's remote calls are the network's: this entry is a local copy.
	// Its filter rules (rsyncFilters) are declared, so a pattern is no
	// operand; its other flags are not yet (ReadOn: a cluster is read on
	// past them, so -avF still holds -F)
	readsOn(fileTool("rsync", Syncs, rsyncFlags, want("-a src/ dst/", "ask"), want("-a --delete empty/ /home/u/", "deny floor.rm-root"),
		want("-a --exclude '*.o' src/ dst/", "ask"), want("-a --files-from /home/u/.ssh/id_rsa src/ dst/", "human human.sensitive-read"))),

	fileTool("touch", ChangesMeta, values("-r --reference -d --date -t"), ex("a b", ""), ex("-d yesterday a", "")),
	fileTool("mkdir", ChangesMeta, values("-m --mode"), ex("-p a/b", "")),
	fileTool("truncate", ChangesMeta, values("-s --size -r --reference"), ex("-s 0 log.txt", "")),
	recursiveBy(modeLikeFlag(withLead(fileTool("chmod", ChangesMeta, values("--reference"), want("+x run.sh", "ask"), want("-R 777 /", "deny floor.chmod-root")), 1)), "-R"),
	recursiveBy(withLead(fileTool("chown", ChangesMeta, values("--reference --from"), ex("-R u:g dir", "")), 1), "-R"),
	recursiveBy(withLead(fileTool("chgrp", ChangesMeta, values("--reference --from"), ex("staff f", "")), 1), "-R"),
	recursiveBy(withLead(fileTool("chattr", ChangesMeta, values("--reference"), ex("+i f", "")), 1), "-R"),
	recursiveBy(withLead(fileTool("setfacl", ChangesMeta, values("--reference"), ex("-m u:x:r f", "")), 1), "-R"),

	// tee without files is known-safe: its flags are all declared, and
	// one the table lacks asks
	asks(fileTool("tee", Tees, flags("-a --append -i --ignore-interrupts -p", "", "--output-error"), want("-a out.txt", "ask"), want("-a /home/u/.bashrc", "human human.persistence-write"), ex("-z", "-z"))),
	// dd's other keys (bs=, count=, conv=, status=) hold no file
	{Cmd: &argv.Command{Name: "dd", Class: argv.Files, Unknown: argv.Ignore,
		Examples: []argv.Example{want("if=a.img of=b.img bs=1M", "ask"), want("if=/home/u/.ssh/id_rsa", "human human.sensitive-read"),
			want("if=/dev/zero of=/dev/sda", "deny floor.disk-write")}},
		Does: Keyed, Keys: []Key{{"of=", argv.Write}, {"if=", argv.Read}}},
	// patch -i PATCH reads the patch like < PATCH; -r FILE writes the
	// hunks that failed, lines a shell would run in ~/.bashrc
	fileTool("patch", Patches, with(values("-p -z --suffix -B -V -D -F"), reads("-i --input"), writes("-o --output"), writes("-d --directory"),
		writes("-r --reject-file")), want("-p1 -i fix.diff", "ask"), ex("-o out.c in.c fix.diff", ""), want("-r /home/u/.bashrc f.c fix.diff", "human human.persistence-write")),
	// ssh-keygen -f FILE writes the key it makes, or the known_hosts it
	// edits (-R), to FILE; its other flags are not declared yet
	fileTool("ssh-keygen", Outputs, []argv.Flag{writes("-f")}, want("-t ed25519 -f key", "ask"),
		want("-qf /home/u/.ssh/authorized_keys", "human human.persistence-write")),
	fileTool("shuf", Outputs, []argv.Flag{writes("-o --output")}, want("-n 1 words.txt", "ask"), want("-o /home/u/.profile in.txt", "human human.persistence-write")),
	{Cmd: &argv.Command{Name: "iconv", Class: argv.Files, Unknown: argv.Ignore, Flags: with(values("-f -t"), writes("-o --output")),
		Examples: []argv.Example{ex("-f latin1 -t utf-8 in.txt", ""), ex("-t utf-8 -o out.txt in.txt", "")}}, Does: Outputs, ReadsOperands: true},
}

var fileToolIndex = index(fileTools, func(t *FileTool) string { return t.Cmd.Name })

// FileToolOf is the file tool declared for name, or nil.
func FileToolOf(name string) *FileTool { return fileToolIndex()[name] }

// files are the file tools' declarations.
func files() []*argv.Command {
	out := make([]*argv.Command, 0, len(fileTools))
	for _, t := range fileTools {
		out = append(out, t.Cmd)
	}
	return out
}
