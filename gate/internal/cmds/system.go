package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The programs whose words a hook of the gate's reads (gate/hooks_other.go)
// that are neither secret stores nor archivers: a file server, the power
// switches, man, and two text tools that write files. None is known-safe
// but man looking a page up and their help.

// hookCmd is a program whose words the gate's hook named hook reads.
func hookCmd(name, hook string, f []argv.Flag, ex ...argv.Example) *argv.Command {
	return &argv.Command{Name: name, Flags: f, Hook: hook, Examples: ex}
}

// leadFlag is c whose flags are its first word only (argv.Command.LeadFlag).
func leadFlag(c *argv.Command) *argv.Command { c.LeadFlag = true; return c }

// withHook names the hook that reads c's words, and gives its examples.
func withHook(hook string, c *argv.Command, ex ...argv.Example) *argv.Command {
	c.Hook = hook
	return examples(c, ex...)
}

// hookedTool names the hook that reads t's words.
func hookedTool(hook string, t *Tool) *Tool { t.Hook = hook; return t }

// examples gives c the examples ex.
func examples(c *argv.Command, ex ...argv.Example) *argv.Command {
	c.Examples = append(c.Examples, ex...)
	return c
}

// powerFlags are the flags of shutdown, reboot, poweroff and halt
// (systemd's, sysvinit's and BSD's together).
var powerFlags = flags("-h -H --halt -P -p --poweroff -r --reboot -k -c -f --force -w --wtmp-only -d --no-wtmp -n --no-sync "+
	"--no-wall -q -i", "", "")

// pgDropFlags are the flags of PostgreSQL's dropdb and dropuser.
var pgDropFlags = flags("-e --echo -f --force -i --interactive --if-exists -w --no-password -W --password -V",
	"-h --host -p --port -U --username --maintenance-db", "")

var systemCmds = []*argv.Command{
	// Apache httpd serves a directory, .env included, whatever its flags
	hookCmd("httpd", "file-server", flags("-X -S -t -v -V -l -L -M -h", "-d -f -C -c -D -e -E -k", ""),
		want("-X", "human human.file-server"), want("-v", "human human.file-server")),
	hookCmd("shutdown", "power-off", powerFlags, want("-h now", "human human.teardown"), want("-r +5", "human human.teardown")),
	hookCmd("reboot", "power-off", powerFlags, want("", "human human.teardown"), want("-f", "human human.teardown")),
	hookCmd("poweroff", "power-off", powerFlags, want("", "human human.teardown")),
	hookCmd("halt", "power-off", powerFlags, want("-p", "human human.teardown")),
	// man looks pages up and searches them; -P and -H run a program, -l
	// and a path show a local file (the hook decides which only look up)
	withHook("man", gnu("man", with(flags("-k --apropos -f --whatis -w --where --path -a --all -l --local-file", "-M --manpath -S -s --sections -L --locale", "-H --html"),
		runs("-P --pager"), reads("-C --config-file")),
		want("ls", "allow"), want("-k socket", "allow"), want("1 printf", "allow"), want("-P cat ls", "ask ask.flag"), want("./ls.1", "ask"))),
	// kill signals processes: kill -1 every one the user may signal. Its
	// signal (-9, -TERM, -s KILL) is its first word only: the words
	// after are pids, -1 among them (LeadFlag)
	leadFlag(numeric(hookCmd("kill", "kill", flags("-l -L --list --table", "-n -s --signal", ""),
		want("-9 1234", "ask"), want("-9 -1", "human human.teardown"), want("-s TERM 1234", "ask"), want("-s KILL -1", "human human.teardown"),
		want("-- -1", "human human.teardown"), want("-1", "ask"), want("-s -1 1234", "ask"), want("1234 -1", "human human.teardown")))),
	// crontab -l alone lists the user's jobs; any other form installs or
	// edits them, or another user's
	hookCmd("crontab", "crontab", flags("-l -e -r -i -n -c -T -V", "-u -s", ""),
		want("-l", "allow"), want("-e", "human human.persistence-write"), want("-u root -l", "human human.persistence-write")),
	// ss lists sockets with its letter switches; -K kills the ones its
	// filter matches
	hookCmd("ss", "sockets", with(flags("-l --listening -t --tcp -u --udp -a --all -n --numeric -p --processes -x --unix -w --raw "+
		"-4 --ipv4 -6 --ipv6 -e --extended -i --info -m --memory -s --summary -r --resolve -H --no-header -O --oneline -o --options "+
		"-E --events -Z --context -z --contexts -b --bpf -d --dccp -S --sctp -0 --packet -M --mptcp -T --threads --vsock --tipc -V",
		"-f --family -A --query --socket -D --diag -F --filter -N --net", ""), notSafe("-K --kill", argv.None)),
		want("-ltnp", "allow"), want("-K dst 10.0.0.1", "ask")),
	// PostgreSQL's dropdb and dropuser drop what they name
	hookCmd("dropdb", "drop-db", pgDropFlags, want("app", "human human.teardown"), want("--if-exists -h db.local app", "human human.teardown")),
	hookCmd("dropuser", "drop-db", pgDropFlags, want("bob", "human human.teardown")),
	// sponge soaks up stdin and writes it to its operand (-a appends)
	hookCmd("sponge", "sponge", flags("-a", "", ""), want("out.txt", "ask ask.write"), want("-a log.txt", "ask ask.write")),
	// split writes its input's pieces to PREFIXaa…, or feeds each to the
	// command of --filter
	withHook("split", gnu("split", with(flags("-d -x -e --elide-empty-files -u --unbuffered --verbose",
		"-a --suffix-length -b --bytes -C --line-bytes -l --lines -n --number -t --separator --additional-suffix",
		"--numeric-suffixes --hex-suffixes"), runs("--filter")),
		want("-l 100 big.txt part.", "ask ask.write"), want("--filter='wc -l' big.txt", "ask"))),
}

