package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The searches: grep and its kin, rg, ag, ack, and the tools that walk or
// query a tree of files (fd, find, jq, yq), with their flags.

// Search is how a search program (grep and its kin, rg, ag, ack, git
// grep) reads its words: each flag it has is declared in Cmd, and what a
// flag sets in the search (a pattern, recursion, hidden files, the case,
// what the output holds) is that flag's Sets, one of the Search…
// constants below, so every spelling of it reads the same. The fields
// say what the program does with no flag.
type Search struct {
	Cmd     *argv.Command
	Dialect Dialect // how it reads a pattern with no flag
	// Recursive: it searches the working directory's tree with no flag
	// or path (rg, ag, ack)
	Recursive bool
	Hidden    Hidden
	// SmartCase: a pattern without a capital letter ignores case unless a
	// flag says otherwise (ag, ack)
	SmartCase bool
	// RegexpGlobs: its name filters are regexps (ag -G) or list names
	// (ag -g), no globs that keep a file out
	RegexpGlobs bool
	// Listing: what reads its output takes the names its SearchListNames
	// flags print (grep -l, rg -c, rg --files) as a listing of the files
	// it searched (… | xargs wc -l reads project files), hidden files'
	// among them as Hidden says. Its kin without it (egrep, fgrep, zgrep,
	// ag, ack) print names of no shape the gate reads: what reads them
	// reads paths it does not know.
	Listing bool
}

// Dialect is how a search reads its patterns.
type Dialect uint8

const (
	BasicRE      Dialect = iota // GNU grep's default
	ExtendedRE                  // grep -E, egrep
	FixedStrings                // grep -F, fgrep, rg -F, ag -Q
	PerlRE                      // grep -P, ag, ack
	RustRE                      // rg: RE2-like, read as Go reads it
)

// Hidden is when a search reads hidden files such as .env.
type Hidden uint8

const (
	// HiddenIfRecursive: a recursive search reads them unless its
	// include globs keep them out (grep -r)
	HiddenIfRecursive Hidden = iota
	// HiddenIfAsked: it leaves hidden names out unless told (rg --hidden
	// or -uu, ag --hidden or -u)
	HiddenIfAsked
	// HiddenUnchecked: its walk reads them (searchscope.go checks what
	// the scope holds), but its pattern is not checked for them (ack)
	HiddenUnchecked
)

// What a search flag sets (argv.Flag.Sets), read by package gate's
// search hook (search.go).
const (
	SearchPattern     argv.Sets = iota + 1 // its value is a pattern (-e PAT)
	SearchPatternFile                      // the patterns come from a file, its value when it has one (-f FILE)
	SearchIgnoreCase                       // -i
	SearchMatchCase                        // case-sensitive, no smart case (--no-ignore-case, rg -s)
	SearchSmartCase                        // -S: a pattern without capitals ignores case
	SearchWords                            // -w: the match is whole words
	SearchLines                            // -x: the match is whole lines
	SearchInvert                           // -v: the lines that do not match
	SearchEveryLine                        // rg --passthru: every line, the matches marked
	// SearchContextLines: its value is a number of lines printed around
	// each match: above 0, or unknown, the output holds more than them
	SearchContextLines
	// SearchContext: the output holds more than the matching lines (grep
	// -z reads a file as one line, rg -U matches across lines, grep -NUM)
	SearchContext
	SearchExtended      // -E
	SearchFixed         // -F
	SearchBasic         // -G
	SearchPerl          // -P
	SearchRecurse       // -r
	SearchRecurseFollow // -R: recursive, and it goes where links point
	// SearchRecurseIf: recursive when its value is "recurse" (grep -d ACTION)
	SearchRecurseIf
	SearchFollow       // it goes where links point (rg -L, --follow)
	SearchHidden       // it reads hidden files (rg --hidden, -.)
	SearchNoHidden     // rg --no-hidden
	SearchUnrestricted // rg -u: once ignores .gitignore, twice reads hidden files
	// SearchNamesOnly: the output holds file names, counts or nothing, no
	// line (-q, rg --count-matches)
	SearchNamesOnly
	// SearchListNames: the output is the names of the files searched,
	// those with a match (-l) or without (grep -L), or NAME:COUNT lines
	// (-c): SearchNamesOnly, and a listing of files (Search's Listing)
	SearchListNames
	// SearchInclude: its value is a glob of the names searched (grep
	// --include, rg -g; a "!" glob excludes)
	SearchInclude
	// SearchPreprocess: it runs a program on each file, its value when the
	// flag's Role is argv.Run (rg --pre CMD, git grep -O[PAGER])
	SearchPreprocess
	SearchListFiles // rg --files: every operand is a path, no pattern
	// SearchPager: its value is a program the output goes through (ag
	// --pager CMD runs CMD)
	SearchPager
	// SearchColorWhen: --color[=WHEN], whose value is auto, always or never
	SearchColorWhen
)

