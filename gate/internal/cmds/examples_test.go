package cmds

import (
	"slices"
	"strings"
	"testing"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// TestExamples checks every example of the table: the parser finds
// exactly the unknown flag it names, or none (none where the declaration
// ignores unknown flags).
func TestExamples(t *testing.T) {
	n := 0
	var all []*argv.Command
	var walk func(cs []*argv.Command)
	walk = func(cs []*argv.Command) {
		for _, c := range cs {
			all = append(all, c)
			walk(c.Subs)
		}
	}
	walk(append(All(), Netcat, Script))
	for _, r := range runners {
		all = append(all, r.Cmd)
	}
	for _, c := range all {
		for _, e := range c.Examples {
			n++
			args := strings.Fields(e.Args)
			got := c.FirstUnknown(len(args), func(i int) (string, bool) { return args[i], false })
			if got != e.Unknown {
				t.Errorf("%s %s: unknown flag %q, want %q", c.Name, e.Args, got, e.Unknown)
			}
		}
	}
	if n < 100 {
		t.Errorf("only %d examples", n)
	}
}

// TestReaderIndex checks that each reader is declared once and found by
// its name.
func TestReaderIndex(t *testing.T) {
	for _, c := range readers {
		if Reader(c.Name) != c {
			t.Errorf("%s: not found", c.Name)
		}
	}
	if Reader("rm") != nil || FileToolOf("rm") == nil || FileToolOf("cat") != nil {
		t.Error("rm is a file tool, not a reader")
	}
}

// TestLookup checks that every declaration is found by its name, and a
// program the table lacks is not.
func TestLookup(t *testing.T) {
	for _, c := range All() {
		if Lookup(c.Name) != c {
			t.Errorf("%s: not found", c.Name)
		}
	}
	if Lookup("frobnicate") != nil || Lookup("git").Sub("push") != nil {
		t.Error("frobnicate and git push are not declared")
	}
	if Lookup("mkfs.ext4") != mkfs || Lookup("newfs_msdos") != newfs || Lookup("mk") != nil {
		t.Error("a prefix family's member is found as the family")
	}
}

// TestRunnerProgram checks where a runner's own flags end and the program
// it runs begins.
func TestRunnerProgram(t *testing.T) {
	cases := []struct {
		runner, args string
		prog         int
		unknown      string
	}{
		{"arch", "", 0, ""},
		{"arch", "-arm64 /bin/rm -rf ~", 1, ""},
		{"arch", "rm -rf ~", 0, ""},
		{"arch", "-arch x86_64 -e A=1 -d B cat f", 6, ""},
		{"arch", "-64 -- rm -rf /", 2, ""},
		{"arch", "-64 -d FOO -e A=1 sh -c x", 5, ""},
		{"arch", "-zz rm", 1, "-z"},
		{"setarch", "x86_64 -R rm -rf ~", 2, ""},
		{"setarch", "x86_64", 1, ""},
		{"setarch", "x86_64 -- rm", 2, ""},
		{"linux32", "--addr-no rm", 1, ""},
		{"linux64", "", 0, ""},
	}
	for _, c := range cases {
		r := RunnerOf(c.runner)
		args := strings.Fields(c.args)
		prog, unknown := r.Program(len(args), func(i int) (string, bool) { return args[i], false })
		if prog != c.prog || unknown != c.unknown {
			t.Errorf("%s %s: program at %d (unknown %q), want %d (%q)", c.runner, c.args, prog, unknown, c.prog, c.unknown)
		}
	}
	if RunnerOf("ls") != nil {
		t.Error("ls runs no program")
	}
}

// TestHelpWords checks the help table: the listed programs' help and
// version words, and programs or words that must not count (a program
// that may run a file named --help, a word that is an operand).
func TestHelpWords(t *testing.T) {
	cases := []struct {
		name, word string
		want       bool
	}{
		{"git", "--version", true}, {"node", "--help", true}, {"node", "-v", true}, {"bash", "--version", true},
		{"ssh", "-V", true}, {"python3", "-V", true}, {"terraform", "-version", true}, {"terraform", "--help", true},
		{"java", "-version", true}, {"env", "--help", true},
		{"ssh", "-v", false}, {"bash", "-c", false}, {"node", "-e", false}, {"python3", "script.py", false},
		{"tclsh", "--help", false}, {"pwsh", "--help", false}, {"nohup", "--help", false}, {"proxychains4", "--help", false},
		{"pytest", "--help", false}, {"mix", "--help", false}, {"hg", "--version", false}, {"mvnw", "--version", false},
		{"sudo", "--help", false}, {"mkfs", "--help", false}, {"reboot", "--help", false}, {"unzip", "--help", false},
	}
	for _, c := range cases {
		if got := HelpWord(c.name, c.word); got != c.want {
			t.Errorf("HelpWord(%s, %s) = %v, want %v", c.name, c.word, got, c.want)
		}
	}
}

// TestHelpSubcommands checks how many words name subcommands before a
// tool's help words: one, two under a group, none for an operand-taking
// position the table does not know (docker run alpine --help).
func TestHelpSubcommands(t *testing.T) {
	cases := []struct {
		name, args string
		want       int
	}{
		{"docker", "run --help", 1}, {"docker", "compose up", 2}, {"gh", "pr create", 2}, {"git", "commit --help", 1},
		{"docker", "run alpine", 1}, {"docker", "--help", 0}, {"go", "test --help", 0}, {"yarn", "build --help", 0},
		{"docker", "-H x", 0}, {"npm", "Install --help", 0},
	}
	for _, c := range cases {
		if got := HelpSubcommands(c.name, strings.Fields(c.args)); got != c.want {
			t.Errorf("HelpSubcommands(%s, %s) = %d, want %d", c.name, c.args, got, c.want)
		}
	}
}

// TestFileToolFlags checks what the gate reads of a file tool's flags:
// the spellings that take a value, and the flags whose value it writes.
func TestFileToolFlags(t *testing.T) {
	patch := FileToolOf("patch")
	for _, n := range []string{"-o", "--output", "-d", "--directory", "-i", "-p", "-F"} {
		if !patch.ValueFlags()[n] {
			t.Errorf("patch %s takes a value", n)
		}
	}
	if patch.ValueFlags()["-R"] {
		t.Error("patch -R takes none")
	}
	want := []FileFlag{{'i', "--input", argv.Read}, {'o', "--output", argv.Write}, {'d', "--directory", argv.Write}, {'r', "--reject-file", argv.Write}}
	if got := patch.FileFlags(); !slices.Equal(got, want) {
		t.Errorf("patch's file flags %v, want %v", got, want)
	}
	if FileToolOf("install").ValueFlags()["-m"] != true || FileToolOf("cp").ValueFlags()["-m"] {
		t.Error("install -m takes a value, cp has no -m")
	}
}

// TestNetcatNames checks the netcat family's names and Debian's renamed
// binaries.
func TestNetcatNames(t *testing.T) {
	if NetcatOf("ncat") != Netcat || NetcatOf("netcat") != Netcat || NetcatOf("socat") != nil {
		t.Error("ncat and netcat are netcats, socat is not")
	}
	if p, ok := Renamed("netcat.openbsd"); p != "nc" || !ok {
		t.Errorf("netcat.openbsd is %q, %v; want nc", p, ok)
	}
	if _, ok := Renamed("nc"); ok {
		t.Error("nc is its own name")
	}
}
