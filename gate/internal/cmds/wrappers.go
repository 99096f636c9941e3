package cmds

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// Wrap is how a wrapper's arguments hold the command it runs.
type Wrap uint8

const (
	// Privileged: options, then the command, which runs with another
	// user's privileges: human-only whatever it runs (SPEC §5.4)
	Privileged Wrap = iota + 1
	// Transparent: options, then the command, which runs as it would
	// alone: the wrapper changes how it runs, not what it can do
	Transparent
	// Prefix: flags whose values the gate does not know, then the
	// command: each later word may be where it starts (strace -f CMD)
	Prefix
	// Package: a package's program (or any other) after the runner's
	// options: the runner asks, the program is analysed
	Package
	// Eval: its words are shell code this shell runs (eval 'CMD'), or
	// name a file of it (source FILE)
	Eval
	// Shell: a shell; its -c string, script file or stdin is the code
	// it runs (sh -c 'CMD', bash x.sh, … | sh)
	Shell
	// String: a shell string, or the runner's stdin, is the command
	// (script -c CMD, tmux new 'CMD', at)
	String
	// Code: the values of its flags of role Run, and its operands as
	// CodeOperands says, are shell strings it runs, again and again
	// (hyperfine CMD, concurrently 'a' 'b', watchexec make, nodemon
	// --exec CMD): it asks, and a floor inside denies
	Code
)

// CodeOperands is how a Code runner's operands hold shell code.
type CodeOperands uint8

const (
	// EachString: each operand is one shell string (hyperfine 'a' 'b')
	EachString CodeOperands = iota
	// JoinedString: its operands join into one (watchexec make test)
	JoinedString
	// NotCode: its operands are files or patterns (nodemon app.js
	// --exec CMD, chokidar '**/*.go' -c CMD)
	NotCode
)

// Wrapper is a program whose arguments end with another command it runs.
type Wrapper struct {
	Name string
	Wrap Wrap
	// Subs: only with one of these first words does it run a command
	// (poetry run, npm exec); empty, on every call
	Subs []string
	// Skip is the number of words before the wrapper's options: its
	// subcommand, aws-vault's profile
	Skip int
	// Lead is the number of operands of its own after its options
	// (chroot's new root)
	Lead int
	// Values are its own options that take a value, when Opts does not
	// declare them all (argv.Valued: sudo -u USER CMD, sandbox-exec -f
	// FILE CMD): any other option is a switch, and the command starts at
	// the first operand. nil: none takes one.
	Values *argv.Command
	// Log are a prefix runner's options that take a value, the one naming
	// the file it writes its trace to with Role Write (strace -o FILE),
	// nil for none
	Log *argv.Command
	// Schedules are the long options with which it runs the command
	// again later (systemd-run --on-calendar): persistence
	Schedules []string
	// ShellWith is the flag (or the subcommand) with which its command is
	// a shell string: a transparent wrapper's first word (entr -s 'make
	// test'), a package runner's words after it, joined (pnpm exec
	// --shell-mode make test, yarn exec make test)
	ShellWith string
	// DashShell: the words after -- are arguments of /bin/bash, not a
	// command (capsh -- -c CMD)
	DashShell bool
	// Operands: it takes no options, only Lead operands (zsh repeat N CMD)
	Operands bool
	// CodeOperands: how a Code runner's operands hold shell code
	CodeOperands CodeOperands
	// Process are the flags with which it changes a running process
	// instead of running a command (ionice -p PID); ProcessLetters the
	// short ones also found in a cluster (taskset -ap)
	Process        []string
	ProcessLetters string
	// LooksUp are the flags with which it only looks a name up (command -v)
	LooksUp []string
	// Bare: without a command it runs nothing and says nothing (exec,
	// time): no question
	Bare bool
	// SkipsFuncs: the command it runs is never a shell function (in cd()
	// { builtin cd "$@"; } the inner cd is the builtin)
	SkipsFuncs bool
	// InShell: its command may be a builtin, which runs in this shell and
	// may change its variables (command read x, builtin cd); not exec,
	// whose command replaces the shell
	InShell bool
	// KeepsRedirs: alone, with no command, its redirections are the
	// shell's own for the rest of the script (exec 3<f, exec >log)
	KeepsRedirs bool
	// Opts are its own options, all declared: one the table lacks makes
	// the call not known-safe (SPEC §5.1), and the first operand ends
	// them. nil: Values and Long say which take a value, and the others
	// are skipped unread.
	Opts *argv.Command
	// Runner is the table's reading of a runner whose program is an
	// operand (arch -arm64 PROG), nil for the others
	Runner *Runner
	// Hook names the gate's reader of a wrapper whose command is not the
	// words after its options (flock FILE -c CMD, watch's joined words)
	Hook string
	// Examples state the gate's answer (argv.Example.Want) for a call.
	Examples []argv.Example
}

