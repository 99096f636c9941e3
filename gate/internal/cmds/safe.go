package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The known-safe programs and subcommand forms the gate's code decides
// (info printers, searches, git's and the package tools' queries), with
// their flags. The code says what a call does; the table says which flags
// exist: a call the code finds known-safe with a flag the table lacks
// asks (SPEC §5.1), because that flag may write or run something (rg
// --pre runs a program, git log --output writes, yq -i edits in place).
// Flags that write or run are left out on purpose, so they ask even where
// the code has no arm for them.

// sub is a subcommand entry.
func sub(name string, f []argv.Flag, ex ...argv.Example) *argv.Command {
	return &argv.Command{Name: name, Flags: f, Abbrev: true, Examples: ex}
}

// tool is a program with subcommands: its global flags end at the
// subcommand's name.
func tool(name string, global []argv.Flag, subs ...*argv.Command) *argv.Command {
	return &argv.Command{Name: name, Flags: global, Abbrev: true, StopAtOperand: true, Subs: subs}
}

// info are programs that print facts about the system or the
// environment, list an archive, or only format: each decided by the
// gate's code (the programs whose words are data are in core.go, tee in
// files.go).
var info = []*argv.Command{
	{Name: "printenv", Class: argv.Environ, Abbrev: true, Flags: flags("-0 --null", "", ""), Examples: []argv.Example{ex("HOME", "")}},
	// envsubst copies stdin with $NAME replaced by its value; -v only
	// lists the names a format holds
	{Name: "envsubst", Class: argv.Environ, Abbrev: true, Flags: flags("-v --variables -h --help -V --version", "", ""),
		Examples: []argv.Example{ex("'$PORT'", ""), ex("-v '$A'", ""), ex("-x", "-x")}},
	// zipinfo lists an archive's members (its later operands name members)
	{Name: "zipinfo", Hook: "zipinfo", Flags: flags("-1 -2 -s -m -l -v -h -M -t -T -z", "-x", ""),
		Examples: []argv.Example{want("-1 a.zip", "allow"), want("-1 /home/u/.ssh/keys.zip", "human human.sensitive-read")}},
	// gofmt -w rewrites its files, -cpuprofile writes one; -l -d -s print
	{Name: "gofmt", Hook: "gofmt", Flags: flags("-d -e -l -s -w", "-r -cpuprofile", ""),
		Examples: []argv.Example{want("-l .", "allow"), want("-w main.go", "ask")}},
	// Info-ZIP unzip: -l -v -t -z list, test or print the comment (the
	// code decides which forms only read)
	{Name: "unzip", Hook: "unzip", Numeric: true, Flags: flags("-l -v -t -z -T -p -c -f -u -j -n -o -q -qq -a -aa -b -C -D -K -L -M -N -s -U -V -W -X -Y -$ -: -^ -Z -1 -2 -h",
		"-d -x -O -I -P", ""), Examples: []argv.Example{ex("-l a.zip", ""), ex("-qq -t a.zip", ""), ex("-G a.zip", "-G")}},
	withHook("gunzip", gnu("gunzip", flags(zcats+" -k --keep --synchronous --rsyncable --fast --best -1 -2 -3 -4 -5 -6 -7 -8 -9", "-S --suffix", ""),
		ex("-l a.gz", ""), ex("-t a.gz", ""), ex("--zz a.gz", "--zz"))),
	// macOS launchctl: list and print only show the services; load and
	// bootstrap install one, reboot stops the machine (its hook)
	withHook("service", tool("launchctl", flags("", "", ""), sub("list", flags("-x", "", "")), sub("print", flags("", "", "")), sub("print-disabled", flags("", "", "")))),
}