// ColorWhens are the values of --color[=WHEN] (grep, git grep).
var ColorWhens = []string{"auto", "always", "never"}

// means is a flag, in all its spellings, that sets s in a search.
func means(names string, a argv.Arity, s argv.Sets) argv.Flag {
	return argv.Flag{Names: names, Arity: a, Sets: s}
}

// meansEach is one flag of arity a for every name in names (synonyms
// joined by |), each setting s.
func meansEach(names string, a argv.Arity, s argv.Sets) argv.Flag {
	return argv.Flag{Names: names, Arity: a, Sets: s, Each: true}
}

// grepFlags are GNU grep's flags (and BSD grep's common ones): none runs a
// program or writes a file. -NUM is a flag of each digit, as in GNU
// grep's getopt: NUM lines of context.
var grepFlags = with(flags("-o --only-matching -s --no-messages -b --byte-offset -H --with-filename -h --no-filename -n --line-number "+
	"-T --initial-tab -Z --null -a --text -I --line-buffered -U --binary --no-group-separator -u --unix-byte-offsets -O -S -p -J "+
	"--bz2decompress --label-stdin -0",
	"-m --max-count --label --binary-files -D --devices --exclude --exclude-from --exclude-dir --group-separator --max-depth --context-lines", ""),
	means("-E --extended-regexp", argv.None, SearchExtended), means("-F --fixed-strings", argv.None, SearchFixed),
	means("-G --basic-regexp", argv.None, SearchBasic), means("-P --perl-regexp", argv.None, SearchPerl),
	means("-i -y --ignore-case", argv.None, SearchIgnoreCase), means("--no-ignore-case", argv.None, SearchMatchCase),
	means("-v --invert-match", argv.None, SearchInvert), means("-w --word-regexp", argv.None, SearchWords),
	means("-x --line-regexp", argv.None, SearchLines),
	meansEach("-c|--count -L|--files-without-match -l|--files-with-matches", argv.None, SearchListNames),
	meansEach("-q|--quiet --silent", argv.None, SearchNamesOnly),
	means("-z --null-data", argv.None, SearchContext), meansEach("-1 -2 -3 -4 -5 -6 -7 -8 -9", argv.None, SearchContext),
	means("-r --recursive", argv.None, SearchRecurse), means("-R --dereference-recursive", argv.None, SearchRecurseFollow),
	means("-e --regexp", argv.Value, SearchPattern), means("-f --file", argv.Value, SearchPatternFile),
	meansEach("-A|--after-context -B|--before-context -C|--context", argv.Value, SearchContextLines),
	means("-d --directories", argv.Value, SearchRecurseIf), means("--include", argv.Value, SearchInclude),
	means("--color --colour", argv.Optional, SearchColorWhen))

// grepAs is a grep whose patterns are of dialect d with no flag.
func grepAs(name string, d Dialect, ex ...argv.Example) *Search {
	return &Search{Cmd: &argv.Command{Name: name, Abbrev: true, Filter: argv.Matches, ReadOn: true, Flags: grepFlags, Hook: "search", Examples: ex}, Dialect: d}
}