// Runs reports whether a call whose first argument is first (of n)
// runs a command: a subcommand runner needs its subcommand, a package
// runner the words it skips (direnv exec alone runs nothing).
func (w *Wrapper) Runs(first string, n int) bool {
	if len(w.Subs) > 0 && (n == 0 || !slices.Contains(w.Subs, first)) {
		return false
	}
	return w.Wrap != Package || n >= w.Skip
}

// floorInside is the answer for a wrapper running rm -rf ~: the floor
// of the command inside, which the gate reaches through the wrapper.
const floorInside = "deny floor.rm-root"

// wrapOf declares wrappers of one kind with the same arguments' shape;
// each gets the example args (rm -rf ~ inside), whose answer is the
// floor of the command inside.
func wrapOf(kind Wrap, names []string, args string) []*Wrapper {
	out := make([]*Wrapper, 0, len(names))
	for _, n := range names {
		out = append(out, &Wrapper{Name: n, Wrap: kind, Examples: []argv.Example{want(args, floorInside)}})
	}
	return out
}

// withShell is w with flag making its words one shell string (ShellWith).
func withShell(flag string, w *Wrapper) *Wrapper { w.ShellWith = flag; return w }

// subRunner is a wrapper that runs a command after one of subs.
func subRunner(name string, kind Wrap, skip int, subs []string, ex ...argv.Example) *Wrapper {
	return &Wrapper{Name: name, Wrap: kind, Subs: subs, Skip: skip, Examples: ex}
}

// logOption declares a prefix runner's options that take a value
// (letters), the one naming the file it writes (the short letter of
// write, and its long name, by unique prefix) among them: the others are
// switches it skips, and the first operand (the command) ends them.
func logOption(letters, write string) *argv.Command {
	c := argv.Valued(strings.ReplaceAll(letters, write[1:2], ""))
	c.Abbrev, c.StopAtOperand = true, true
	c.Flags = append(c.Flags, argv.Flag{Names: write, Arity: argv.Value, Role: argv.Write})
	return c
}

// opts are a wrapper's own options: none takes a value but those of vals.
func opts(name, none, vals string) *argv.Command {
	return &argv.Command{Name: name, Flags: flags(none, vals, ""), StopAtOperand: true}
}

// gnuOpts are a GNU wrapper's own options, long ones by unique prefix.
func gnuOpts(name string, f []argv.Flag) *argv.Command {
	return &argv.Command{Name: name, Flags: f, Abbrev: true, StopAtOperand: true}
}

// What an option of env does (argv.Flag.Sets), read by its hook
// (gate/hooks_wrap.go).
const (
	EnvIgnores argv.Sets = iota + 1 // it starts from an empty environment: -i
	EnvChdir                        // its value is the directory the command runs in: -C DIR
	EnvSplit                        // its value is split into the command and its first words: -S 'CMD ARGS'
)

// envOpts are env's own options. -a NAME runs the command under another
// name, which a multi-call program (busybox, coreutils) takes for the
// program to be: the gate cannot tell what runs.
var envOpts = gnuOpts("env", with(flags("-0 --null -v --debug --list-signal-handling", "-u --unset",
	"--block-signal --default-signal --ignore-signal"),
	argv.Flag{Names: "-i --ignore-environment", Sets: EnvIgnores}, argv.Flag{Names: "-C --chdir", Arity: argv.Value, Sets: EnvChdir},
	argv.Flag{Names: "-S --split-string", Arity: argv.Value, Sets: EnvSplit}, notSafe("-a --argv0", argv.Value)))

// numeric is c with -NUM a flag (nice -5).
func numeric(c *argv.Command) *argv.Command { c.Numeric = true; return c }

