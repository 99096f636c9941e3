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
	opener("code", ex("-g main.go:10", "")), opener("subl", ex("main.go", "")), opener("hx", ex("main.go", "")),
	opener("kak", ex("main.go", "")), opener("mcedit", ex("main.go", "")), opener("joe", ex("main.go", "")),
}

// editors are the programs that edit files by a script or commands the
// gate reads (hooks named by their entries).
var editors = []*argv.Command{
	// Codex's apply_patch: its argument, or its stdin, is a patch, whose
	// files it writes
	{Name: "apply_patch", Hook: "apply_patch", Examples: []argv.Example{want("x", "ask ask.bad-input")}},
	{Name: "applypatch", Hook: "apply_patch", Examples: []argv.Example{want("x", "ask ask.bad-input")}},
}
