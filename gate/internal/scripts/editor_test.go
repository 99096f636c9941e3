package scripts

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExCommand(t *testing.T) {
	cases := []struct {
		cmd  string
		want Ex
	}{
		{"set nu", Ex{Line: "set nu"}},
		{":%s/a/b/g", Ex{Line: "%s/a/b/g"}},
		{":!rm -rf ~", Ex{Line: "!rm -rf ~", Kind: ExShell, Arg: "rm -rf ~"}},
		{"%!sort", Ex{Line: "!sort", Kind: ExShell, Arg: "sort"}},
		{"silent! 1,$!tac", Ex{Line: "!tac", Kind: ExShell, Arg: "tac"}},
		{"r !curl x", Ex{Line: "r !curl x", Kind: ExShell, Arg: "curl x"}},
		{"w !sh", Ex{Line: "w !sh", Kind: ExShell, Arg: "sh"}},
		{"py3 import os", Ex{Line: "py3 import os", Kind: ExCode, Lang: "python", Arg: "import os"}},
		{"luado print(1)", Ex{Line: "luado print(1)", Kind: ExCode, Lang: "lua", Arg: "print(1)"}},
		{"perldo s/a/b/", Ex{Line: "perldo s/a/b/", Kind: ExCode, Lang: "perl", Arg: "s/a/b/"}},
		{"rubydo x", Ex{Line: "rubydo x", Kind: ExCode, Lang: "ruby", Arg: "x"}},
		{"mz (x)", Ex{Line: "mz (x)", Kind: ExCode, Lang: "racket", Arg: "(x)"}},
		{"tcl exec id", Ex{Line: "tcl exec id", Kind: ExCode, Lang: "tclsh", Arg: "exec id"}},
		{`exe "!id"`, Ex{Line: `exe "!id"`, Kind: ExExecute}},
		{"normal! gg", Ex{Line: "normal! gg", Kind: ExExecute}},
		{"term ++close ++rows=5 id", Ex{Line: "term ++close ++rows=5 id", Kind: ExTerminal, Arg: "id"}},
		{"sh", Ex{Line: "sh", Kind: ExSubshell}},
		{"w! /tmp/out", Ex{Line: "w! /tmp/out", Kind: ExWrite, Arg: "/tmp/out"}},
		{"saveas ~/.bashrc", Ex{Line: "saveas ~/.bashrc", Kind: ExWrite, Arg: "~/.bashrc"}},
		{"w", Ex{Line: "w"}},
		{"r .env", Ex{Line: "r .env", Kind: ExRead, Arg: ".env"}},
		{"so  x.vim ", Ex{Line: "so  x.vim ", Kind: ExRead, Arg: "x.vim"}},
		{"py3file x.py", Ex{Line: "py3file x.py", Kind: ExRead, Arg: "x.py"}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, ExCommand(c.cmd), c.cmd)
	}
}

func TestGdb(t *testing.T) {
	cases := []struct {
		cmd  string
		want GdbCmd
	}{
		{"break main", GdbCmd{}},
		{"shell id", GdbCmd{Runs: true, Run: "id"}},
		{" !rm -rf ~ ", GdbCmd{Runs: true, Run: "rm -rf ~"}},
		{"!", GdbCmd{Runs: true}},
		{"pipe info registers | sh -c id", GdbCmd{Runs: true, Run: " sh -c id"}},
		{"| bt | less", GdbCmd{Runs: true, Run: " less"}},
		{`call system("id")`, GdbCmd{Lang: "gdb", Code: `system("id")`}},
		{"py import os", GdbCmd{Lang: "python", Code: "import os"}},
		{"gu (system)", GdbCmd{Lang: "guile", Code: "(system)"}},
		{"dump binary memory ~/.bashrc 0x0 0x10", GdbCmd{Write: "~/.bashrc"}},
		{"append value out.bin x", GdbCmd{Write: "out.bin"}},
		{"set logging file gdb.txt", GdbCmd{Write: "gdb.txt"}},
		{"dump memory", GdbCmd{}},
		{"set logging on", GdbCmd{}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Gdb(c.cmd), c.cmd)
	}
}

// TestEditorPatternsCompile compiles every pattern built on first use.
func TestEditorPatternsCompile(t *testing.T) {
	for i, re := range []func() *regexp.Regexp{exSilentRe, exRangeRe, exCodeRe, exExeRe, exTermRe, vimWriteRe} {
		assert.NotNil(t, re(), "pattern %d", i)
	}
}

// FuzzEditor: the ex and gdb readers never panic, and what ExCommand
// finds an argument of is text of the command it read.
func FuzzEditor(f *testing.F) {
	for _, s := range []string{":%!sort", "silent! r !id", "py3 x", "term ++close id", "w! f", "shell id", "pipe a | b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, c string) {
		x := ExCommand(c)
		_ = Gdb(c)
		if x.Kind != ExOther && x.Kind != ExExecute && x.Kind != ExSubshell && !contains(x.Line, x.Arg) {
			t.Fatalf("%q: %+v: the argument is not in the line", c, x)
		}
	})
}

// contains says sub is text of s.
func contains(s, sub string) bool { return strings.Contains(s, sub) }
