package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The pagers and editors show or open the files they are given: each
// operand is a read (a +LINE word is a position), and none is known-safe.
// Their flags are not declared yet (Unknown: Ignore). less and more read
// their options' own language in the gate's code (lessOptions); vi, vim,
// nvim, view, ex, ed and emacs run scripts and are decided there
// (otherTool).

// opener is a pager or editor.
func opener(name string, ex ...argv.Example) *argv.Command {
	return &argv.Command{Name: name, Class: argv.Pager, Unknown: argv.Ignore, Examples: ex}
}

var pagers = []*argv.Command{
	shownCommand(withHook("less", opener("less", want("-R log.txt", "ask"), want("/home/u/.ssh/id_rsa", "human human.sensitive-read"))),
		"", "-R", "-r", "-FRX", "-FR"),
	shownCommand(withHook("less", opener("more", ex("README.md", ""))), ""),
	opener("most", ex("log.txt", "")), opener("pg", ex("log.txt", "")),
	opener("zless", ex("log.gz", "")), opener("zmore", ex("log.gz", "")),
	opener("nano", ex("+10 main.go", "")), opener("pico", ex("notes.txt", "")), opener("micro", ex("main.go", "")),
	opener("subl", ex("main.go", "")), opener("hx", ex("main.go", "")),
	opener("kak", ex("main.go", "")), opener("mcedit", ex("main.go", "")), opener("joe", ex("main.go", "")),
}

// patchers are the programs that apply a patch.
var patchers = []*argv.Command{
	// Codex's apply_patch: its argument, or its stdin, is a patch, whose
	// files it writes
	{Name: "apply_patch", Hook: "apply_patch", Examples: []argv.Example{want("x", "ask ask.bad-input")}},
	{Name: "applypatch", Hook: "apply_patch", Examples: []argv.Example{want("x", "ask ask.bad-input")}},
}

// sedFlags are GNU sed's: -e and -f give the script, -i edits in place
// (an optional backup suffix), and the long spellings that take no
// value are read with any =value, as the sed hook reads them.
var sedFlags = []argv.Flag{switches("-n -E -r -s -u -z"), value("-e|--expression", argv.Code), value("-f|--file", argv.Source),
	value("-l|--line-length", argv.Opaque), {Names: "-i --in-place", Arity: argv.Optional, Effect: argv.NotSafe},
	optional("--quiet --silent --regexp-extended --separate --unbuffered --posix --debug --sandbox --null-data --zero-terminated " +
		"--follow-symlinks --binary --help --version")}

// sed is sed's entry under one of its names (gsed is Homebrew's GNU sed).
func sed(name string) *argv.Command {
	// its hook reads a cluster past a letter it lacks (-xi is still -i),
	// and a run-time word as an operand
	return &argv.Command{Name: name, Hook: "sed", Abbrev: true, ReadOn: true, RunTimeOperands: true, Flags: sedFlags, Examples: []argv.Example{
		want("-n 1p README.md", "allow"), want("-i s/a/b/ README.md", "ask ask.flag"), ex("-x 1p README.md", "-x"),
		argv.Example{Args: "-xi s/a/b/ /home/u/.bashrc", Unknown: "-x", Want: "human human.persistence-write"}, want("-ne 1p -- -n", "allow")}}
}

// awkFlags are awk's, gawk's and mawk's: the options end at the program
// text; -e and -f give programs, gawk's -d, -p and -o write reports, -i
// and -l load code, and its long switches are read with any =value, as
// the awk hook reads them.
var awkFlags = []argv.Flag{switches("-P -c -S -L -M -b -N -r -O -s -t -V"), value("-F|--field-separator -v|--assign -W", argv.Opaque),
	value("-e|--source", argv.Code), value("-f|--file -i|--include -l|--load", argv.Source), optional("-d|--dump-variables -p|--profile -o|--pretty-print"),
	optional("--version --posix --traditional --compat --sandbox --lint --lint-old --bignum --characters-as-bytes --use-lc-numeric " +
		"--re-interval --optimize --no-optimize --copyright --help")}

// awk is awk's entry under one of its names.
func awk(name string) *argv.Command {
	// gawk takes a unique prefix of a long option (--incl inplace); a
	// run-time word is an operand: the hook reads it as the program or a file
	return &argv.Command{Name: name, Hook: "awk", Abbrev: true, StopAtOperand: true, RunTimeOperands: true, Flags: awkFlags, Examples: []argv.Example{
		want("-F: {print} README.md", "allow"), want("-f prog.awk README.md", "ask"), ex("-Z {print} README.md", "-Z")}}
}

// viFlags are the flags of vi and its kin: -c, --cmd and +CMD run ex
// commands, -S and -u source a script, -s, -e and -es read commands from
// stdin.
var viFlags = []argv.Flag{switches("-s -e -es -R -n -b -l -d -E -m -M -N -y -Z -r -L -h -v --help --version"),
	value("-c|--cmd", argv.Code), value("-S -u", argv.Source), value("-i -T -w -W -t -q -U", argv.Opaque)}

// editor is a program that edits files by commands, hook ex (driven by
// commands, ed and ex on stdin), vi or view (read-only vi).
func editor(name, hook string, ex ...argv.Example) *argv.Command {
	return &argv.Command{Name: name, Hook: hook, Flags: viFlags, Examples: ex}
}

// editors are the programs that edit files or streams by a script or
// commands the gate reads (the hooks their entries name), and the
// debugger that runs commands.
var editors = append(patchers, sed("sed"), sed("gsed"), awk("awk"), awk("gawk"), awk("mawk"), awk("nawk"),
	editor("ed", "ex", want("notes.txt", "ask")), editor("ex", "ex", want("notes.txt", "ask")),
	editor("vi", "vi", want("main.go", "ask")), editor("vim", "vi", want("--version", "allow"), want("-c wq main.go", "ask")),
	editor("nvim", "vi", want("--version", "allow")), editor("view", "view", want("main.go", "ask")),
	&argv.Command{Name: "emacs", Hook: "emacs", Flags: []argv.Flag{switches("-nw -q -Q --batch -batch --help --version"),
		value("--eval -eval --execute", argv.Code), value("-l|--load", argv.Source)},
		Examples: []argv.Example{want("--version", "allow"), want("--batch --eval t", "ask ask.flag")}},
	&argv.Command{Name: "gdb", Hook: "gdb", Flags: []argv.Flag{switches("-q -quiet -batch -nx -n --help --version"),
		value("-ex --ex -iex --iex -eval-command --eval-command", argv.Code), value("-x --x -ix --ix -command --command", argv.Source),
		value("-p --pid", argv.Opaque)},
		Examples: []argv.Example{want("-batch -ex run ./app", "ask")}})