// listing is search s whose names are read as a listing (Search's Listing).
func listing(s *Search) *Search { s.Listing = true; return s }

// rg's flags. --pre, --pre-glob and --hostname-bin run programs (the
// search hook asks, and reads --pre's as a command); -u counts.
var rgFlags = with(flags("-a --text -b --byte-offset --column --no-column --no-fixed-strings --no-follow -H --with-filename -I --no-filename "+
	"--heading --no-heading -n --line-number -N --no-line-number -o --only-matching -p --pretty --no-multiline --no-pcre2 --no-ignore "+
	"--no-ignore-vcs --no-ignore-dot --no-ignore-exclude --no-ignore-global --no-ignore-parent --no-ignore-files --ignore --ignore-vcs "+
	"--json --no-json --null -0 --stats --no-messages --no-config --one-file-system --sort-files --trim --vimgrep --crlf --no-crlf "+
	"--debug --trace --type-list --no-search-zip --binary --no-binary --block-buffered --line-buffered --glob-case-insensitive "+
	"--no-unicode --unicode --include-zero --no-require-git --auto-hybrid-regex",
	"-t --type -T --type-not --type-add --type-clear -m --max-count --max-depth -d --maxdepth --max-filesize --max-columns -M "+
		"-j --threads --sort --sortr -E --encoding --colors --color --path-separator --field-context-separator --field-match-separator "+
		"--context-separator -r --replace --regex-size-limit --dfa-size-limit --engine --hyperlink-format --generate", ""), reads("--ignore-file"),
	means("-F --fixed-strings", argv.None, SearchFixed), means("-P --pcre2", argv.None, SearchPerl),
	meansEach("-c|--count -l|--files-with-matches --files-without-match", argv.None, SearchListNames),
	meansEach("--count-matches -q|--quiet", argv.None, SearchNamesOnly),
	means("--files", argv.None, SearchListFiles), means("-L --follow", argv.None, SearchFollow),
	means("--hidden -.", argv.None, SearchHidden), means("--no-hidden", argv.None, SearchNoHidden),
	means("-u --unrestricted", argv.None, SearchUnrestricted),
	means("-i --ignore-case", argv.None, SearchIgnoreCase), means("-S --smart-case", argv.None, SearchSmartCase),
	means("-s --case-sensitive", argv.None, SearchMatchCase),
	means("-v --invert-match", argv.None, SearchInvert), means("-w --word-regexp", argv.None, SearchWords),
	means("-x --line-regexp", argv.None, SearchLines),
	meansEach("-U|--multiline --multiline-dotall --null-data", argv.None, SearchContext),
	means("--passthru", argv.None, SearchEveryLine),
	means("-z --search-zip", argv.None, SearchPreprocess),
	// --hostname-bin PROG runs PROG to learn the host's name
	argv.Flag{Names: "--pre", Arity: argv.Value, Role: argv.Run, Sets: SearchPreprocess},
	argv.Flag{Names: "--hostname-bin", Arity: argv.Value, Role: argv.Run, Sets: SearchPreprocess},
	means("--pre-glob", argv.Value, SearchPreprocess),
	means("-e --regexp", argv.Value, SearchPattern), means("-f --file", argv.Value, SearchPatternFile),
	meansEach("-g|--glob --iglob", argv.Value, SearchInclude),
	meansEach("-A|--after-context -B|--before-context -C|--context", argv.Value, SearchContextLines))