// transparents are the wrappers that change how a command runs, not what
// it can do.
func transparents() []*Wrapper {
	inside := []argv.Example{want("rm -rf ~", floorInside)}
	lead := []argv.Example{want("3 rm -rf ~", floorInside)}
	out := []*Wrapper{
		{Name: "command", Opts: opts("command", "-p -v -V", ""), LooksUp: []string{"-v", "-V"}, Bare: true, SkipsFuncs: true, InShell: true,
			Examples: []argv.Example{want("rm -rf ~", floorInside), want("-v rm", "allow"), want("-x ls", "ask ask.flag")}},
		{Name: "builtin", Opts: opts("builtin", "", ""), Bare: true, SkipsFuncs: true, InShell: true, Examples: []argv.Example{want("cd /", "allow")}},
		{Name: "exec", Opts: opts("exec", "-c -l", "-a"), Bare: true, SkipsFuncs: true, KeepsRedirs: true, Examples: []argv.Example{want("-a x rm -rf ~", floorInside)}},
		// GNU time; bash's keyword takes only -p
		{Name: "time", Opts: gnuOpts("time", with(flags("-a|--append -p|--portability -q|--quiet -v|--verbose -V", "-f|--format", ""), writes("-o --output"))),
			Bare: true, Examples: []argv.Example{want("rm -rf ~", floorInside), want("-o ~/.bashrc ls", "human human.persistence-write"),
				want("-p ls", "allow")}},
		{Name: "nice", Opts: numeric(gnuOpts("nice", flags("", "-n|--adjustment", ""))),
			Examples: []argv.Example{want("-n 5 rm -rf ~", floorInside), want("-5 ls", "allow"), want("--adjustment=5 ls", "allow"), want("--zz 5 ls", "ask ask.flag")}},
		{Name: "ionice", Opts: gnuOpts("ionice", flags("-t|--ignore -h -V", "-c|--class -n|--classdata -p|--pid -P|--pgid -u|--uid", "")),
			Process:  []string{"-p", "--pid", "-P", "--pgid", "-u", "--uid"},
			Examples: []argv.Example{want("-c 3 rm -rf ~", floorInside), want("-p 1", "ask ask.unknown-command")}},
		{Name: "timeout", Opts: gnuOpts("timeout", flags("-f|--foreground -p|--preserve-status -v|--verbose", "-k|--kill-after -s|--signal", "")), Lead: 1,
			Examples: []argv.Example{want("-s KILL 5 rm -rf ~", floorInside), want("--kill-after=5 10 ls", "allow"), want("--zz-bogus 5 ls", "ask ask.flag")}},
		{Name: "stdbuf", Opts: gnuOpts("stdbuf", flags("", "-i|--input -o|--output -e|--error", "")), Examples: []argv.Example{want("-o L rm -rf ~", floorInside), want("-oL ls", "allow")}},
		{Name: "chrt", Opts: gnuOpts("chrt", flags("-a|--all-tasks -b|--batch -d|--deadline -e|--ext -f|--fifo -i|--idle -o|--other -r|--rr -R|--reset-on-fork -m|--max -v|--verbose -p|--pid -h -V",
			"-T|--sched-runtime -P|--sched-period -D|--sched-deadline", "")), Lead: 1, Process: []string{"-p", "--pid"},
			Examples: []argv.Example{want("10 rm -rf ~", floorInside), want("-p 10 1", "ask ask.unknown-command"), want("--sched-runtime 5 -r 10 ls", "allow")}},
		{Name: "taskset", Opts: gnuOpts("taskset", flags("-a|--all-tasks -p|--pid -c|--cpu-list -h -V", "", "")), Lead: 1, Process: []string{"--pid"}, ProcessLetters: "p",
			Examples: []argv.Example{want("3 rm -rf ~", floorInside), want("-ap 3 1", "ask ask.unknown-command"), want("-z 3 ls", "ask ask.flag")}},
		{Name: "repeat", Operands: true, Lead: 1, Examples: lead}, // zsh: repeat N CMD
		// zsh: emulate sh -c CODE evaluates CODE; without -c it sets options
		{Name: "emulate", Hook: "emulate", Examples: []argv.Example{want("sh -c 'rm -rf ~'", floorInside), want("zsh", "allow")}},
		// flock FILE CMD, flock FILE -c CMD, flock -c CMD FILE
		{Name: "flock", Opts: gnuOpts("flock", with(flags("-s|--shared -x|-e|--exclusive -u|--unlock -n|--nb|--nonblock -o|--close -F|--no-fork --verbose -h -V",
			"-w|--wait|--timeout -E|--conflict-exit-code", ""), argv.Flag{Names: "-c --command", Arity: argv.Value, Role: argv.Run})), Lead: 1, Hook: "flock",
			Examples: []argv.Example{want("/tmp/lock rm -rf ~", floorInside), want("-w 5 x.lock ls", "ask ask.write"), want("--zz x.lock ls", "ask ask.flag"),
				want("--command='rm -rf ~' x.lock", floorInside), want("x.lock -c 'rm -rf ~'", floorInside)}},
		// watch joins its words into a shell string unless -x
		{Name: "watch", Opts: gnuOpts("watch", flags("-b|--beep -c|--color -C|--no-color -e|--errexit -g|--chgexit -t|--no-title -w|--no-wrap -x|--exec -p|--precise -r|--no-rerun -h -v",
			"-n|--interval -q|--equexit", "-d --differences")), Hook: "watch",
			Examples: []argv.Example{want("'rm -rf ~'", floorInside), want("-n 5 ls", "allow"), want("--shotsdir ~/x ls", "ask ask.flag")}},
		// GNU and BSD xargs
		{Name: "xargs", Hook: "xargs", Opts: gnuOpts("xargs", with(flags("-0 --null -o --open-tty -p --interactive -r --no-run-if-empty -t --verbose -x --exit --show-limits",
			"-d --delimiter -E -I -J -L -R -S -n --max-args -P --max-procs -s --max-chars --process-slot-var", "-i --replace -e --eof -l --max-lines"),
			reads("-a --arg-file"))),
			Examples: append(inside, want("-0 -n1 -I{} echo {}", "allow"), want("--zz ls", "ask ask.flag"), want("-a ~/.ssh/id_rsa echo", "human human.sensitive-read"))},
		// env [-i] [NAME=VALUE…] [-C DIR] CMD, env -S 'CMD ARGS'; without a
		// command it prints the environment (GNU coreutils 9.x and BSD's)
		{Name: "env", Hook: "env", Opts: envOpts, Examples: []argv.Example{want("A=1 rm -rf ~", floorInside), want("-S 'rm -rf ~'", floorInside),
			want("", "human human.env-dump"), want("-i", "allow"), want("--block-signal rm -rf ~", floorInside), want("-u HOME -C src ls", "allow"),
			want("--zz ls", "ask ask.flag"), want("-a sh busybox echo", "ask ask.flag")}},
	}
	// nohup CMD; noglob, nocorrect: zsh precommand modifiers
	for _, n := range []string{"nohup", "busybox", "toybox", "noglob", "nocorrect"} {
		out = append(out, &Wrapper{Name: n, Opts: opts(n, "", ""), Examples: append(inside, want("--zz ls", "ask ask.flag"))})
	}
	// entr [-acdnprsxz] CMD…: with -s its first word is a string $SHELL runs
	out = append(out, &Wrapper{Name: "entr", Opts: &argv.Command{Name: "entr", Flags: flags("-a -c -d -n -p -r -s -x -z", "", ""), StopAtOperand: true}, ShellWith: "-s",
		Examples: append(inside, want("-s 'rm -rf ~'", floorInside), want("-rs 'rm -rf ~'", floorInside), want("-cr make test", "ask ask.unknown-command"), want("-s 'ls -l'", "allow"), want("-f ls", "ask ask.flag"))})
	out = append(out, &Wrapper{Name: "setsid", Opts: gnuOpts("setsid", flags("-c|--ctty -f|--fork -w|--wait", "", "")), Examples: append(inside, want("-w ls", "allow"))})
	for _, r := range runners {
		// arch -arm64 PROG: the runner's table entry finds PROG
		out = append(out, &Wrapper{Name: r.Cmd.Name, Runner: r, Examples: []argv.Example{want(strings.Repeat("x86_64 ", r.Lead)+"rm -rf ~", floorInside)}})
	}
	for _, w := range out {
		w.Wrap = Transparent
	}
	return out
}

