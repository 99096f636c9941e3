package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The searches: grep and its kin, rg, ag, ack, and the tools that walk or
// query a tree of files (fd, find, jq, yq), with their flags.

// grepFlags are GNU grep's flags (and BSD grep's common ones): none runs a
// program or writes a file.
var grepFlags = flags("-E --extended-regexp -F --fixed-strings -G --basic-regexp -P --perl-regexp -i -y --ignore-case --no-ignore-case "+
	"-v --invert-match -w --word-regexp -x --line-regexp -c --count -L --files-without-match -l --files-with-matches "+
	"-o --only-matching -q --quiet --silent -s --no-messages -b --byte-offset -H --with-filename -h --no-filename -n --line-number "+
	"-T --initial-tab -Z --null -z --null-data -a --text -I -r --recursive -R --dereference-recursive --line-buffered -U --binary "+
	"--no-group-separator -u --unix-byte-offsets -O -S -p -J --bz2decompress --label-stdin",
	"-e --regexp -f --file -m --max-count -A --after-context -B --before-context -C --context --label --binary-files "+
		"-D --devices -d --directories --exclude --exclude-from --exclude-dir --include --group-separator --max-depth --context-lines",
	"--color|--colour")

// searches are the read-only search and listing tools.
var searches = []*argv.Command{
	{Name: "grep", Abbrev: true, Numeric: true, Filters: true, Flags: grepFlags, Examples: []argv.Example{ex("-rn TODO .", ""), ex("-rnE 'a|b' src", ""), ex("-C3 x f", ""), ex("--zz x f", "--zz")}},
	{Name: "egrep", Abbrev: true, Numeric: true, Flags: grepFlags},
	{Name: "fgrep", Abbrev: true, Numeric: true, Flags: grepFlags},
	{Name: "zgrep", Abbrev: true, Numeric: true, Flags: grepFlags},
	{Name: "rg", Numeric: true, Filters: true, Flags: flags("-a --text -b --byte-offset -c --count --count-matches --column --no-column -F --fixed-strings --no-fixed-strings "+
		"--files -l --files-with-matches --files-without-match -L --follow --no-follow -H --with-filename -I --no-filename --heading --no-heading "+
		"--hidden --no-hidden -i --ignore-case -S --smart-case -s --case-sensitive -v --invert-match -n --line-number -N --no-line-number "+
		"-o --only-matching -p --pretty -q --quiet -u --unrestricted -w --word-regexp -x --line-regexp -U --multiline --multiline-dotall "+
		"--no-multiline -P --pcre2 --no-pcre2 --no-ignore --no-ignore-vcs --no-ignore-dot --no-ignore-exclude --no-ignore-global "+
		"--no-ignore-parent --no-ignore-files --ignore --ignore-vcs --json --no-json --null -0 --null-data --stats --no-messages "+
		"--no-config --one-file-system --sort-files --trim --vimgrep --crlf --no-crlf --debug --trace --type-list -z --search-zip "+
		"--no-search-zip --binary --no-binary --block-buffered --line-buffered --glob-case-insensitive --no-unicode --unicode "+
		"--passthru --include-zero --no-require-git --auto-hybrid-regex --files-with-matches -. --no-heading",
		"-e --regexp -f --file -g --glob --iglob -t --type -T --type-not --type-add --type-clear -A --after-context -B --before-context "+
			"-C --context -m --max-count --max-depth -d --maxdepth --max-filesize --max-columns -M -j --threads --sort --sortr -E --encoding "+
			"--colors --color --path-separator --field-context-separator --field-match-separator --context-separator -r --replace "+
			"--ignore-file --regex-size-limit --dfa-size-limit --engine --hyperlink-format --generate", ""),
		Examples: []argv.Example{ex("-n foo src", ""), ex("--files", ""), ex("-g '*.go' x", ""), ex("--pre cat x", "--pre")}},
	// ag reads its long options by getopt_long and ack by Getopt::Long:
	// both take a unique prefix of one (ag --hidd is --hidden)
	{Name: "ag", Abbrev: true, Numeric: true, Flags: flags("-a --all-types -c --count --color --nocolor --column --nocolumn -f --follow --hidden -i --ignore-case "+
		"-s --case-sensitive -S --smart-case -l --files-with-matches -L --files-without-matches -n --norecurse -Q --literal -v --invert-match "+
		"-w --word-regexp -u --unrestricted -U --skip-vcs-ignores --vimgrep --heading --noheading --break --nobreak --filename --nofilename "+
		"--group --nogroup --line-numbers --no-numbers --nomultiline --multiline --null -0 --print-long-lines --passthrough -o --only-matching "+
		"--silent --stats -t --all-text -z --search-zip --search-binary -g",
		"-A --after -B --before -C --context -G --file-search-regex --ignore --ignore-dir -m --max-count --depth -p --path-to-ignore "+
			"--pager --workers --color-line-number --color-match --color-path", ""),
		Examples: []argv.Example{ex("--hidden foo", ""), ex("--hidd foo", ""), ex("--zz foo", "--zz")}},
	{Name: "ack", Abbrev: true, Numeric: true, Flags: flags("-i --ignore-case -I --no-ignore-case -S --smart-case -v --invert-match -w --word-regexp -Q --literal "+
		"-l --files-with-matches -L --files-without-matches -c --count -h --no-filename -H --with-filename --column --no-column "+
		"-f -r -R --recurse -n --no-recurse --follow --nofollow -k --known-types --color --nocolor --heading --noheading --break --nobreak "+
		"--group --nogroup -1 -s -x --nopager --noenv --flush --print0 --sort-files --show-types",
		"-A --after-context -B --before-context -C --context -m --max-count --match -t --type -g --ignore-dir --noignore-dir "+
			"--ignore-file --output --range-start --range-end --type-add --type-set --type-del", ""),
		Examples: []argv.Example{ex("foo", ""), ex("--pager=x foo", "--pager=x")}},
	{Name: "fd", Flags: fdFlags(), Examples: []argv.Example{ex("-H x", ""), ex("-e go", ""), ex("--zz", "--zz")}},
	{Name: "fdfind", Flags: fdFlags()},
	{Name: "find", OneDash: true, Flags: findFlags(), Examples: []argv.Example{ex(". -name '*.go' -type f", ""), ex(". -maxdepth 2 -newer x", ""),
		ex(". -delete", "-delete"), ex(". -fprint out", "-fprint"), ex(". -exec grep -n x {} +", ""),
		ex(". -type f -exec wc -l {} + -print", "")}},
	{Name: "jq", Flags: jqFlags(), Examples: []argv.Example{ex("-r .a x.json", ""), ex("--arg k v .a x.json", ""), ex("-n --argjson n 1 .", "")}},
	{Name: "gojq", Flags: jqFlags()},
	{Name: "yq", Flags: flags("-C --colors -M --no-colors -e --exit-status -N --no-doc -P --prettyPrint -r --unwrapScalar -0 --nul-output "+
		"-n --null-input -s --split-exp-file --header-preprocess --no-header-preprocess --expression -v --verbose -j --tojson -y --yaml-output "+
		"--yaml-roundtrip -c --compact-output -S --sort-keys -x --raw-output",
		"-I --indent -o --output-format -p --input-format --xml-attribute-prefix --xml-content-name --from-file --arg --argjson --lua-prefix --lua-suffix", ""),
		Examples: []argv.Example{ex(". a.yaml", ""), ex("-o json . a.yaml", ""), ex("-i .a=1 a.yaml", "-i")}},
}

// fdFlags are fd's flags but -x/-X (--exec, --exec-batch), which run a
// program for each match.
func fdFlags() []argv.Flag {
	return flags("-H --hidden -I --no-ignore -u --unrestricted --no-ignore-vcs --no-ignore-parent -s --case-sensitive -i --ignore-case "+
		"-g --glob --regex -F --fixed-strings -a --absolute-path -l --list-details -L --follow -p --full-path -0 --print0 "+
		"--prune -1 -q --quiet --show-errors --strip-cwd-prefix --one-file-system --no-require-git",
		"-d --max-depth --min-depth --exact-depth -t --type -e --extension -E --exclude -c --color -j --threads -S --size "+
			"--changed-within --changed-before -o --owner --max-results --base-directory --path-separator --search-path --ignore-file --format", "")
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