// ag's flags. -z and --search-zip read compressed files with ag's own
// zlib and lzma, no program; --multiline is read as reading a file as one
// line, as the search reader read it before the table did. --pager CMD
// pipes the output through CMD, which runs.
var agFlags = with(flags("-a --all-types --color --nocolor --column --nocolumn -n --norecurse "+
	"-U --skip-vcs-ignores --vimgrep --heading --noheading --break --nobreak --filename --nofilename "+
	"--group --nogroup --line-numbers --no-numbers --nomultiline --null -0 --print-long-lines --passthrough -o --only-matching "+
	"--silent --stats -t --all-text -z --search-zip --search-binary",
	"--ignore --ignore-dir -m --max-count --depth -p --path-to-ignore --workers --color-line-number --color-match --color-path", ""),
	argv.Flag{Names: "--pager", Arity: argv.Value, Role: argv.Run, Sets: SearchPager},
	meansEach("-c|--count -l|--files-with-matches -L|--files-without-matches", argv.None, SearchListNames),
	means("-f --follow", argv.None, SearchFollow),
	meansEach("--hidden -u|--unrestricted", argv.None, SearchHidden),
	means("-i --ignore-case", argv.None, SearchIgnoreCase), means("-s --case-sensitive", argv.None, SearchMatchCase),
	means("-S --smart-case", argv.None, SearchSmartCase), means("-Q --literal", argv.None, SearchFixed),
	means("-v --invert-match", argv.None, SearchInvert), means("-w --word-regexp", argv.None, SearchWords),
	means("--multiline", argv.None, SearchContext),
	meansEach("-A|--after -B|--before -C|--context", argv.Value, SearchContextLines),
	meansEach("-G|--file-search-regex -g", argv.Value, SearchInclude))

// ack's flags: -f lists the files it would search, -x reads their names
// from stdin, -s hushes its error messages.
var ackFlags = with(flags("-h --no-filename -H --with-filename --column --no-column -s -x "+
	"-r -R --recurse -n --no-recurse --nofollow -k --known-types --color --nocolor --heading --noheading --break --nobreak "+
	"--group --nogroup -1 --nopager --noenv --flush --print0 --sort-files --show-types",
	"-m --max-count -t --type --ignore-dir --noignore-dir --ignore-file --output --range-start --range-end --type-add --type-set --type-del", ""),
	means("-i --ignore-case", argv.None, SearchIgnoreCase), means("-I --no-ignore-case", argv.None, SearchMatchCase),
	means("-S --smart-case", argv.None, SearchSmartCase), means("-v --invert-match", argv.None, SearchInvert),
	means("-w --word-regexp", argv.None, SearchWords), means("-Q --literal", argv.None, SearchFixed),
	meansEach("-l|--files-with-matches -L|--files-without-matches -c|--count", argv.None, SearchListNames),
	means("-f", argv.None, SearchListFiles), means("--follow", argv.None, SearchFollow),
	means("--match", argv.Value, SearchPattern), means("-g", argv.Value, SearchInclude),
	meansEach("-A|--after-context -B|--before-context -C|--context", argv.Value, SearchContextLines))

// gitGrepFlags are git grep's. -O[PAGER] and --open-files-in-pager[=PAGER]
// open the matching files in a program (the search hook and git's ask,
// and read the program as a command); -z sets the output apart, as
// grep's -z, though git grep's separates names with NUL.
var gitGrepFlags = with(flags("--cached --no-index --untracked --no-exclude-standard --exclude-standard --recurse-submodules -a --text --textconv --no-textconv "+
	"-I -h -H --full-name -n --line-number --column --null -o --only-matching --no-color --break --heading -p --show-function "+
	"-W --function-context --and --or --not --all-match --no-recursive",
	"--max-depth -m --max-count --threads", ""),
	means("-i --ignore-case", argv.None, SearchIgnoreCase), means("-w --word-regexp", argv.None, SearchWords),
	means("-v --invert-match", argv.None, SearchInvert), means("-E --extended-regexp", argv.None, SearchExtended),
	means("-G --basic-regexp", argv.None, SearchBasic), means("-P --perl-regexp", argv.None, SearchPerl),
	means("-F --fixed-strings", argv.None, SearchFixed),
	meansEach("-l|--files-with-matches --name-only -L|--files-without-match -c|--count", argv.None, SearchListNames),
	means("-q --quiet", argv.None, SearchNamesOnly),
	means("-z", argv.None, SearchContext), means("-r --recursive", argv.None, SearchRecurse),
	means("-e", argv.Value, SearchPattern), means("-f", argv.Value, SearchPatternFile),
	meansEach("-A|--after-context -B|--before-context -C|--context", argv.Value, SearchContextLines),
	means("--color", argv.Optional, SearchColorWhen),
	argv.Flag{Names: "-O --open-files-in-pager", Arity: argv.Optional, Role: argv.Run, Sets: SearchPreprocess})

