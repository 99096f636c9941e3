package scripts

import (
	"regexp"
	"strings"
	"sync"
)

// ExKind is what one ex (vi, vim, ed) command does.
type ExKind uint8

const (
	ExOther    ExKind = iota // nothing the gate looks at (set nu, %s/a/b/)
	ExCode                   // runs Lang code Arg: lua, py3, perl, ruby, …
	ExExecute                // exe/normal: its string literals are ex commands
	ExTerminal               // :terminal CMD runs CMD
	ExShell                  // !CMD, %!CMD, r !CMD, w !CMD run CMD
	ExSubshell               // :sh starts an interactive shell
	ExWrite                  // w FILE, saveas FILE, wq FILE, … write FILE
	ExRead                   // r FILE, e FILE, so FILE, luafile FILE, … read FILE
)

// Ex is one ex command read.
type Ex struct {
	Line string // the command without its colon, silent! and range
	Kind ExKind
	Lang string // ExCode's language, by the name the gate's inline reader knows
	Arg  string // the code, command or file
}

// exRE is a regular expression compiled when first used.
func exRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

var (
	exSilentRe = exRE(`^sil(?:ent)?!?\s*`)
	exRangeRe  = exRE(`^(?:[%.$,;+\-]|\d+|'[a-z<>])+!`)
	exCodeRe   = exRE(`^(lua|luado|py3?|python3?|pyx|pythonx|py3?do|perl|perldo|ruby|rubydo|mz|mzscheme|tcl|tcldo)\s+(.*)`)
	exExeRe    = exRE(`^(exe|exec|execute|norm|normal)!?\s`)
	exTermRe   = exRE(`^ter(?:m|mi|min|mina|minal)?!?\s+(?:\+\+\S+\s+)*(.*)`)
	// vimWriteRe matches an ex command that writes a file: w[rite][!]
	// FILE, sav[eas], wq, x, up[date].
	vimWriteRe = exRE(`^(w|write|sav|saveas|wq|x|xit|up|update|wa)!?\s+(\S+)`)
)

// exLangs are the languages of the ex code commands, by first letter.
var exLangs = map[byte]string{'l': "lua", 'p': "python", 'r': "ruby", 'm': "racket", 't': "tclsh"}

// ExCommand reads one ex command: a colon, silent[!] and a range before a
// filter (%!CMD) are dropped from it first.
//
//	ExCommand(":%!sort")        → Line !sort, ExShell sort
//	ExCommand("py3 import os")  → ExCode python "import os"
//	ExCommand("w! /tmp/out")    → ExWrite /tmp/out
func ExCommand(c string) Ex {
	c = strings.TrimLeft(c, ": \t")
	c = exSilentRe().ReplaceAllString(c, "")
	if m := exRangeRe().FindString(c); m != "" {
		c = c[len(m)-1:] // %!CMD filters the lines through CMD
	}
	x := Ex{Line: c}
	switch m := exCodeRe().FindStringSubmatch(c); {
	case m != nil:
		x.Kind, x.Lang, x.Arg = ExCode, exLangs[m[1][0]], m[2]
		if strings.HasPrefix(m[1], "perl") {
			x.Lang = "perl"
		}
	case exExeRe().MatchString(c):
		x.Kind = ExExecute
	case exTermRe().MatchString(c):
		x.Kind, x.Arg = ExTerminal, exTermRe().FindStringSubmatch(c)[1]
	case strings.HasPrefix(c, "!"):
		x.Kind, x.Arg = ExShell, c[1:]
	case strings.HasPrefix(c, "r !") || strings.HasPrefix(c, "r!") || strings.HasPrefix(c, "w !"):
		// r !CMD reads a command's output, w !CMD pipes the buffer to it
		x.Kind, x.Arg = ExShell, c[strings.IndexByte(c, '!')+1:]
	case strings.HasPrefix(c, "sh"):
		x.Kind = ExSubshell
	case vimWriteRe().MatchString(c):
		x.Kind, x.Arg = ExWrite, vimWriteRe().FindStringSubmatch(c)[2]
	case strings.HasPrefix(c, "r ") || strings.HasPrefix(c, "e ") || strings.HasPrefix(c, "so ") ||
		strings.HasPrefix(c, "luafile ") || strings.HasPrefix(c, "pyfile ") || strings.HasPrefix(c, "py3file "):
		x.Kind, x.Arg = ExRead, strings.TrimSpace(c[strings.IndexByte(c, ' '):])
	}
	return x
}

// gdbCode are the gdb commands whose operand is code, and its language
// (the name the gate's inline reader knows it by).
var gdbCode = map[string]string{"python": "python", "py": "python", "python-interactive": "python", "pi": "python",
	"call": "gdb", "print": "gdb", "p": "gdb", "output": "gdb", "guile": "guile", "gu": "guile"}

// GdbCmd is one gdb command read.
type GdbCmd struct {
	Lang, Code string // code it runs, and its language: python, gdb (C in the debugged process), guile
	Runs       bool   // it runs the shell command Run
	Run        string
	// Write is a file it writes: dump/append … memory|value FILE, set
	// logging file FILE
	Write string
}

// Gdb reads one gdb command: python CODE runs Python in gdb, call and
// print evaluate C in the debugged process (call system("…")), guile runs
// Scheme; shell CMD, !CMD and pipe … | CMD run a shell command.
//
//	Gdb("shell id")             → Runs "id"
//	Gdb(`call system("id")`)    → Lang gdb, Code system("id")
func Gdb(c string) GdbCmd {
	c = strings.TrimSpace(c)
	if verb, code, _ := strings.Cut(c, " "); gdbCode[verb] != "" {
		return GdbCmd{Lang: gdbCode[verb], Code: code}
	}
	if f := gdbWrites(strings.Fields(c)); f != "" {
		return GdbCmd{Write: f}
	}
	switch {
	case strings.HasPrefix(c, "!"):
		return GdbCmd{Runs: true, Run: c[1:]}
	case strings.HasPrefix(c, "shell "):
		return GdbCmd{Runs: true, Run: c[6:]}
	case strings.HasPrefix(c, "pipe ") || strings.HasPrefix(c, "| "):
		if j := strings.LastIndexByte(c, '|'); j > 0 {
			return GdbCmd{Runs: true, Run: c[j+1:]}
		}
	}
	return GdbCmd{}
}

// gdbWrites is the file a gdb command writes, "" for none: dump and
// append [FORMAT] memory|value FILE …, set logging file FILE.
func gdbWrites(fs []string) string {
	switch {
	case len(fs) >= 4 && fs[0] == "set" && fs[1] == "logging" && fs[2] == "file":
		return fs[3]
	case len(fs) >= 3 && (fs[0] == "dump" || fs[0] == "append"):
		for i, w := range fs[1 : len(fs)-1] {
			if w == "memory" || w == "value" {
				return fs[i+2]
			}
		}
	}
	return ""
}