// sudoValues are sudo's options that take a value.
var sudoValues = argv.Valued("ugCDhprtTUPR", "--user", "--group", "--chdir", "--prompt", "--host", "--role", "--type",
	"--other-user", "--close-from", "--command-timeout", "--chroot")

// privileged gives the privileged wrappers the options of theirs that
// take a value: sudo's, which serve doas, run0, pkexec and chroot too.
func privileged(ws []*Wrapper) []*Wrapper {
	for _, w := range ws {
		w.Values = sudoValues
	}
	return ws
}

// parallelValues are GNU parallel's options that take a value.
var parallelValues = argv.Valued("jPSIEanNsLCd", "--jobs", "--max-procs", "--sshlogin", "--sshloginfile", "--arg-file",
	"--delay", "--halt", "--joblog", "--results", "--res", "--tmpdir", "--timeout", "--retries", "--max-args", "--max-chars",
	"--max-lines", "--colsep", "--delimiter", "--workdir", "--wd", "--basefile", "--env", "--tagstring", "--tag-string",
	"--memfree", "--load", "--nice", "--block", "--block-size", "--transferfile", "--return", "--termseq", "--limit", "--ssh",
	"--rpl", "--eof", "--profile", "--recstart", "--recend", "--header", "--shard", "--bin", "--group-by",
	"--compress-program", "--decompress-program")

