package cmds

import (
	"slices"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// Runner is a program that runs its operand as a program with the words
// after it (arch -arm64 rm -rf ~ runs rm): its own flags end at the first
// operand, as POSIX getopt reads them, after Lead operands of its own
// (setarch's architecture).
type Runner struct {
	Cmd  *argv.Command
	Lead int
	// Env are the flags whose value is NAME=VALUE set in the program's
	// environment (arch -e DYLD_INSERT_LIBRARIES=x.dylib).
	Env []string
	// Shell: with no program it starts a shell (setarch); arch only
	// prints the machine's architecture.
	Shell bool
}

// setarchFlags are util-linux setarch's personality flags.
var setarchFlags = flags("-R --addr-no-randomize -F --fdpic-funcptrs -Z --mmap-page-zero -L --addr-compat-layout -X --read-implies-exec "+
	"-B --32bit -I --short-inode -S --whole-seconds -T --sticky-timeouts -3 --3gb --4gb --uname-2.6 -v --verbose --show --list", "", "")

// setarchAs is setarch under one of its per-architecture names.
func setarchAs(name string) *Runner {
	return &Runner{Cmd: &argv.Command{Name: name, Abbrev: true, Flags: setarchFlags, Examples: []argv.Example{ex("-R ls", ""), ex("-q ls", "-q")}}, Shell: true}
}

var runners = []*Runner{
	// macOS arch [-32|-64] [-ARCH|-arch ARCH]... [-c] [-d NAME]... [-e NAME=VALUE]... PROG ARGS
	{Cmd: &argv.Command{Name: "arch", Flags: flags("-32 -64 -c -h -i386 -x86_64 -x86_64h -arm64 -arm64e -ppc -ppc64", "-arch -d -e", ""),
		Examples: []argv.Example{ex("-arm64 ls", ""), ex("-arch x86_64 -e A=1 ls", ""), ex("-z ls", "-z")}}, Env: []string{"-e"}},
	{Cmd: &argv.Command{Name: "setarch", Abbrev: true, Flags: setarchFlags, Examples: []argv.Example{ex("x86_64 -R ls", "")}}, Lead: 1, Shell: true},
	setarchAs("linux32"), setarchAs("linux64"), setarchAs("i386"), setarchAs("x86_64"),
}

var runnerIndex = index(runners, func(r *Runner) string { return r.Cmd.Name })

// RunnerOf is the runner declared for name, or nil.
func RunnerOf(name string) *Runner { return runnerIndex()[name] }

// Program finds the program a runner runs in args: its index (len(args)
// when there is none) and the first flag of the runner's own the table
// does not have ("" when none; the words up to the program are then read
// as flags without values).
func (r *Runner) Program(n int, at func(i int) (val string, dyn bool)) (prog int, unknown string) {
	lead := r.Lead
	for i := 0; i < n; i++ {
		v, d := at(i)
		switch {
		case v == "--" && !d:
			return i + 1 + lead, unknown
		case d || v == "-" || len(v) < 2 || v[0] != '-':
			if lead > 0 {
				lead--
				continue
			}
			return i, unknown
		}
		// the flag with a plain word after it: when the word is no
		// operand, the flag takes the next word as its value
		inv := r.Cmd.Parse([]string{v, "x"}, nil)
		switch {
		case len(inv.Unknown) > 0:
			if unknown == "" {
				unknown = inv.Unknown[0]
			}
		case !slices.Contains(inv.Operands, 1):
			i++
		}
	}
	return n, unknown
}