// gitGrep is git grep: its entry is git's grep subcommand (git.go).
var gitGrep = &Search{Cmd: readOn(sub("grep", gitGrepFlags, ex("-n foo", ""), ex("-O vim foo", ""), ex("--zz foo", "--zz")))}

// readOn is c read on past a letter it lacks (argv.Command.ReadOn).
func readOn(c *argv.Command) *argv.Command { c.ReadOn = true; return c }

// GitGrep is how git grep reads its words.
func GitGrep() *Search { return gitGrep }

// searchTools are the searches that read files for a pattern.
var searchTools = []*Search{
	listing(grepAs("grep", BasicRE, ex("-rn TODO .", ""), ex("-rnE 'a|b' src", ""), ex("-C3 x f", ""), ex("-5 x f", ""), ex("--zz x f", "--zz"))),
	grepAs("egrep", ExtendedRE), grepAs("fgrep", FixedStrings), grepAs("zgrep", BasicRE),
	{Cmd: &argv.Command{Name: "rg", Numeric: true, ReadOn: true, Filter: argv.Matches, Flags: rgFlags, Hook: "search",
		Examples: []argv.Example{ex("-n foo src", ""), ex("--files", ""), ex("-g '*.go' x", ""), want("--pre cat x", "ask ask.flag"),
			want("--pre 'rm -rf ~' x", "deny floor.rm-root"),
			want("--hostname-bin 'rm -rf ~' x", "deny floor.rm-root")}},
		Dialect: RustRE, Recursive: true, Hidden: HiddenIfAsked, Listing: true},
	// ag reads its long options by getopt_long and ack by Getopt::Long:
	// both take a unique prefix of one (ag --hidd is --hidden)
	{Cmd: &argv.Command{Name: "ag", Abbrev: true, Numeric: true, ReadOn: true, Flags: agFlags, Hook: "search",
		Examples: []argv.Example{ex("--hidden foo", ""), ex("--hidd foo", ""), ex("--zz foo", "--zz"),
			want("--pager less foo", "ask ask.flag"), want("--pager=./x.sh foo", "ask ask.flag")}},
		Dialect: PerlRE, Recursive: true, Hidden: HiddenIfAsked, SmartCase: true, RegexpGlobs: true},
	{Cmd: &argv.Command{Name: "ack", Abbrev: true, Numeric: true, ReadOn: true, Flags: ackFlags, Hook: "search",
		Examples: []argv.Example{ex("foo", ""), ex("--pager=x foo", "--pager=x")}},
		Dialect: PerlRE, Recursive: true, Hidden: HiddenUnchecked, SmartCase: true, RegexpGlobs: true},
}

var searchIndex = index(searchTools, func(s *Search) string { return s.Cmd.Name })

// SearchOf is the search declared for name (grep, rg, ag …), or nil.
func SearchOf(name string) *Search { return searchIndex()[name] }