// packageValues are a package runner's options that take a value (npx -p
// PKG CMD): its program starts at the first operand after them.
var packageValues = argv.Valued("p", "--package")

// packageRunners gives the package runners their options that take a value.
func packageRunners(ws []*Wrapper) []*Wrapper {
	for _, w := range ws {
		if w.Wrap == Package {
			w.Values = packageValues
		}
	}
	return ws
}

func wrapperTable() []*Wrapper {
	run, exec := []string{"run"}, []string{"exec"}
	return packageRunners(slices.Concat(
		// sudo [-u USER …] CMD: privileges, whatever CMD is
		privileged(wrapOf(Privileged, []string{"sudo", "doas", "run0", "pkexec"}, "-u root rm -rf ~")),
		privileged([]*Wrapper{{Name: "chroot", Wrap: Privileged, Lead: 1, Examples: []argv.Example{want("/srv/root rm -rf ~", floorInside)}}}),
		[]*Wrapper{
			// su [-l] [USER] -c CMD: CMD is a shell string
			{Name: "su", Wrap: Privileged, Hook: "su", Examples: []argv.Example{want("-c 'rm -rf ~'", floorInside), want("-lc 'ls'", "human human.privileged")}},
		},
		shells(),
		// nohup CMD, nice -n 5 CMD, timeout 5 CMD: options, operands of
		// their own, then the command
		transparents(),
		// strace -f CMD: each word after the runner's flags is tried as
		// the command's start
		wrapOf(Prefix, []string{"ltrace", "valgrind", "unbuffer", "faketime", "proxychains", "proxychains4", "torsocks",
			"torify", "firejail", "bwrap", "unshare", "nsenter", "setpriv", "caffeinate", "chronic", "ssh-agent", "xvfb-run",
			"dbus-launch", "dbus-run-session", "fakeroot", "eatmydata", "nocache", "numactl", "prlimit", "catchsegv",
			"chpst", "flatpak-spawn", "dotenv", "with-contenv", "cgexec", "unbuffered"}, "rm -rf ~"),
		[]*Wrapper{
			// screen CMD runs CMD; screen -X stuff TEXT types TEXT into a
			// window's shell, which runs each line (the screen hook)
			{Name: "screen", Wrap: Prefix, Hook: "screen", Examples: []argv.Example{want("rm -rf ~", floorInside),
				want("-S s -X stuff 'rm -rf ~\\n'", floorInside)}},
			{Name: "strace", Wrap: Prefix, Log: logOption("oeEpPsuUaSAbI", "-o --output"),
				Examples: []argv.Example{want("-f rm -rf ~", floorInside), want("-o ~/.bashrc ls", "human human.persistence-write")}},
			{Name: "systemd-run", Wrap: Prefix, Schedules: []string{"--on-calendar", "--on-active", "--on-boot", "--on-startup",
				"--on-unit-active", "--on-unit-inactive", "--on-clock-change", "--on-timezone-change", "--timer-property",
				"--path-property", "--socket-property"},
				Examples: []argv.Example{want("rm -rf ~", floorInside), want("--on-calendar=daily make", "human human.persistence-write")}},
			{Name: "capsh", Wrap: Prefix, DashShell: true, Examples: []argv.Example{want("-- -c 'rm -rf ~'", floorInside)}},
			{Name: "sandbox-exec", Wrap: Prefix, Values: argv.Valued("fnpD"), Examples: []argv.Example{want("-p '(version 1)' rm -rf ~", floorInside)}},
			// poetry run CMD, asdf exec CMD, aws-vault exec PROFILE CMD
			subRunner("poetry", Prefix, 1, run, want("run rm -rf ~", floorInside)),
			subRunner("uv", Prefix, 1, run, want("run rm -rf ~", floorInside)),
			subRunner("pipenv", Prefix, 1, run, want("run rm -rf ~", floorInside)),
			subRunner("pdm", Prefix, 1, run, want("run rm -rf ~", floorInside)),
			subRunner("hatch", Prefix, 1, run, want("run rm -rf ~", floorInside)),
			subRunner("rye", Prefix, 1, run, want("run rm -rf ~", floorInside)),
			subRunner("bundle", Prefix, 1, exec, want("exec rm -rf ~", floorInside)),
			subRunner("op", Prefix, 1, run, want("run -- rm -rf ~", floorInside)),
			subRunner("aws-vault", Prefix, 2, exec, want("exec dev -- rm -rf ~", floorInside)),
			subRunner("asdf", Prefix, 1, exec, want("exec rm -rf ~", floorInside)),
			subRunner("conda", Prefix, 1, run, want("run -n base rm -rf ~", floorInside)),
			subRunner("mamba", Prefix, 1, run, want("run -n base rm -rf ~", floorInside)),
			subRunner("micromamba", Prefix, 1, run, want("run -n base rm -rf ~", floorInside)),
			subRunner("pixi", Prefix, 1, run, want("run rm -rf ~", floorInside)),
			subRunner("guix", Prefix, 1, []string{"shell"}, want("shell -- rm -rf ~", floorInside)),
			subRunner("launchctl", Prefix, 1, []string{"asuser"}, want("asuser 501 rm -rf ~", floorInside)),
			// npx PKG, npm exec PKG, direnv exec DIR CMD: the runner asks
			// (bun x PKG is read as bun the interpreter's call)
			subRunner("npx", Package, 0, nil, want("rm -rf ~", floorInside)),
			subRunner("bunx", Package, 0, nil, want("rm -rf ~", floorInside)),
			subRunner("pnpx", Package, 0, nil, want("rm -rf ~", floorInside)),
			subRunner("uvx", Package, 0, nil, want("rm -rf ~", floorInside)),
			subRunner("pipx", Package, 0, run, want("run cowsay", "human human.remote-code")),
			subRunner("npm", Package, 1, []string{"exec", "x", "dlx"}, want("exec rm -rf ~", floorInside), want("dlx rm -rf ~", floorInside)),
			withShell("--shell-mode", subRunner("pnpm", Package, 1, []string{"exec", "x", "dlx"}, want("dlx rm -rf ~", floorInside),
				want("exec --shell-mode 'rm -rf ~'", floorInside), want("exec --shell-mode rm -rf '~'", floorInside))),
			// Yarn (2+) runs exec's words in its portable shell
			withShell("exec", subRunner("yarn", Package, 1, []string{"exec", "x", "dlx"}, want("dlx rm -rf ~", floorInside),
				want("exec 'rm -rf ~'", floorInside), want("exec 'ls; rm -rf ~'", floorInside))),
			subRunner("devbox", Package, 1, run, want("run rm -rf ~", floorInside)),
			subRunner("mise", Package, 1, []string{"exec", "x"}, want("x rm -rf ~", floorInside)),
			subRunner("direnv", Package, 2, exec, want("exec . rm -rf ~", floorInside)),
			// eval 'CMD', source FILE, . FILE: code run in this shell
			{Name: "eval", Wrap: Eval, Examples: []argv.Example{want("'rm -rf ~'", floorInside), want("\"$X\"", "human human.eval-opaque")}},
			{Name: "source", Wrap: Eval, Hook: "source", Examples: []argv.Example{want("./x.sh", "ask ask.source"), want("<(echo 'rm -rf ~')", floorInside)}},
			{Name: ".", Wrap: Eval, Hook: "source", Examples: []argv.Example{want("./x.sh", "ask ask.source")}},
			// ip netns exec NS CMD, nix develop -c CMD, kubectl exec POD --
			// CMD: their hooks find the command
			{Name: "ip", Wrap: Package, Hook: "netns", Examples: []argv.Example{want("-4 netns exec x rm -rf ~", floorInside), want("addr add 10.0.0.1/24 dev eth0", "ask")}},
			{Name: "nix", Wrap: Package, Subs: []string{"develop", "shell"}, Hook: "nix", Examples: []argv.Example{want("develop -c rm -rf ~", floorInside)}},
			// docker run IMAGE CMD, docker exec CTR CMD: the container hook
			// reads the whole CLI (Skip: a subcommand is needed)
			{Name: "docker", Wrap: Package, Skip: 1, Hook: "container", Examples: []argv.Example{want("exec c rm -rf ~", floorInside),
				want("run --env-file .env alpine ls", "human human.sensitive-read")}},
			{Name: "podman", Wrap: Package, Skip: 1, Hook: "container", Examples: []argv.Example{want("ps", "allow")}},
			{Name: "nerdctl", Wrap: Package, Skip: 1, Hook: "container", Examples: []argv.Example{want("run -v /:/h alpine ls", "human human.sensitive-read")}},
			{Name: "kubectl", Wrap: Package, Hook: "kubectl", Examples: []argv.Example{want("exec p -- rm -rf ~", floorInside)}},
			{Name: "oc", Wrap: Package, Hook: "kubectl", Examples: []argv.Example{want("debug node/x -- rm -rf ~", floorInside)}},
			// script -c CMD, tmux new 'CMD', at (stdin): a shell string
			{Name: "script", Wrap: String, Hook: "script", Examples: []argv.Example{want("-qc 'rm -rf ~' /dev/null", floorInside), want("-q /dev/null rm -rf ~", floorInside)}},
			subRunner("nix-shell", String, 0, nil, want("--run 'rm -rf ~'", floorInside)),
			{Name: "runuser", Wrap: String, Values: argv.Valued("ugGw", "--user", "--group", "--supp-group", "--whitelist-environment"),
				Examples: []argv.Example{want("-u nobody -- rm -rf ~", floorInside), want("-u nobody -c 'rm -rf ~'", floorInside)}},
			{Name: "tmux", Wrap: String, Hook: "tmux", Values: argv.Valued("cLSfT"), Examples: []argv.Example{want("new 'rm -rf ~'", floorInside), want("send-keys 'rm -rf ~' Enter", floorInside)}},
			{Name: "parallel", Wrap: String, Hook: "parallel", Values: parallelValues, Examples: []argv.Example{want("rm -rf ::: ~", floorInside)}},
			// at and batch run their stdin later: persistence
			{Name: "at", Wrap: String, Hook: "at", Examples: []argv.Example{want("now", "human human.persistence-write")}},
			{Name: "batch", Wrap: String, Hook: "at", Examples: []argv.Example{want("", "human human.persistence-write")}},
			{Name: "sg", Wrap: String, Hook: "sg", Examples: []argv.Example{want("wheel 'rm -rf ~'", floorInside)}},
			subRunner("vagrant", String, 0, []string{"ssh"}, want("ssh -c 'rm -rf ~'", floorInside)),
		},
		codeRunners(),
	))
}

