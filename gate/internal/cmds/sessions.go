package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// Script is script(1), util-linux's and BSD/macOS's flags together: its
// first operand is the typescript it writes; on BSD the operands after it
// are the command it runs (script -q /dev/null CMD ARGS).
var Script = &argv.Command{Name: "script", Abbrev: true,
	Flags: flags("-a --append -e --return -f --flush -q --quiet -k -F -r -d -p -w", "-c --command -E --echo -I --log-in -O --log-out "+
		"-B --log-io -T --log-timing -m --logging-format -o --output-limit -t", "--timing"),
	Examples: []argv.Example{ex("-q /dev/null make", ""), ex("-qc 'make test' build.log", ""), ex("--log-out=o.log", ""),
		ex("-a -t 0 log.txt", ""), ex("-z x", "-z")}}

// Lldb is lldb's command line: -o/-O/-k/-K run lldb commands, -s/-S/-K
// source files of them, the first operand (or the words after --) is the
// program to debug, which run or process launch starts.
var Lldb = &argv.Command{Name: "lldb", Hook: "lldb",
	Flags: flags("-b --batch -Q --source-quietly -x --no-lldbinit -X --no-use-colors -v --version -h --help -w --wait-for "+
		"-P --python-path -r --repl --debug -e --editor",
		"-o --one-line -O --one-line-before-file -k --one-line-on-crash -s --source -S --source-before-file "+
			"-K --source-on-crash -f --file -a --arch -c --core -p --attach-pid -n --attach-name -l --script-language "+
			"--one-line-on-crash --source-on-crash", ""),
	Examples: []argv.Example{ex("-o 'platform shell ls' -o quit", ""), ex("--batch -o run -- /bin/ls -l", ""),
		ex("-p 123", ""), ex("-Z", "-Z"), want("./a.out", "ask ask.interpreter")}}
