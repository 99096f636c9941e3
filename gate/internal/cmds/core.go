package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The core programs touch no files: their words are data, never paths
// (argv.Data). They print facts about the system, the shell or their
// words. What a flag or an operand does is in its entry (date -s is not
// safe, ps e shows the environment, hostname NAME sets the name), and so
// is what a program prints of its words (its Output); sysctl NAME=VALUE
// is its hook's, jobs -x the builtins'.

// asData marks each program's words as data.
func asData(cs ...*argv.Command) []*argv.Command {
	for _, c := range cs {
		c.Class = argv.Data
	}
	return cs
}

// prints marks what a program prints that the gate can tell: a place
// (argv.WorkDir, Dirs), its words (Echoed, Formatted), or what its status
// tells of them (Status, Answer).
func prints(o argv.Output, c *argv.Command) *argv.Command { c.Output = o; return c }

// locates is c that prints where a program is with one of flags (argv.Command's Locates).
func locates(c *argv.Command, flags ...string) *argv.Command { c.Locates = flags; return c }

// shellWords are builtins and programs whose words are the shell's data:
// a word the table does not declare is read by the gate's code, not asked
// about (echo -x prints -x; test -nt compares).
func shellWords(name string, f []argv.Flag, ex ...argv.Example) *argv.Command {
	return &argv.Command{Name: name, Flags: f, Examples: ex, Unknown: argv.Words}
}

// testOperators are test's and ['s unary and binary operators.
const testOperators = "-b -c -d -e -f -g -h -L -k -p -r -s -S -t -u -w -x -O -G -N -z -n -a -o -v -R " +
	"-ef -nt -ot -eq -ne -lt -le -gt -ge"

// settles marks a program whose operands set what it prints (date TIME
// sets the clock) unless they are formats (date +FORMAT).
func settles(c *argv.Command) *argv.Command {
	c.OperandEffect, c.FormatPrefix = argv.NotSafe, '+'
	return c
}