// searches are the read-only search and listing tools.
var searches = append(searchCmds(), []*argv.Command{
	{Name: "fd", Flags: fdFlags(), Hook: "fd", Examples: []argv.Example{ex("-H x", ""), ex("-e go", ""), ex("--zz", "--zz")}},
	{Name: "fdfind", Flags: fdFlags(), Hook: "fd"},
	{Name: "find", Hook: "find", OneDash: true, Flags: findFlags(), Examples: []argv.Example{ex(". -name '*.go' -type f", ""), ex(". -maxdepth 2 -newer x", ""),
		ex(". -delete", "-delete"), ex(". -fprint out", "-fprint"), ex(". -exec grep -n x {} +", ""),
		ex(". -type f -exec wc -l {} + -print", "")}},
	{Name: "jq", Flags: jqFlags(), Hook: "jq", Examples: []argv.Example{ex("-r .a x.json", ""), ex("--arg k v .a x.json", ""), ex("-n --argjson n 1 .", "")}},
	{Name: "gojq", Flags: jqFlags(), Hook: "jq"},
	{Name: "yq", Hook: "yq", Flags: flags("-C --colors -M --no-colors -e --exit-status -N --no-doc -P --prettyPrint -r --unwrapScalar -0 --nul-output "+
		"-n --null-input -s --split-exp-file --header-preprocess --no-header-preprocess --expression -v --verbose -j --tojson -y --yaml-output "+
		"--yaml-roundtrip -c --compact-output -S --sort-keys -x --raw-output",
		"-I --indent -o --output-format -p --input-format --xml-attribute-prefix --xml-content-name --from-file --arg --argjson --lua-prefix --lua-suffix", ""),
		Examples: []argv.Example{ex(". a.yaml", ""), ex("-o json . a.yaml", ""), ex("-i .a=1 a.yaml", "-i")}},
}...)

// searchCmds are the searches' declarations.
func searchCmds() []*argv.Command {
	out := make([]*argv.Command, 0, len(searchTools))
	for _, s := range searchTools {
		out = append(out, s.Cmd)
	}
	return out
}

// fdFlags are fd's flags but -x/-X (--exec, --exec-batch), which run a
// program for each match. -H and -u list hidden names (fd's hook reads
// their Sets).
func fdFlags() []argv.Flag {
	return with(flags("-I --no-ignore --no-ignore-vcs --no-ignore-parent -s --case-sensitive -i --ignore-case "+
		"-g --glob --regex -F --fixed-strings -a --absolute-path -l --list-details -L --follow -p --full-path -0 --print0 "+
		"--prune -1 -q --quiet --show-errors --strip-cwd-prefix --one-file-system --no-require-git",
		"-d --max-depth --min-depth --exact-depth -t --type -e --extension -E --exclude -c --color -j --threads -S --size "+
			"--changed-within --changed-before -o --owner --max-results --base-directory --path-separator --search-path --ignore-file --format", ""),
		means("-H --hidden", argv.None, SearchHidden), means("-u --unrestricted", argv.None, SearchUnrestricted))
}

// findFlags are find's options and the primaries of its expression that
// test or print to stdout, and -exec, -execdir, -ok and -okdir, whose
// command the gate's code analyses: -delete and the -fprint/-fls family
// are not declared (they delete or write).
func findFlags() []argv.Flag {
	out := each(nil, "-H -L -P -O0 -O1 -O2 -O3 -d -depth -follow -mount -xdev -ignore_readdir_race -noignore_readdir_race -daystart -nowarn -warn "+
		"-empty -false -true -nogroup -nouser -readable -writable -executable -prune -print -print0 -ls -quit -not -and -or -a -o "+
		"-noleaf -x -E -s -X --help --version", argv.None)
	out = each(out, "-maxdepth -mindepth -name -iname -path -ipath -wholename -iwholename -regex -iregex -regextype -type -xtype -size "+
		"-mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -newerXY -newermt -newerct -newerat -newerBt -used "+
		"-user -group -uid -gid -perm -links -inum -samefile -lname -ilname -fstype -printf -files0-from -context -D", argv.Value)
	return each(out, "-exec -execdir -ok -okdir", argv.CommandArgs)
}

// jqFlags are jq's flags; --arg and its kin take two values.
func jqFlags() []argv.Flag {
	return append(flags("-r --raw-output -j --join-output -a --ascii-output -c --compact-output -n --null-input -e --exit-status "+
		"-s --slurp -S --sort-keys -C --color-output -M --monochrome-output --tab --seq --stream --stream-errors -R --raw-input "+
		"--args --jsonargs --raw-output0 --unbuffered -h -V --build-configuration",
		"-f --from-file -L --library-path --indent", ""),
		each(nil, "--arg --argjson --slurpfile --rawfile", argv.Two)...)
}
