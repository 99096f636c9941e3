package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The shell builtins that change the shell's own state: its directory
// (cd, pushd, popd), aliases, options, traps, history, limits and the
// command hash. What they do is to the gate's model of the shell, not to
// files, so package gate's builtins.go reads their words in its one closed
// switch (argv.Builtin); the table says which flags each has.
//
// Flags are bash 5.2's (help NAME); the directory builtins also take
// zsh's (-q -s, -NUM for a stack entry), whose chdir is cd. zsh's alias
// -g (a global alias, expanded anywhere in a line) is left undeclared: the
// gate expands aliases in command position only.
//
// A flag the table does not declare makes the call not known-safe
// (argv.Ask): bash refuses it ("cd: -Z: invalid option", shopt -snullglob
// is -s -n …), and the gate's model of the call would be wrong.

// shellBuiltin declares a builtin whose options end at its first operand,
// as bash's internal getopt reads them.
func shellBuiltin(name string, f []argv.Flag, ex ...argv.Example) *argv.Command {
	return &argv.Command{Name: name, Flags: f, Class: argv.Builtin, StopAtOperand: true, Examples: ex}
}

// stackBuiltin is a directory-stack builtin: -NUM names a stack entry.
func stackBuiltin(name string, f []argv.Flag, ex ...argv.Example) *argv.Command {
	c := shellBuiltin(name, f, ex...)
	c.Numeric = true
	return c
}

// cdFlags are cd's: bash's -L -P -e -@, zsh's -q (quiet) and -s (refuse
// symbolic links).
const cdFlags = "-L -P -e -@ -q -s"

// ulimitLetters are ulimit's resources and -S/-H; the limit is an operand.
const ulimitLetters = "-S -H -a -b -c -d -e -f -i -k -l -m -n -p -q -r -s -t -u -v -x -P -R -T"

// compgenSwitches and compgenValues are compgen's (bash 5.3 adds -V ARRAY).
const (
	compgenSwitches = "-a -b -c -d -e -f -g -j -k -s -u -v"
	compgenValues   = "-o -A -G -W -F -C -X -P -S -V"
)

// builtins are the shell builtins that change the shell's state.
var builtins = []*argv.Command{
	withState(argv.HomeDir, stackBuiltin("cd", flags(cdFlags, "", ""), want("-P /tmp", "allow"), want("src", "allow"), ex("-Z src", "-Z"), want("~/.ssh && cat id_rsa", "human human.sensitive-read"))),
	stackBuiltin("chdir", flags(cdFlags, "", ""), want("-q src", "allow"), want("~/.ssh && cat id_rsa", "human human.sensitive-read")),
	stackBuiltin("pushd", flags("-n "+cdFlags, "", ""), want("-n src", "allow"), want("+2", "allow"),
		want("~/.aws && cat credentials", "human human.sensitive-read")),
	stackBuiltin("popd", flags("-n -q", "", ""), want("-n", "allow"), want("+1", "allow"), want("&& rm -rf build", "human human.rm-unresolved")),
	withState(argv.DefinesCode, shellBuiltin("alias", flags("-p", "", ""), want("ll='ls -l'", "allow"), want("-p", "allow"),
		want("ls='rm -rf ~'", "deny floor.rm-root"))),
	shellBuiltin("unalias", flags("-a", "", ""), want("-a", "allow"), want("ll", "allow")),
	// +X is read as -X, the same option turned off; -o takes the next word
	// even within a cluster (-oe pipefail)
	withState(argv.MovesArgs, shellBuiltin("set", with(flags("-a -b -e -f -h -k -m -n -p -t -u -v -x -B -C -E -H -P -T", "", ""),
		argv.Flag{Names: "-o", Arity: argv.NextWord}),
		want("-euo pipefail", "allow"), want("-x", "allow"), want("-- a b", "allow"), want("+o keyword", "allow"),
		want("", "human human.env-dump"), want("-k", "ask ask.flag"), want("-o keyword", "ask ask.flag"),
		want("-oe pipefail -k", "ask ask.flag"), want("$OPTS", "ask ask.flag"), ex("--zz-bogus", "--zz-bogus"))),
	shellBuiltin("hash", flags("-d -l -r -t", "-p", ""), want("-r", "allow"), want("-t ls", "allow"),
		want("-p /tmp/x ls", "ask ask.flag"), want("ls=/tmp/x", "ask ask.flag")),
	withState(argv.ReadsLines, shellBuiltin("mapfile", flags("-t", "-C -c -d -n -O -s -u", ""),
		want("-t -C reboot lines", "human human.teardown"), want("-t lines", "ask"), want("-t PATH", "ask ask.env-prefix"))),
	withState(argv.ReadsLines, shellBuiltin("readarray", flags("-t", "-C -c -d -n -O -s -u", ""),
		want("-t -C reboot lines", "human human.teardown"), want("-t lines", "ask"), want("-t PATH", "ask ask.env-prefix"))),
	shellBuiltin("compgen", flags(compgenSwitches, compgenValues, ""), want("-v", "human human.env-dump"),
		want("-C reboot", "human human.teardown"), want("-c", "ask")),
	shellBuiltin("history", flags("-a -c -n -p -r -s -w", "-d", ""), want("-r ~/.ssh/id_rsa", "human human.sensitive-read"),
		want("-c", "ask")),
	withState(argv.DefinesCode, shellBuiltin("trap", flags("-l -p -P", "", ""), want("-p", "allow"), want("'echo done' EXIT", "allow"),
		want("'rm -rf ~' EXIT", "deny floor.rm-root"))),
	shellBuiltin("shopt", flags("-o -p -q -s -u", "", ""), want("-s extglob", "allow"), want("-s lastpipe", "ask"),
		ex("-snullglob", "-n")),
	shellBuiltin("ulimit", flags(ulimitLetters, "", ""), want("-n", "allow"), want("-Sn", "allow"), want("-n 1024", "ask")),
	shellBuiltin("umask", flags("-p -S", "", ""), want("-S", "allow"), want("022", "ask")),
	// getopts OPTSTRING NAME [ARG…]: the words after NAME are what it parses
	withState(argv.SetsVars, shellBuiltin("getopts", flags("", "", ""), want("ab: opt", "ask"), want("ab: PATH", "ask ask.env-prefix"))),
}

// withState gives a builtin's entry what it does to the shell's variables
// or directory (argv.State).
func withState(st argv.State, c *argv.Command) *argv.Command {
	c.State = st
	return c
}

// sets is a flag whose value is a shell variable the builtin sets to what
// it prints (printf -v NAME).
func sets(names string) argv.Flag {
	return argv.Flag{Names: names, Arity: argv.Value, Role: argv.Assigns}
}

// shownCommand gives a program the argument lists with which it is
// harmless as the command line of a variable like PAGER or EDITOR
// (argv.Command.CommandEnv): GIT_PAGER=cat, EDITOR=true, PAGER='less -R'.
func shownCommand(c *argv.Command, args ...string) *argv.Command {
	c.CommandEnv = args
	return c
}
