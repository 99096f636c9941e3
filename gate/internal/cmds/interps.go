package cmds

import (
	"strings"
	"sync"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// The interpreters run code they are given inline (python -c), as a module
// (python -m), on stdin or in a script file. The gate reads their code as
// text for the shapes that matter (gate/inline.go), never as a language it
// models, so a call is never known-safe but for its help or version. The
// compilers read their operands and write -o FILE.

// Interp is an interpreter: its flags and how its command line and its
// code are read (gate/commands.go's interpreter, gate/inline.go).
type Interp struct {
	// Cmd declares its flags: the help and version words, and with Getopt
	// the options its own getopt reads (a short flag of Arity Value takes
	// the rest of its cluster or the next word, one of Arity Optional the
	// rest of its cluster only, one of Arity Digits the digits after it;
	// Role Code is inline code, Role Load a library it loads first; Sets
	// says what else one does, Ends that the words after it are the code's
	// argv). nil when its entry is a tool's (deno, bun: pkg.go).
	Cmd  *argv.Command
	name string
	// Getopt: its options are read by Cmd's flags (node's do not
	// cluster, and its -pe is one flag: OneDash). Without, any -c, -e or
	// --eval word's value is code.
	Getopt bool
	// ServeModules are the modules that serve the directory (python -m
	// http.server); ServeLib the library whose httpd does (ruby -run -e
	// httpd).
	ServeModules []string
	ServeLib     string
	// Backticks: `…` in its code runs a shell command.
	Backticks bool
	// Exec: exec and spawn in its code run the words after them (Tcl,
	// expect).
	Exec bool
	// Drives: it controls other applications, the keychain and the system
	// (AppleScript).
	Drives bool
	// Commands: its code is command lines, each run as a shell runs one
	// (nushell, xonsh, elvish): read as the shell's too
	Commands bool
}

// Name is the interpreter's name.
func (i *Interp) Name() string {
	if i.Cmd != nil {
		return i.Cmd.Name
	}
	return i.name
}

// Short is the flag of letter l that takes a value (Arity Value or
// Optional), nil for none.
func (i *Interp) Short(l byte) *argv.Flag {
	return i.flag(func(n string) bool { return len(n) == 2 && n[0] == '-' && n[1] == l }, true)
}

// Long is the long option name (--eval) or the one-word flag (node's -pe),
// nil when the interpreter lacks it.
func (i *Interp) Long(name string) *argv.Flag {
	return i.flag(func(n string) bool { return n == name }, false)
}

// flag is the first declared flag with a spelling match says is it
// (taking a value, when valued).
func (i *Interp) flag(match func(string) bool, valued bool) *argv.Flag {
	if i == nil || i.Cmd == nil {
		return nil
	}
	for k := range i.Cmd.Flags {
		f := &i.Cmd.Flags[k]
		if valued && f.Arity == argv.None {
			continue
		}
		for _, n := range strings.Fields(f.Names) {
			if match(n) {
				return f
			}
		}
	}
	return nil
}

// What an interpreter's flag does besides its Role (argv.Flag.Sets), read
// by gate/commands.go's interpreter.
const (
	InterpModule  argv.Sets = iota + 1 // its value is a module run as the program (python -m MOD)
	InterpInPlace                      // it edits its operands in place (perl -i, ruby -i)
	InterpServe                        // it serves the directory (php -S ADDR)
)

// interpVersion are the words the gate reads, alone, as a request for an
// interpreter's help or version (gate/commands.go's interpreter, help.go).
const interpVersion = "-h --help -V -v --version"

// value is a flag taking one value, of role r.
func value(names string, r argv.Role) argv.Flag {
	return argv.Flag{Names: names, Arity: argv.Value, Role: r, Each: true}
}

// optional is a flag taking the rest of its cluster as its value.
func optional(names string) argv.Flag {
	return argv.Flag{Names: names, Arity: argv.Optional, Each: true}
}

// switches are flags taking no value.
func switches(names string) argv.Flag { return argv.Flag{Names: names, Each: true} }

// getoptLongs are the long options the interpreters with a getopt read:
// code, libraries, and the others that take the next word.
var getoptLongs = []argv.Flag{value("--eval --print", argv.Code), value("--require --import", argv.Load),
	value("--loader --experimental-loader --input-type --check-hash-based-pycs", argv.Opaque)}

// interp declares an interpreter whose options the gate does not read
// (any -c, -e or --eval word's value is code).
func interp(name string, extra string, ex ...argv.Example) *Interp {
	return &Interp{Cmd: &argv.Command{Name: name, Flags: []argv.Flag{switches(interpVersion + extra)}, Hook: "interp", Examples: ex}}
}

// getopt declares an interpreter whose options the gate reads by flags:
// they end at the first operand, the script (a word only known at run
// time among them), and a cluster reads on past a letter it lacks.
func getopt(name string, ip Interp, flags []argv.Flag, ex ...argv.Example) *Interp {
	ip.Getopt = true
	ip.Cmd = &argv.Command{Name: name, Hook: "interp", Examples: ex, StopAtOperand: true, RunTimeOperands: true, ReadOn: true,
		Flags: append(append([]argv.Flag{switches(interpVersion)}, flags...), getoptLongs...)}
	return &ip
}

// ends is flag f after which the words are the code's argv (python -c).
func ends(f argv.Flag) argv.Flag { f.Ends = true; return f }

// setting is flag f that sets s (argv.Flag.Sets).
func setting(f argv.Flag, s argv.Sets) argv.Flag { f.Sets = s; return f }

// digits are flags taking the digits after them (perl -l0, -0777).
func digits(names string) argv.Flag { return argv.Flag{Names: names, Arity: argv.Digits, Each: true} }

// perlish are perl's and ruby's shared flags: -i edits in place (an
// optional backup suffix), -l, -0, -C and -W take only the digits after
// them.
var perlish = []argv.Flag{setting(optional("-i"), InterpInPlace), digits("-l -0 -C -W")}

// python is the python family's entry under one of its names.
func python(name string) *Interp {
	return getopt(name, Interp{ServeModules: []string{"http.server", "SimpleHTTPServer"}},
		[]argv.Flag{ends(value("-c", argv.Code)), ends(setting(value("-m", argv.Opaque), InterpModule)), value("-W -X -Q", argv.Opaque)},
		want("--version", "allow"), want("-c pass", "ask ask.interpreter"), want("-m http.server", "human human.file-server"))
}

// node is node's entry under one of its names: its options do not
// cluster, -pe is one flag.
func node(name string) *Interp {
	ip := getopt(name, Interp{}, []argv.Flag{value("-e -p -pe", argv.Code), value("-r", argv.Load)},
		want("-v", "allow"), want("-e 1", "ask ask.interpreter"))
	ip.Cmd.OneDash = true
	return ip
}

var interps = []*Interp{
	python("python"), python("python3"), python("python3.12"), python("pypy3"),
	getopt("perl", Interp{}, append([]argv.Flag{value("-e -E", argv.Code), value("-M -m", argv.Load), value("-I", argv.Opaque), optional("-x -d -D")}, perlish...),
		want("-v", "allow"), want("-e 1", "ask ask.interpreter"), argv.Example{Args: "-l0ne 'print' f", Unknown: "-n", Want: "ask ask.interpreter"}).backticks(),
	getopt("ruby", Interp{ServeLib: "un", Backticks: true}, append([]argv.Flag{value("-e", argv.Code), value("-r", argv.Load), value("-I -E", argv.Opaque),
		optional("-x -T -K -F")}, perlish...),
		want("--version", "allow"), want("-run -e httpd", "human human.file-server")),
	getopt("php", Interp{Backticks: true}, []argv.Flag{value("-r -B -R -E", argv.Code), value("-f -d -c -t -z", argv.Opaque), setting(value("-S", argv.Opaque), InterpServe)},
		want("-v", "allow"), want("-S 0.0.0.0:8000", "human human.file-server")),
	node("node"), node("nodejs"),
	{name: "deno"}, {name: "bun"},
	interp("irb", "", want("--version", "allow")).backticks(), interp("lua", "", want("-v", "allow")), interp("luajit", "", want("-v", "allow")),
	interp("rscript", "", want("--version", "allow")), interp("r", "", want("--version", "allow")),
	interp("pwsh", "", want("build.ps1", "ask ask.interpreter")), interp("powershell", "", want("build.ps1", "ask ask.interpreter")),
	// shells of their own languages (nushell, xonsh, elvish): -c CODE is
	// command lines, never known-safe
	getopt("nu", Interp{Commands: true}, []argv.Flag{value("-c --commands -e --execute", argv.Code), value("--config --env-config", argv.Load)},
		want("-c 'cat .env'", "human human.sensitive-read"), want("-c ls", "ask ask.interpreter")),
	getopt("xonsh", Interp{Commands: true}, []argv.Flag{value("-c", argv.Code), value("--rc", argv.Load)}, want("-c 'cat ~/.ssh/id_rsa'", "human human.sensitive-read")),
	getopt("elvish", Interp{Commands: true}, []argv.Flag{value("-c", argv.Code), value("-rc", argv.Load)}, want("-c 'cat .env'", "human human.sensitive-read")),
	interp("tclsh", "", want("build.tcl", "ask ask.interpreter")).tcl(), interp("expect", "", want("login.exp", "ask ask.interpreter")).tcl(),
	interp("groovy", "", want("build.groovy", "ask ask.interpreter")), interp("jshell", " -version", want("-version", "allow")),
	interp("java", " -version", want("-version", "allow"), want("Main.java", "ask ask.interpreter")),
	interp("julia", "", want("--version", "allow")).backticks(),
	interp("octave", "", want("--version", "allow")), interp("octave-cli", "", want("run.m", "ask ask.interpreter")),
	interp("gnuplot", "", want("-V", "allow")), interp("jrunscript", "", want("run.js", "ask ask.interpreter")), interp("jjs", ""),
	func() *Interp {
		i := interp("osascript", "", want("run.scpt", "human human.system-write"))
		i.Drives = true
		return i
	}(),
}

// backticks says `…` in the interpreter's code runs a shell command.
func (i *Interp) backticks() *Interp { i.Backticks = true; return i }

// tcl says exec and spawn in its code run a program.
func (i *Interp) tcl() *Interp { i.Exec = true; return i }

var interpIndex = sync.OnceValue(func() map[string]*Interp { return index(interps, (*Interp).Name)() })

// InterpOf is the interpreter name is, nil for a program that is none: a
// name of the python family (python3.11, pypy) is python's.
func InterpOf(name string) *Interp {
	if i, ok := interpIndex()[name]; ok {
		return i
	}
	if strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy") {
		return interpIndex()["python"]
	}
	return nil
}