// senderTools are the peer-to-peer file senders: the files they send go
// to whoever holds the code they print (Uploads).
var senderTools = []*Tool{
	{Name: "croc", Uploads: []string{"send"}, Examples: []argv.Example{want("send .env", "deny floor.exfil")},
		Cmd: sender(examples(tool("croc", flags("--yes --debug --no-compress --overwrite --ask --classic --local --internal-dns --ignore-stdin",
			"--relay --relay6 --pass --curve --ip --out --socks5 --connect --throttleUpload", ""),
			sub("send", flags("--zip --no-local --git --exclude", "-c --code --hash --text --transfers --multicast --port", ""))),
			want("send notes.txt", "ask"), want("--version", "allow")))},
	{Name: "wormhole", Uploads: []string{"send"}, Examples: []argv.Example{want("send .env", "deny floor.exfil")},
		Cmd: sender(examples(tool("wormhole", flags("--verify --hide-progress --dump-timing", "--relay-url --transit-helper --appid", ""),
			sub("send", flags("--hide-progress --no-qr --ignore-unsendable-files", "--text --code -c --code-length", "")),
			sub("receive", flags("--accept-file --only-text --hide-progress", "-o --output-file", ""))),
			want("send notes.txt", "ask"), want("receive", "ask")))},
}

// sender is c of class Sender.
func sender(c *argv.Command) *argv.Command { c.Class = argv.Sender; return c }

// debuggers run the commands and programs they are given (lldb's entry
// is in sessions.go).
var debuggers = []*argv.Command{Lldb}

// openerTools hand their operand to the desktop's default application
// (Opens): a URL goes to the browser, which fetches it; an app or a
// script runs (human-only, gate/subcmds.go's opensApp).
var openerTools = []*Tool{
	desktopOpener("open", want("-a Safari", "human human.system-write")), desktopOpener("xdg-open"),
	{Name: "gio", Opens: []string{"open"}, Examples: []argv.Example{want("open https://x.test", "human human.system-write")}},
	desktopOpener("wslview"), desktopOpener("sensible-browser"), desktopOpener("x-www-browser"), desktopOpener("www-browser"),
	desktopOpener("gnome-open"), desktopOpener("kde-open"), desktopOpener("kde-open5"),
}

// desktopOpener is an opener whose every call opens its operand.
func desktopOpener(name string, ex ...argv.Example) *Tool {
	return &Tool{Name: name, Opens: []string{""}, Examples: append([]argv.Example{want("https://x.test", "human human.system-write")}, ex...)}
}

// systemTools change the kernel's or the machine's settings in the forms
// their entries give (Configures; -f: BSD and macOS load a file, like -p).
var systemTools = []*Tool{
	// sysctl only prints: -w, -p/--load, --system and BSD -f (which write kernel
	// settings) are left out; NAME=VALUE writes too (the sysctl hook)
	{Name: "sysctl", Configures: []string{"-w|--write|-p|--load|--system|-f"},
		Cmd: asData(withHook("sysctl", gnu("sysctl", flags("-a -A -X --all -b --binary -e --ignore -N --names -n --values -q --quiet -o -x -d -h -i", "-r --pattern", ""),
			ex("-n hw.ncpu", ""), ex("-a", ""), ex("-w vm.swappiness=10", "-w"), ex("-p", "-p"), ex("--system", "--system"),
			want("vm.swappiness=10", "human human.system-write"))))[0],
		Examples: []argv.Example{want("-p", "human human.persistence-write"), want("--system", "human human.persistence-write"), want("-a", "allow")}},
}
