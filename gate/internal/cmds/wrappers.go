package cmds

import (
	"slices"

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
	// String: a shell string, or the runner's stdin, is the command
	// (script -c CMD, tmux new 'CMD', at)
	String
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
	// Values are the short options of a prefix runner that take a value
	// (sandbox-exec -f FILE -n NAME -p PROFILE -D K=V CMD)
	Values string
	// Log is the option naming the file a prefix runner writes its trace
	// to (strace -o FILE), nil for none
	Log *LogOption
	// Schedules are the long options with which it runs the command
	// again later (systemd-run --on-calendar): persistence
	Schedules []string
	// DashShell: the words after -- are arguments of /bin/bash, not a
	// command (capsh -- -c CMD)
	DashShell bool
	// Examples state the gate's answer (argv.Example.Want) for a call.
	Examples []argv.Example
}

// LogOption is a prefix runner's option naming the file it writes: its
// short letter and long name, and every short option of the runner that
// takes a value (so the option is looked for only among the runner's own).
type LogOption struct {
	Letter byte
	Long   string
	Values string
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

// subRunner is a wrapper that runs a command after one of subs.
func subRunner(name string, kind Wrap, skip int, subs []string, ex ...argv.Example) *Wrapper {
	return &Wrapper{Name: name, Wrap: kind, Subs: subs, Skip: skip, Examples: ex}
}

func wrapperTable() []*Wrapper {
	run, exec := []string{"run"}, []string{"exec"}
	return slices.Concat(
		// sudo [-u USER …] CMD: privileges, whatever CMD is
		wrapOf(Privileged, []string{"sudo", "doas", "run0", "pkexec"}, "-u root rm -rf ~"),
		[]*Wrapper{{Name: "chroot", Wrap: Privileged, Lead: 1, Examples: []argv.Example{want("/srv/root rm -rf ~", floorInside)}}},
		// nohup CMD: the per-program options are read in the gate's
		// transparent(); the inner command is analysed
		wrapOf(Transparent, []string{"command", "builtin", "exec", "nohup", "nice", "ionice", "time", "stdbuf", "setsid",
			"busybox", "toybox", "watch", "xargs", "noglob", "nocorrect"}, "rm -rf ~"),
		wrapOf(Transparent, []string{"timeout", "chrt", "taskset", "repeat"}, "3 rm -rf ~"),
		wrapOf(Transparent, []string{"emulate"}, "sh -c 'rm -rf ~'"),
		wrapOf(Transparent, []string{"flock"}, "/tmp/lock rm -rf ~"), // flock FILE CMD
		// strace -f CMD: each word after the runner's flags is tried as
		// the command's start
		wrapOf(Prefix, []string{"ltrace", "valgrind", "unbuffer", "faketime", "proxychains", "proxychains4", "torsocks",
			"torify", "firejail", "bwrap", "unshare", "nsenter", "setpriv", "caffeinate", "chronic", "ssh-agent", "xvfb-run",
			"dbus-launch", "dbus-run-session", "fakeroot", "eatmydata", "nocache", "numactl", "prlimit", "catchsegv", "screen",
			"chpst", "flatpak-spawn", "entr", "dotenv", "with-contenv", "cgexec", "unbuffered"}, "rm -rf ~"),
		[]*Wrapper{
			{Name: "strace", Wrap: Prefix, Log: &LogOption{Letter: 'o', Long: "--output", Values: "oeEpPsuUaSAbI"},
				Examples: []argv.Example{want("-f rm -rf ~", floorInside), want("-o ~/.bashrc ls", "human human.persistence-write")}},
			{Name: "systemd-run", Wrap: Prefix, Schedules: []string{"--on-calendar", "--on-active", "--on-boot", "--on-startup",
				"--on-unit-active", "--on-unit-inactive", "--on-clock-change", "--on-timezone-change", "--timer-property",
				"--path-property", "--socket-property"},
				Examples: []argv.Example{want("rm -rf ~", floorInside), want("--on-calendar=daily make", "human human.persistence-write")}},
			{Name: "capsh", Wrap: Prefix, DashShell: true, Examples: []argv.Example{want("-- -c 'rm -rf ~'", floorInside)}},
			{Name: "sandbox-exec", Wrap: Prefix, Values: "fnpD", Examples: []argv.Example{want("-p '(version 1)' rm -rf ~", floorInside)}},
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
			subRunner("pnpm", Package, 1, []string{"exec", "x", "dlx"}, want("dlx rm -rf ~", floorInside)),
			subRunner("yarn", Package, 1, []string{"exec", "x", "dlx"}, want("dlx rm -rf ~", floorInside)),
			subRunner("devbox", Package, 1, run, want("run rm -rf ~", floorInside)),
			subRunner("mise", Package, 1, []string{"exec", "x"}, want("x rm -rf ~", floorInside)),
			subRunner("direnv", Package, 2, exec, want("exec . rm -rf ~", floorInside)),
			// script -c CMD, tmux new 'CMD', at (stdin): a shell string
			subRunner("script", String, 0, nil, want("-qc 'rm -rf ~' /dev/null", floorInside)),
			subRunner("nix-shell", String, 0, nil, want("--run 'rm -rf ~'", floorInside)),
			subRunner("runuser", String, 0, nil, want("-u nobody -- rm -rf ~", floorInside)),
			subRunner("tmux", String, 0, nil, want("new 'rm -rf ~'", floorInside)),
			subRunner("parallel", String, 0, nil, want("rm -rf ::: ~", floorInside)),
			subRunner("at", String, 0, nil, want("now", "human human.persistence-write")),
			subRunner("batch", String, 0, nil, want("", "human human.persistence-write")),
			subRunner("sg", String, 0, nil, want("wheel 'rm -rf ~'", floorInside)),
			subRunner("vagrant", String, 0, []string{"ssh"}, want("ssh -c 'rm -rf ~'", floorInside)),
		},
	)
}

var wrapperIndex = index(wrapperTable(), func(w *Wrapper) string { return w.Name })

// WrapperOf is the wrapper declared for name, or nil.
func WrapperOf(name string) *Wrapper { return wrapperIndex()[name] }

// Wrappers are the wrappers the table declares.
func Wrappers() []*Wrapper { return wrapperTable() }