// interpCmds are the interpreters' and compilers' declarations, and
// wish's, for Lookup.
func interpCmds() []*argv.Command {
	out := []*argv.Command{wish}
	for _, i := range interps {
		if i.Cmd != nil {
			out = append(out, i.Cmd)
		}
	}
	return append(out, compilers...)
}

// wish is Tk's windowing shell: it runs Tcl scripts, and the gate reads
// it as a program it does not know, not yet as an interpreter.
var wish = &argv.Command{Name: "wish", Flags: []argv.Flag{switches(interpVersion)}, Examples: []argv.Example{want("app.tcl", "ask")}}

// compilers read their operands and write -o FILE (hook "cc"); their
// version and help words only print (build.go's tools for cc, gcc, g++,
// clang).
var compilers = func() []*argv.Command {
	var out []*argv.Command
	for _, n := range strings.Fields("cc gcc g++ c++ clang clang++ cpp tcc") {
		out = append(out, &argv.Command{Name: n, Hook: "cc",
			Flags: []argv.Flag{switches(interpVersion + " -version"), value("-o", argv.Write),
				value("-I -L -l -D -x -include -MF", argv.Opaque)},
			Examples: []argv.Example{want("-o main main.c", "ask"), want("--version", "allow")}})
	}
	return out
}()
