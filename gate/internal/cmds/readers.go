// Package cmds is the gate's table of programs: for each, what its flags
// are (every spelling, with the number of values each takes), read by the
// one parser in package argv. A program whose flags are declared here is
// known-safe only with flags the table has: an unknown flag may write or
// run something (BSD base64 -o FILE writes FILE), so the call asks.
package cmds

import (
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// flags builds a flag list: names take no value unless listed in vals
// (one value) or opt (a value only when attached). Each name is a flag of
// its own; names joined by | are one flag's synonyms (--color|--colour),
// so that a prefix of both is no ambiguity.
func flags(none, vals, opt string) []argv.Flag {
	out := make([]argv.Flag, 0, 4)
	out = each(out, none, argv.None)
	out = each(out, vals, argv.Value)
	out = each(out, opt, argv.Optional)
	return each(out, "--help --version", argv.None)
}

// each appends a flag of arity a for every name in names (space-separated;
// synonyms joined by |), told apart when the command is first parsed
// (argv.Flag.Each).
func each(out []argv.Flag, names string, a argv.Arity) []argv.Flag {
	if strings.TrimSpace(names) == "" {
		return out
	}
	return append(out, argv.Flag{Names: names, Arity: a, Each: true})
}

// with adds flags whose value is a file or program, or that make the call
// not known-safe, to a flag list.
func with(f []argv.Flag, more ...argv.Flag) []argv.Flag { return append(f, more...) }

// reads is a flag whose value is a file the program reads (diff --from-file).
func reads(names string) argv.Flag {
	return argv.Flag{Names: names, Arity: argv.Value, Role: argv.Read}
}

// readsNames is a flag whose value is a file naming the files the program
// reads (wc --files0-from).
func readsNames(names string) argv.Flag {
	return argv.Flag{Names: names, Arity: argv.Value, Role: argv.ReadNames}
}

// writes is a flag whose value is a file the program writes (sort -o).
func writes(names string) argv.Flag {
	return argv.Flag{Names: names, Arity: argv.Value, Role: argv.Write}
}

// runs is a flag whose value is a program the program runs (bat --pager).
func runs(names string) argv.Flag { return argv.Flag{Names: names, Arity: argv.Value, Role: argv.Run} }

// notSafe is a flag that makes the call not known-safe whatever its value
// (xxd -r reverses a dump into a file, file -C compiles a magic file).
func notSafe(names string, a argv.Arity) argv.Flag {
	return argv.Flag{Names: names, Arity: a, Effect: argv.NotSafe}
}

// ex is an example: args and the first unknown flag in them ("": none).
func ex(args, unknown string) argv.Example { return argv.Example{Args: args, Unknown: unknown} }

// want is an example with no unknown flag and the gate's answer for it
// (argv.Example.Want).
func want(args, answer string) argv.Example { return argv.Example{Args: args, Want: answer} }

// gnu is a GNU-style program: long options by unique prefix.
func gnu(name string, f []argv.Flag, ex ...argv.Example) *argv.Command {
	return &argv.Command{Name: name, Flags: f, Abbrev: true, Examples: ex}
}

const zcats = "-c --stdout -d --decompress --uncompress -f --force -l --list -n --no-name -N --name -q --quiet -r --recursive -t --test -v --verbose -L --license -V"

const xzcats = "-c --stdout -d --decompress -f --force -k --keep -q --quiet -v --verbose -Q --no-warn --single-stream --no-sparse -l --list -t --test -V"

const xzValues = "-F --format -T --threads -M --memlimit --memlimit-decompress"

const sums = "-b --binary -c --check -t --text --tag --untagged -z --zero --ignore-missing --quiet --status --strict -w --warn --base64 --raw --debug"

// filters marks what a program prints of the lines it reads
// (argv.Command.Filter).
func filters(f argv.Filter, c *argv.Command) *argv.Command { c.Filter = f; return c }

// dataOperands marks a program whose operands are data, never files
// (argv.Command.DataOperands).
func dataOperands(c *argv.Command) *argv.Command { c.DataOperands = true; return c }

// lists marks a reader that prints names and metadata (argv.Names).
func lists(c *argv.Command) *argv.Command { c.Output = argv.Names; return c }

// counts marks a reader that prints counts, sizes or types (argv.Counts).
func counts(c *argv.Command) *argv.Command { c.Output = argv.Counts; return c }

// readers are the read-only programs whose operands are files they read
// (package gate's readers set): cat … base64, each with its flags.
var readers = []*argv.Command{
	filters(argv.Copies, shownCommand(gnu("cat", flags("-A --show-all -b --number-nonblank -e -E --show-ends -n --number -s --squeeze-blank -t -T --show-tabs -u -v --show-nonprinting -l", "", ""),
		ex("-n README.md", ""), ex("-An --number-nonblank x", ""), ex("-z x", "-z")), "")),
	{Name: "head", Abbrev: true, Numeric: true, Filter: argv.Ends, Flags: flags("-q --quiet --silent -v --verbose -z --zero-terminated", "-c --bytes -n --lines", ""),
		Examples: []argv.Example{ex("-5 x", ""), ex("-n5 x", ""), ex("-n 5 -q x", ""), ex("--lines=5 x", ""), ex("--li 5 x", ""), ex("-o out x", "-o")}},
	{Name: "tail", Abbrev: true, Numeric: true, Filter: argv.Ends, Flags: flags("-f -F -q --quiet --silent --retry -v --verbose -z --zero-terminated -r",
		"-c --bytes -n --lines --max-unchanged-stats --pid -s --sleep-interval -b", "--follow"),
		Examples: []argv.Example{ex("-f log.txt", ""), ex("-n +20 x", ""), ex("-20f x", ""), ex("--follow=name x", ""), ex("-fn 5 x", "")}},
	counts(gnu("wc", with(flags("-c --bytes -m --chars -l --lines -L --max-line-length -w --words", "", "--total"), readsNames("--files0-from")),
		ex("-l *.go", ""), ex("-lw x", ""), ex("--files0-from=list", ""))),
	counts(gnu("file", with(flags("-b --brief -c --checking-printout -E -h --no-dereference -i --mime --mime-type --mime-encoding -k --keep-going "+
		"-l --list -L --dereference -N --no-pad -n --no-buffer -p --preserve-date -r --raw -s --special-files -S --no-sandbox "+
		"-z --uncompress -Z --uncompress-noreport -0 --print0 --extension --apple -d -I -D",
		"-e --exclude --exclude-quiet -F --separator -P --parameter", ""),
		notSafe("-C --compile", argv.None), reads("-f --files-from"), reads("-m --magic-file")),
		ex("-b x", ""), ex("--mime-type x", ""), ex("-f names.txt", ""), ex("-C -m x", ""))),
	lists(gnu("stat", flags("-L --dereference -f --file-system -t --terse -F -l -n -q -r -s -x", "-c --format --printf", "--cached"),
		ex("-c %s x", ""), ex("--format=%s x", ""), ex("-Lf x", ""))),
	// ls -a and -A list hidden names; -d prints its operand's path
	lists(gnu("ls", with(flags("--author -b --escape -B --ignore-backups -c -C -D --dired -f -F "+
		"--file-type --full-time -g --group-directories-first -G --no-group -h --human-readable --si -H --dereference-command-line "+
		"--dereference-command-line-symlink-to-dir -i --inode -k --kibibytes -l -L --dereference -m -n --numeric-uid-gid -N --literal -o -p "+
		"-q --hide-control-chars --show-control-chars -Q --quote-name -r --reverse -R --recursive -s --size -S -t -u -U -v -x -X -Z --context "+
		"--zero -1 -@ -e -O -P -W -% -, -y",
		"--block-size --format --hide --exclude --indicator-style -I --ignore --quoting-style --sort --time --time-style -T --tabsize -w --width",
		"--color|--colour --classify --hyperlink"), argv.Flag{Names: "-a --all", Effect: argv.ListsHidden},
		argv.Flag{Names: "-A --almost-all", Effect: argv.ListsHidden}, argv.Flag{Names: "-d --directory", Effect: argv.PrintsPath}),
		ex("-la src", ""), ex("-lhS", ""), ex("--color=auto", ""), ex("--col=auto", ""), ex("--c=auto", "--c=auto"), ex("--ignore=.env", ""),
		ex("-I .env -l", ""), ex("-j", "-j"))),
	lists(&argv.Command{Name: "tree", Flags: with(flags("-a -d -l -f -x -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -i -A -S -n -C -X -J --gitignore --ignore-case "+
		"--matchdirs --metafirst --prune --info --noreport --si --du --inodes --device --dirsfirst --filesfirst --nolinks --fromfile --fflinks",
		"-L -P -I -H -T --charset --filelimit --timefmt --sort --hintro --houtro", ""),
		notSafe("-o", argv.Value), notSafe("-R", argv.None), reads("--infofile"), reads("--gitfile")),
		Examples: []argv.Example{ex("-L 2 src", ""), ex("-a -I node_modules", ""), ex("--dirsfirst", ""), ex("-o out.txt", "")}}),
	lists(gnu("du", with(flags("-0 --null -a --all --apparent-size -b --bytes -c --total -D --dereference-args -H -h --human-readable --inodes -k "+
		"-L --dereference -l --count-links -m -P --no-dereference -S --separate-dirs --si -s --summarize -x --one-file-system -A -g -n -r",
		"-B --block-size -d --max-depth -t --threshold --time-style --exclude -I", "--time"),
		readsNames("--files0-from"), reads("-X --exclude-from")),
		ex("-sh .", ""), ex("-h -d 1", ""), ex("--max-depth=1 .", ""))),
	counts(gnu("df", flags("-a --all -h --human-readable -H --si -i --inodes -k -l --local --no-sync -P --portability --sync --total -T --print-type "+
		"-b -c -g -m -n", "-B --block-size -t --type -x --exclude-type", "--output"), ex("-h", ""), ex("-hT /", ""))),
	gnu("diff", with(flags("-q --brief -s --report-identical-files -c -u -e --ed -n --rcs -y --side-by-side --left-column --suppress-common-lines "+
		"-p --show-c-function -t --expand-tabs -T --initial-tab --suppress-blank-empty -l --paginate -r --recursive --no-dereference "+
		"-N --new-file --unidirectional-new-file --ignore-file-name-case --no-ignore-file-name-case -i --ignore-case -E --ignore-tab-expansion "+
		"-Z --ignore-trailing-space -b --ignore-space-change -w --ignore-all-space -B --ignore-blank-lines -a --text --strip-trailing-cr "+
		"-d --minimal --speed-large-files --normal -v",
		"-C -U -W --width -F --show-function-line --label --tabsize -x --exclude -S --starting-file "+
			"-I --ignore-matching-lines -D --ifdef --old-group-format --new-group-format --unchanged-group-format --changed-group-format "+
			"--old-line-format --new-line-format --unchanged-line-format --line-format --horizon-lines --palette",
		"--context --unified --color"),
		reads("-X --exclude-from"), reads("--from-file"), reads("--to-file")),
		ex("-u a b", ""), ex("-ru a b", ""), ex("-U3 a b", ""), ex("--unified=3 a b", ""), ex("--from-file=a b c", "")),
	gnu("cmp", flags("-b --print-bytes -l --verbose -s --quiet --silent", "-i --ignore-initial -n --bytes", ""), ex("-s a b", "")),
	filters(argv.Lines, gnu("sort", with(flags("-b --ignore-leading-blanks -d --dictionary-order -f --ignore-case -g --general-numeric-sort -i --ignore-nonprinting "+
		"-M --month-sort -h --human-numeric-sort -n --numeric-sort -R --random-sort -r --reverse -V --version-sort --debug -m --merge "+
		"-s --stable -u --unique -z --zero-terminated -c -C",
		"--sort --batch-size -k --key -S --buffer-size -t --field-separator -T --temporary-directory --parallel", "--check"),
		writes("-o --output"), runs("--compress-program"), readsNames("--files0-from"), reads("--random-source")),
		ex("-u x", ""), ex("-cu x", ""), ex("-cX x", "-X"), ex("--check=quiet x", ""), ex("-t: -k2 x", ""), ex("-uo out in", ""), ex("--outp=x in", ""), ex("-nrk 2 x", ""), ex("-k 2 .env", ""))),
	{Name: "uniq", Abbrev: true, Numeric: true, Filter: argv.Lines, OutOperand: true, Flags: flags("-D -c --count -d --repeated -i --ignore-case -u --unique -z --zero-terminated",
		"-f --skip-fields -s --skip-chars -w --check-chars", "--all-repeated --group"),
		Examples: []argv.Example{ex("-c x", ""), ex("-Df 1 in.txt", ""), ex("--all-repeated=prepend x", "")}},
	filters(argv.Edits, gnu("cut", flags("-n --complement -s --only-delimited -z --zero-terminated -w", "-b --bytes -c --characters -d --delimiter -f --fields --output-delimiter", ""),
		ex("-d: -f1 /etc/passwd", ""), ex("-f 2 -d , x", ""))),
	filters(argv.Edits, dataOperands(gnu("tr", flags("-c -C --complement -d --delete -s --squeeze-repeats -t --truncate-set1 -u", "", ""), ex("-d '\\r'", "")))),
	gnu("nl", flags("-p --no-renumber", "-b --body-numbering -d --section-delimiter -f --footer-numbering -h --header-numbering -i --line-increment "+
		"-l --join-blank-lines -n --number-format -s --number-separator -v --starting-line-number -w --number-width", ""), ex("-ba x", "")),
	gnu("od", flags("-v --output-duplicates --traditional -a -b -c -d -f -i -l -o -s -x -D -O -X -e -F -H -I -L", "-A --address-radix -j --skip-bytes "+
		"-N --read-bytes -t --format --endian -S", "--strings -w --width"), ex("-An -tx1 x", ""), ex("-c x", "")),
	{Name: "hexdump", Flags: with(flags("-b -c -C -d -L -o -v -x", "-e -n -s", ""), reads("-f")), Examples: []argv.Example{ex("-C x", ""), ex("-n 64 -C x", "")}},
	{Name: "xxd", OutOperand: true, Flags: with(flags("-a -autoskip -b -bits -C -capitalize -E -EBCDIC -e -h -help -i -include -p -ps -postscript -plain -d "+
		"-u -uppercase -v -version", "-c -cols -g -groupsize -l -len -n -name -o -offset -R -s -seek", ""),
		notSafe("-r -revert", argv.None)),
		Examples: []argv.Example{ex("-l 64 x", ""), ex("-ps x", ""), ex("-c 16 -g 1 x", ""), ex("-r dump.hex out.bin", "")}},
	{Name: "strings", Abbrev: true, Numeric: true, Flags: flags("-a --all -d --data -f --print-file-name -o -w --include-all-whitespace -V",
		"-n --bytes -t --radix -e --encoding -T --target -s --output-separator -U --unicode", ""), Examples: []argv.Example{ex("-n 8 x", ""), ex("-8 x", "")}},
	gnu("md5sum", flags(sums, "", ""), ex("-c sums.md5", "")),
	gnu("sha1sum", flags(sums, "", "")), gnu("sha256sum", flags(sums, "", ""), ex("x", "")), gnu("sha512sum", flags(sums, "", "")),
	gnu("b2sum", flags(sums, "-l --length", "")), gnu("cksum", flags(sums, "-a --algorithm -l --length", "")),
	gnu("shasum", flags(sums+" -p --portable -0 --01 -s -U --UNIVERSAL", "-a --algorithm", ""), ex("-a 256 x", "")),
	{Name: "md5", Flags: flags("-p -q -r -t -x", "-s", ""), Examples: []argv.Example{ex("-q x", "")}},
	// BSD base64 (macOS) -o FILE writes its output to FILE
	gnu("base64", with(flags("-d --decode -i --ignore-garbage -D", "-w --wrap -b --break", ""), writes("-o --output")),
		ex("-d x", ""), ex("-w0 x", ""), want("-d x -o /home/u/.bashrc", "human human.persistence-write"), want("-D -o out.bin in.txt", "ask ask.write")),
	// the decompressing cats print their files' contents like cat; gzip's -l lists, -t tests
	gnu("zcat", flags(zcats, "-S --suffix", ""), ex("log.gz", ""), ex("-f x", ""), ex("-c -d x", "")),
	gnu("gzcat", flags(zcats, "-S --suffix", "")),
	gnu("bzcat", flags("-s --small -q --quiet -v --verbose -f --force -k --keep -c --stdout -d --decompress -L --license -V", "", ""), ex("x.bz2", "")),
	gnu("xzcat", flags(xzcats, xzValues, ""), ex("-T0 x.xz", "")),
	gnu("lzcat", flags(xzcats, xzValues, "")),
	// zstd's -o FILE writes, -D FILE reads a dictionary: both left out
	gnu("zstdcat", flags("-q --quiet -v --verbose -f --force -c --stdout -d --decompress -k --keep --long --no-progress --progress -V", "-T --threads -M --memory", ""),
		ex("x.zst", ""), ex("-o out x.zst", "-o")),
	gnu("tac", flags("-b --before -r --regex", "-s --separator", "")),
	{Name: "rev", Flags: flags("-h -V", "", "")},
	{Name: "fold", Abbrev: true, Numeric: true, Flags: flags("-b --bytes -s --spaces", "-w --width", ""), Examples: []argv.Example{ex("-w 80 x", "")}},
	{Name: "fmt", Abbrev: true, Numeric: true, Flags: flags("-c --crown-margin -s --split-only -t --tagged-paragraph -u --uniform-spacing", "-p --prefix -w --width -g --goal", "")},
	{Name: "expand", Abbrev: true, Numeric: true, Flags: flags("-i --initial", "-t --tabs", "")},
	{Name: "unexpand", Abbrev: true, Numeric: true, Flags: flags("-a --all --first-only", "-t --tabs", "")},
	gnu("paste", flags("-s --serial -z --zero-terminated", "-d --delimiters", ""), ex("-sd, x", "")),
	gnu("join", flags("-i --ignore-case --check-order --nocheck-order --header -z --zero-terminated", "-a -e -j -o -t -v -1 -2", ""),
		ex("-t, -1 2 a b", "")),
	gnu("comm", flags("-1 -2 -3 --check-order --nocheck-order --total -z --zero-terminated", "--output-delimiter", ""), ex("-12 a b", "")),
	gnu("column", flags("-t --table -x --fillrows -J --json -L --keep-empty-lines -d --table-noheadings -m --table-maxout --table-header-repeat -e -h -V",
		"-s --separator -o --output-separator -c --output-width -n --table-name -N --table-columns -R --table-right -T --table-truncate "+
			"-E --table-noextreme -W --table-wrap -H --table-hide -O --table-order -r --tree -i --tree-id -p --tree-parent -l --table-columns-limit", ""),
		ex("-t -s, x", "")),
	{Name: "bat", Flags: with(flags("-A --show-all -p --plain -d --diff -S --chop-long-lines -n --number --list-themes --list-languages -u --unbuffered -L "+
		"--set-terminal-title -P --squeeze-blank --no-config --no-custom-assets --diagnostic --acknowledgements",
		"-l --language -H --highlight-line --file-name --diff-context --tabs --wrap --color --italic-text --decorations --paging "+
			"-m --map-syntax --theme --style -r --line-range --ignored-suffix --terminal-width --nonprintable-notation --binary --strip-ansi "+
			"--squeeze-limit --completion", ""), runs("--pager")),
		Examples: []argv.Example{ex("-n x", ""), ex("--style=plain -l go x", ""), ex("-pp x", "")}},
	lists(gnu("eza", ezaFlags())), lists(gnu("exa", ezaFlags())),
	lists(gnu("lsd", with(flags("-a --all -A --almost-all -F --classify -l --long --ignore-config -1 --oneline -R --recursive -h --human-readable --tree "+
		"-d --directory-only --total-size -t --timesort -S --sizesort -X --extensionsort -G --gitsort -v --versionsort -U --no-sort -r --reverse "+
		"--group-directories-first --classic --no-symlink -i --inode -g --git -L --dereference -Z --context --header -N --literal",
		"--color --icon --icon-theme --depth --permission --size --date --sort --group-dirs --blocks -I --ignore-glob "+
			"--hyperlink --truncate-owner-after --truncate-owner-marker", ""), reads("--config-file")))),
}

func ezaFlags() []argv.Flag {
	return flags("-1 --oneline -l --long -G --grid -x --across -R --recurse -T --tree -F --classify --color-scale|--colour-scale --no-icons "+
		"-a --all -A --almost-all -d --list-dirs -r --reverse --group-directories-first -D --only-dirs -f --only-files --git-ignore -b --binary "+
		"-B --bytes -g --group -h --header -H --links -i --inode -m --modified -M --mounts -n --numeric -S --blocksize -u --accessed -U --created "+
		"--changed --total-size --no-permissions --octal-permissions --no-filesize --no-user --no-time --git --no-git --git-repos "+
		"--git-repos-no-status -@ --extended -Z --context -X --dereference --smart-group --hyperlink --no-quotes",
		"-L --level -s --sort -I --ignore-glob -t --time --time-style -w --width --absolute", "--color|--colour --icons")
}

// Reader returns the declaration of a reader, nil for a program the table
// does not have.
func Reader(name string) *argv.Command { return readerIndex()[name] }
