package scripts

import (
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAwkSafe(t *testing.T) {
	cases := []struct {
		prog string
		safe bool
	}{
		{"{print $1}", true},
		{"NR>=10 && NR<=20", true},
		{"$1 == \"a\" || $2 > 3 {print}", true},
		{"{if ($3 > 5) print $1}", true},
		{"{print \"a > b | c\"}", true},
		{"{sum+=$3} END {print sum}", true},
		{"{print > \"out.txt\"}", false},
		{"{print $1 >> \"log\"}", false},
		{"{print | \"sh\"}", false},
		{"BEGIN{system(\"id\")}", false},
		{"{\"date\" | getline d}", false},
		{"BEGIN{for(k in ENVIRON) print k}", false},
		{"BEGIN{s=\"/inet/tcp/0/h/1\"}", false},
		{"/\"/ {system(\"id\")} /\"/", false},
		{"# \"\n{print $0 > \"x\"} # \"", false},
		{"/\"/ {print $1} /\"/", true},
		{"{print $1/2}", true},
		{"{print \"unterminated}", false},
	}
	for _, c := range cases {
		assert.Equal(t, c.safe, AwkSafe(c.prog), c.prog)
	}
}

func TestAwk(t *testing.T) {
	sh := func(name string) bool { return name == "sh" || name == "bash" }
	cases := []struct {
		prog string
		want AwkProgram
	}{
		{`BEGIN{system("rm x")}`, AwkProgram{Effects: Effects{Runs: []string{"rm x"}}, Literals: []string{"rm x"}}},
		// "CMD" | getline also reads as computed (| and then no literal):
		// the caller reads "date" twice, no stricter
		{`{"date" | getline d}`, AwkProgram{Effects: Effects{Runs: []string{"date"}}, Literals: []string{"date"},
			Computed: true, Joined: `{"date" | getline d}`}},
		{`{print | "sort -u"}`, AwkProgram{Effects: Effects{Runs: []string{"sort -u"}}, Literals: []string{"sort -u"}}},
		{`{print > "out.txt"}`, AwkProgram{Effects: Effects{Writes: []string{"out.txt"}}, Literals: []string{"out.txt"}}},
		{`{print $1 >> ("log")}`, AwkProgram{Effects: Effects{Writes: []string{"log"}}, Literals: []string{"log"}}},
		{`{getline line < ".env"}`, AwkProgram{Effects: Effects{Reads: []string{".env"}}, Literals: []string{".env"}}},
		// what is printed to a shell is its script
		{`BEGIN{print "rm -rf " "~" | "/bin/sh"}`, AwkProgram{Effects: Effects{Runs: []string{"/bin/sh", "rm -rf ~"}},
			Literals: []string{"rm -rf ", "~", "/bin/sh"}}},
		{`BEGIN{print "id" | "cat"}`, AwkProgram{Effects: Effects{Runs: []string{"cat"}}, Literals: []string{"id", "cat"}}},
		// a command built at run time: the literals, and the code to join them
		{`BEGIN{c = "r" "m x"; system(c)}`, AwkProgram{Literals: []string{"r", "m x"}, Computed: true,
			Joined: `BEGIN{c = "r" "m x"; system(c)}`}},
		// a program that does not lex: its literals only
		{`{print "unterminated}`, AwkProgram{Literals: []string{"unterminated}"}}},
		{`/"/ {system("id")} /"/`, AwkProgram{Effects: Effects{Runs: []string{"id"}}, Literals: []string{"id"}}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Awk(c.prog, sh), c.prog)
	}
}

func TestAwkMarkers(t *testing.T) {
	assert.True(t, AwkSocket(`BEGIN{s="/inet/tcp/0/h/1"}`))
	assert.False(t, AwkSocket(`{print "/etc/inetd"}`))
	for _, p := range []string{`BEGIN{print ENVIRON["HOME"]}`, `{print SYMTAB[v]}`, `{print PROCINFO["pid"]}`} {
		assert.True(t, AwkEnviron(p), p)
	}
	assert.False(t, AwkEnviron(`{print $1}`))
	assert.True(t, AwkInplace(`@include "inplace"; {sub(/a/, "b")} 1`))
	assert.True(t, AwkInplace(`@include"inplace.awk"`))
	assert.False(t, AwkInplace(`@include "lib"`))
}

// TestAwkPatternsCompile compiles every pattern built on first use: a bad
// one must fail here, not in the first call that needs it.
func TestAwkPatternsCompile(t *testing.T) {
	for i, re := range []func() *regexp.Regexp{awkCmdRe, awkOutRe, awkInRe, awkPrintShRe, awkLitRe, awkComputedCommand, awkIncludesInplace} {
		assert.NotNil(t, re(), "pattern %d", i)
	}
}

// FuzzAwk: the readers never panic, and a program AwkSafe passes names
// no socket, no environment and none of awk's ways to run a command.
func FuzzAwk(f *testing.F) {
	for _, s := range []string{`{print $1}`, `BEGIN{system("id")}`, `{print > "x"}`, `/"/ {print} /"/`, `{print $1/2}`, `BEGIN{c="r" "m"; system(c)}`} {
		f.Add(s)
	}
	sh := func(name string) bool { return path.Base(name) == "sh" }
	f.Fuzz(func(t *testing.T, prog string) {
		safe := AwkSafe(prog)
		_ = Awk(prog, sh)
		_ = AwkInplace(prog)
		if safe && (AwkSocket(prog) || AwkEnviron(prog) || strings.Contains(prog, "system") || strings.Contains(prog, "getline")) {
			t.Fatalf("AwkSafe(%q) passes a program that runs or opens something", prog)
		}
	})
}