// core are the programs whose words are data.
var core = asData(
	prints(argv.Echoed, shellWords("echo", flags("-n -e -E", "", ""), want("-n hello", "allow"), ex("-e 'a\\tb'", ""),
		want("$GITHUB_TOKEN", "human human.env-dump"))),
	prints(argv.Formatted, shellWords("printf", with(flags("", "", ""), sets("-v")), ex("'%s\\n' x", ""), ex("-v out %s x", ""),
		want("'%s' \"$AWS_SECRET_ACCESS_KEY\"", "human human.env-dump"))),
	prints(argv.WorkDir, shellWords("pwd", flags("-L -P", "", ""), want("-P", "allow"))),
	shownCommand(shellWords("true", flags("", "", "")), ""),
	shellWords("false", flags("", "", "")),
	shownCommand(shellWords(":", flags("", "", ""), ex("x y", "")), ""),
	&argv.Command{Name: "test", Output: argv.Answer, OneDash: true, Unknown: argv.Words, State: argv.TestsVars, Flags: flags(testOperators, "", ""),
		Examples: []argv.Example{want("-f go.mod", "allow"), ex("a -nt b", ""), ex("-z x -o -n y", "")}},
	&argv.Command{Name: "[", Output: argv.Answer, OneDash: true, Unknown: argv.Words, State: argv.TestsVars, Flags: flags(testOperators, "", ""),
		Examples: []argv.Example{ex("-d src ]", ""), ex("1 -lt 2 ]", "")}},
	prints(argv.Answer, shellWords("expr", flags("", "", ""), want("1 + 2", "allow"), ex("length abc", ""),
		want("\"$API_TOKEN\" : 'a'", "human human.env-dump"))),
	locates(shellWords("type", flags("-a -f -p -P -t", "", ""), ex("-t ls", "")), "-p", "-P"),
	shellWords("wait", flags("-n -f", "-p", ""), ex("-n", "")),
	withState(argv.ReadsLine, shellWords("read", flags("-e -r -s", "-a -d -i -n -N -p -t -u", ""), ex("-r line", ""), ex("-p name: n", ""))),
	withState(argv.MovesArgs, shellWords("shift", flags("", "", ""), ex("2", ""))),
	withState(argv.UnsetsVars, shellWords("unset", flags("-f -v -n", "", ""), ex("-v X", ""))),
	prints(argv.Status, shellWords("exit", flags("", "", ""), ex("1", ""))),
	prints(argv.Status, shellWords("return", flags("", "", ""), ex("0", ""))),
	// jobs -x runs a command: the gate's code reads it before this entry
	shellWords("jobs", flags("-l -n -p -r -s", "", ""), ex("-l", "")),
	shellWords("dirs", flags("-c -l -p -v", "", ""), ex("-v", "")),
	gnu("sleep", flags("", "", "")),
	gnu("basename", flags("-a --multiple -z --zero", "-s --suffix", "")),
	prints(argv.Dirs, gnu("dirname", flags("-z --zero", "", ""))),
	&argv.Command{Name: "cal", Numeric: true, Flags: flags("-1 -3 -h -j -m -s -w -y -Y --monday --sunday --julian --year --twelve --week --vertical", "-A -B -n --months --span --color", "")},
	gnu("clear", flags("-x", "-T", "")),
	// date -s sets the clock; -f FILE reads dates from FILE, and its
	// error messages echo its lines (BSD's -f is an input format, read
	// the same way)
	// date TIME sets the clock (GNU's MMDDhhmm[[CC]YY][.ss], BSD's
	// [[[[[cc]yy]mm]dd]HH]MM[.ss]); date +FORMAT prints
	settles(gnu("date", with(flags("-u --utc --universal -R --rfc-email -j -n", "-d --date -r --reference -v", "-I --iso-8601 --rfc-3339 --debug"),
		notSafe("-s --set", argv.Value), argv.Flag{Names: "-f --file", Arity: argv.Value, Role: argv.Read, Effect: argv.NotSafe}),
		ex("+%s", ""), ex("-u +%Y-%m-%d", ""), ex("-Iseconds", ""), ex("-d yesterday", ""), want("-s 2020-01-01", "ask ask.unknown-command"),
		want("--set=2020-01-01", "ask ask.unknown-command"), want("-f dates.txt", "ask ask.unknown-command"),
		want("-uf.env", "human human.sensitive-read"), want("01010000", "ask ask.unknown-command"),
		want("-u 0101000020", "ask ask.unknown-command"), want("+%Y%m%d", "allow"))),
	gnu("factor", flags("-h --exponents", "", "")),
	gnu("free", flags("-b --bytes -k --kibi -m --mebi -g --gibi --tebi --pebi --kilo --mega --giga --tera --peta -h --human --si -l --lohi -t --total -v --committed -w --wide", "-c --count -s --seconds", "")),
	gnu("getconf", flags("-a --all", "-v", "")),
	gnu("groups", flags("", "", "")),
	// hostname NAME sets the host's name
	&argv.Command{Name: "hostname", Abbrev: true, OperandEffect: argv.NotSafe,
		Flags:    flags("-v --verbose -a --alias -A --all-fqdns -d --domain -f --fqdn --long -i --ip-address -I --all-ip-addresses -s --short -y --yp --nis -V", "", ""),
		Examples: []argv.Example{want("-f", "allow"), want("build-box", "ask ask.unknown-command")}},
	gnu("id", flags("-a -Z --context -g --group -G --groups -n --name -r --real -u --user -z --zero -p -P", "", "")),
	gnu("locale", flags("-a --all-locales -m --charmaps -c --category-name -k --keyword-name -v --verbose", "", "")),
	gnu("logname", flags("", "", "")),
	gnu("lsb_release", flags("-v --version -i --id -d --description -r --release -c --codename -a --all -s --short", "", "")),
	&argv.Command{Name: "lsof", Flags: flags("-? -a -b -C -h -l -n -N -O -P -R -t -U -v -V -X -w -Q -H", "-c -d -D -F -g -i -k -K -m -o -p -r -s -S -T -u -x -E -e +c +d +D +r", ""),
		Examples: []argv.Example{ex("-i :8080", ""), ex("-p 12", "")}},
	gnu("nproc", flags("--all", "--ignore", "")),
	gnu("numfmt", flags("-z --zero-terminated --grouping --header --debug", "-d --delimiter --field --format --from --from-unit --invalid --padding --round --suffix --to --to-unit", "")),
	gnu("pgrep", flags("-c --count -f --full -i --ignore-case -l --list-name -a --list-full -n --newest -o --oldest -v --inverse -w --lightweight -x --exact -r --runstates --ns --nslist -A --ignore-ancestors -L --logpidfile", "-d --delimiter -g --pgroup -G --group -P --parent -s --session -t --terminal -u --euid -U --uid -F --pidfile --cgroup --env", ""),
		ex("-fl node", "")),
	// ps e (BSD) and macOS ps -E print every process's environment
	&argv.Command{Name: "ps", Numeric: true, Flags: with(flags("-A -a -d -e -f -F -H -j -l -L -m -M -N -T -V -w -x -y -c -h -r -v -S -X -Z "+
		"--cumulative --deselect --forest --headers --no-headers --info -ww",
		"-C -G -g -o -O -p -q -s -t -u -U -k --cols --columns --format --group --Group --lines --pid --ppid --quick-pid --rows --sid --sort --tty --user --User --width", ""),
		argv.Flag{Names: "e -E", Effect: argv.ShowsEnv}),
		Examples: []argv.Example{want("aux", "allow"), ex("-ef", ""), ex("-p 1 -o pid,cmd", ""), want("eww -p 1", "human human.env-dump"),
			want("-axE -o command", "human human.env-dump")}},
	// readlink -f, -e and -m print their operand's canonical path, realpath always
	gnu("readlink", with(flags("-n --no-newline -q --quiet -s --silent -v --verbose -z --zero", "", ""),
		argv.Flag{Names: "-f --canonicalize", Effect: argv.PrintsPath}, argv.Flag{Names: "-e --canonicalize-existing", Effect: argv.PrintsPath},
		argv.Flag{Names: "-m --canonicalize-missing", Effect: argv.PrintsPath})),
	prints(argv.Paths, gnu("realpath", flags("-e --canonicalize-existing -m --canonicalize-missing -L --logical -P --physical -q --quiet -s --strip --no-symlinks -z --zero -q", "--relative-to --relative-base", ""))),
	&argv.Command{Name: "seq", Abbrev: true, Flags: flags("-w --equal-width", "-f --format -s --separator -t", "")},
	gnu("sw_vers", flags("-productName -productVersion -buildVersion -productVersionExtra", "", "")),
	gnu("tput", flags("-S -V -x", "-T", "")),
	gnu("tty", flags("-s --silent --quiet", "", "")),
	gnu("uname", flags("-a --all -s --kernel-name -n --nodename -r --kernel-release -v --kernel-version -m --machine -p --processor -i --hardware-platform -o --operating-system", "", "")),
	gnu("uptime", flags("-p --pretty -s --since -r --raw", "", "")),
	gnu("users", flags("", "", "")),
	locates(gnu("whereis", flags("-b -m -s -u -l -g", "-B -M -S -f", "")), ""),
	locates(gnu("which", flags("-a -s --all --skip-alias --skip-functions --skip-dot --skip-tilde --show-dot --show-tilde --tty-only --read-alias --read-functions -i", "", "")), ""),
	gnu("whoami", flags("", "", "")),
	gnu("yes", flags("", "", "")),
	// --sysroot reads another tree's /proc and /sys: left out (lscpu, lsblk, lsmem)
	gnu("lscpu", flags("-a --all -b --online -c --offline -B --bytes -J --json -x --hex -y --physical -r --raw --output-all", "", "-e --extended -p --parse -C --caches --hierarchic"),
		ex("-J", ""), ex("-e=CPU,CORE", ""), ex("--extended", "")),
	gnu("lsblk", flags("-a --all -b --bytes -d --nodeps -D --discard -f --fs -J --json -l --list -m --perms -n --noheadings -O --output-all "+
		"-p --paths -P --pairs -r --raw -s --inverse -S --scsi -t --topology -T --tree -z --zoned -A --noempty -E --dedup -M --merge -N --nvme -v --virtio -y --shell",
		"-e --exclude -I --include -o --output -x --sort -w --width -Q --filter --highlight --ct --ct-filter --properties-by", ""),
		ex("-f", ""), ex("-o NAME,SIZE -J", "")),
	&argv.Command{Name: "lsusb", Flags: flags("-v --verbose -t --tree", "-s -d -D", ""), Examples: []argv.Example{ex("-t", ""), ex("-d 1d6b:0002 -v", "")}},
	// lspci -i, -p and -F read files of the caller's choosing (ID lists,
	// module maps, a dump) and echo their lines in errors: left out
	&argv.Command{Name: "lspci", Flags: flags("-m -mm -t -v -vv -vvv -k -x -xxx -xxxx -b -D -P -PP -n -nn -q -qq -Q -M -G -A", "-s -d -O -H", ""),
		Examples: []argv.Example{ex("-nnk", ""), ex("-vvv -s 00:02.0", ""), ex("-F dump.txt", "-F")}},
	gnu("lsmem", flags("-a --all -b --bytes -J --json -n --noheadings -P --pairs -r --raw -S --split --summary", "-o --output", "--summary")),
	// util-linux uuidgen and macOS's (-hdr); only prints new identifiers
	gnu("uuidgen", flags("-r --random -t --time -s --sha1 -m --md5 -x --hex -hdr -7 --time-v7", "-n --namespace -N --name -C --count", ""),
		ex("-r", ""), ex("--sha1 -n @dns -N example.com", "")),
	&argv.Command{Name: "vm_stat", Flags: flags("", "-c", ""), Examples: []argv.Example{ex("-c 3 1", "")}},
	&argv.Command{Name: "hostinfo", Flags: flags("", "", "")},
	// sysctl's entry is a tool's (system.go)
)