// codeRunners are the benchmarkers, watchers and task runners that run
// shell strings they are given (Code). Their other flags are not all
// declared (Unknown: Ignore): they never run without asking, and a value
// read as an operand is only analysed as code too.
func codeRunners() []*Wrapper {
	code := func(name string, ops CodeOperands, stopAtOperand bool, f []argv.Flag, ex ...argv.Example) *Wrapper {
		return &Wrapper{Name: name, Wrap: Code, CodeOperands: ops, Examples: ex,
			Opts: &argv.Command{Name: name, Flags: f, Abbrev: true, StopAtOperand: stopAtOperand, Unknown: argv.Ignore}}
	}
	return []*Wrapper{
		// hyperfine [OPTIONS] CMD…: each command, and --prepare/--setup/
		// --cleanup/--conclude, run in $SHELL; --export-* write reports
		code("hyperfine", EachString, false, with(flags("-N -i --ignore-failure --show-output",
			"-w|--warmup -m|--min-runs -M|--max-runs -r|--runs -D|--parameter-step-size -S|--shell --style --sort -u|--time-unit --output --input -n|--command-name --min-benchmarking-time", ""),
			runs("-p --prepare"), runs("-s --setup"), runs("-c --cleanup"), runs("--conclude"),
			writes("--export-asciidoc"), writes("--export-csv"), writes("--export-json"), writes("--export-markdown"), writes("--export-orgmode")),
			want("'rm -rf ~'", floorInside), want("--prepare 'rm -rf ~' 'ls'", floorInside), want("-w 3 'ls -l'", "ask ask.runner"),
			want("--export-json ~/.bashrc ls", "human human.persistence-write")),
		// concurrently [options] CMD…: each command runs in a shell
		code("concurrently", EachString, false, flags("-k --kill-others --kill-others-on-fail -r --raw --no-color -g --group -t --timestamp-format --hide --restart-tries --restart-after -P --passthrough-arguments -s --success -m --max-processes -i --handle-input",
			"-n|--names -c|--prefix-colors -p|--prefix -l|--prefix-length --name-separator --default-input-target", ""),
			want("'npm:watch' 'rm -rf ~'", floorInside), want("-n a,b 'ls' 'pwd'", "ask ask.runner")),
		// watchexec [OPTIONS] CMD…: the command's words join into the
		// string $SHELL runs
		code("watchexec", JoinedString, true, flags("-r --restart -c --clear -p --postpone -n -N --notify --no-vcs-ignore --no-project-ignore --no-global-ignore --no-default-ignore --no-discover-ignore --no-meta --print-events -1 -v",
			"-w|--watch -W|--watch-non-recursive -e|--exts -f|--filter -i|--ignore --filter-file --ignore-file -j|--filter-prog -o|--on-busy-update -s|--signal --stop-signal --stop-timeout -d|--debounce --delay-run --shell -E|--env --workdir --project-origin --emit-events-to --log-file", ""),
			want("-e go -- rm -rf ~", floorInside), want("-r 'rm -rf ~'", floorInside), want("-e go go test ./...", "ask ask.runner")),
		// nodemon SCRIPT --exec CMD, tsc-watch --onSuccess CMD, chokidar
		// GLOB -c CMD: the flag's value is the shell string
		code("nodemon", NotCode, false, with(flags("-q --quiet -V --verbose --legacy-watch -L --no-stdin --on-change-only -I --spawn",
			"-w|--watch -e|--ext -i|--ignore -d|--delay --signal --config", ""), runs("-x --exec")),
			want("--exec 'rm -rf ~'", floorInside), want("-w src app.js", "ask ask.runner")),
		code("tsc-watch", NotCode, false, with(flags("--noClear --silent --compiler", "-p --project", ""),
			runs("--onSuccess"), runs("--onFailure"), runs("--onFirstSuccess"), runs("--onCompilationStarted"), runs("--onCompilationComplete"), runs("--onEmit")),
			want("--onSuccess 'rm -rf ~'", floorInside), want("-p tsconfig.json", "ask ask.runner")),
		code("chokidar", NotCode, false, with(flags("--initial -s --silent --polling --follow-symlinks",
			"-d|--debounce -t|--throttle -i|--ignore --poll-interval --poll-interval-binary", ""), runs("-c --command")),
			want("'**/*.go' -c 'rm -rf ~'", floorInside), want("'src/**' -c 'make test'", "ask ask.runner")),
	}
}

var wrapperIndex = index(wrapperTable(), func(w *Wrapper) string { return w.Name })

// WrapperOf is the wrapper declared for name, or nil.
func WrapperOf(name string) *Wrapper { return wrapperIndex()[name] }

// Wrappers are the wrappers the table declares.
func Wrappers() []*Wrapper { return wrapperTable() }
