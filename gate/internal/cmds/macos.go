package cmds

import (
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// The macOS programs: the readers of a file's metadata (extended
// attributes, Spotlight's, code signatures, Gatekeeper's assessment,
// architectures, property lists) and the queries of the toolchain, the
// system and Homebrew. Their flags are the read-only ones: a flag the
// table lacks (xattr -d, plutil -replace, codesign -s) asks. The forms
// only a person may approve are in the gate's tables of subcommands
// (brew services start: configWriters; xattr -d com.apple.quarantine,
// defaults write, launchctl load, spctl --master-disable: systemChangers).

// Query is a program that only prints, in the forms its entry declares:
// a call of its declared flags (with one of Modes when Modes is set:
// xcodebuild alone builds, -version prints), a declared subcommand of it
// (csrutil status, brew list), and operands that are names (brew info
// NAME) when Names, or none at all (xcrun clang runs clang, xcodebuild
// test runs the tests). Any other form is not known-safe.
type Query struct {
	Cmd   *argv.Command
	Modes string
	Names bool
}

// Prints says the n words at(i) are a form of q that only prints.
func (q *Query) Prints(n int, at func(i int) (val string, dyn bool)) bool {
	c, from := q.Cmd, 0
	for len(c.Subs) > 0 {
		rest := func(i int) (string, bool) { return at(from + i) }
		i := c.FirstOperand(n-from, rest)
		if i < 0 {
			return true // brew services: its list
		}
		v, dyn := rest(i)
		if c = c.Sub(v); c == nil || dyn {
			return false
		}
		from += i + 1
	}
	inv := c.ParseAt(n-from, func(i int) (string, bool) { return at(from + i) })
	if len(inv.Operands) > 0 && !q.Names {
		return false
	}
	return q.Modes == "" || inv.Has(strings.Fields(q.Modes)...)
}

// query is a query's entry.
func query(c *argv.Command, modes string, names bool) *Query {
	return &Query{Cmd: c, Modes: modes, Names: names}
}

// brewNames are the Homebrew commands that print about the formulae they
// name. brew outdated is left out: it updates Homebrew first (a git fetch
// of its taps, brew.sh's AUTO_UPDATE_COMMANDS), as install and upgrade do.
var brewNames = []*argv.Command{
	sub("list", flags("--formula --formulae --cask --casks --full-name --versions --multiple --pinned --installed-on-request "+
		"--installed-as-dependency --poured-from-bottle --built-from-source -1 -l -r -t -q --quiet -v --verbose -d --debug", "", ""),
		want("--versions", "allow"), ex("--formula -1", "")),
	sub("ls", flags("--formula --formulae --cask --casks --full-name --versions -1 -l -r -t -q --quiet -v --verbose", "", "")),
	sub("info", flags("--json --installed --eval-all --variations --formula --formulae --cask --casks -v --verbose -d --debug -q --quiet --github",
		"--analytics --days --category", "--json"), want("wget", "allow"), ex("--json=v2 --installed", "")),
	sub("deps", flags("--tree --installed --direct -1 --topological --union --include-build --include-optional --include-test "+
		"--skip-recommended --include-requirements --annotate --full-name --formula --formulae --cask --casks -v -q -d", "--os --arch", "")),
	sub("uses", flags("--installed --recursive --include-build --include-optional --include-test --skip-recommended --eval-all "+
		"--formula --formulae --cask --casks -v -q -d", "", "")),
	sub("leaves", flags("-r --installed-on-request -p --installed-as-dependency -v -q -d", "", "")),
	sub("desc", flags("-s --search -n --name -d --description --eval-all --formula --formulae --cask --casks -v -q", "", "")),
	sub("config", flags("-v -q -d", "", "")),
	sub("shellenv", flags("", "", "")),
	sub("commands", flags("-q --quiet --include-aliases -v -d", "", "")),
	sub("tap-info", flags("--installed --json -v -q -d", "", "--json")),
	// services with no subcommand lists them; start, restart and run
	// register a launchd job (configWriters)
	tool("services", flags("-v -q -d", "", ""),
		sub("list", flags("--json -v -q -d", "", ""), want("", "allow")),
		sub("info", flags("--json --all -v -q -d", "", ""), ex("--json redis", ""))),
}

// queries are the macOS programs that only print in their declared forms.
var queries = []*Query{
	query(gnu("xcode-select", flags("-p --print-path -v -h", "", ""),
		want("-p", "allow"), ex("-s /Applications/Xcode.app", "-s"), ex("--install", "--install")), "", false),
	// xcrun TOOL runs the tool (any program on the PATH): with no operand
	// it finds a tool or prints an SDK's facts
	query(gnu("xcrun", flags("--show-sdk-path --show-sdk-version --show-sdk-build-version --show-sdk-platform-path --show-sdk-platform-version "+
		"-v --verbose -n --no-cache -l --log -h", "--sdk --toolchain -f --find", ""),
		want("--show-sdk-path", "allow"), want("--sdk iphoneos --show-sdk-version", "allow"), want("--find clang", "allow"),
		want("clang -v", "ask"), ex("-r clang", "-r")),
		"--show-sdk-path --show-sdk-version --show-sdk-build-version --show-sdk-platform-path --show-sdk-platform-version -f --find --version --help -h", false),
	// xcodebuild with no action builds: only its printing options print
	query(&argv.Command{Name: "xcodebuild", OneDash: true, Flags: with(flags("-version -showsdks -list -json -usage -help", "-sdk", ""), reads("-project"), reads("-workspace")),
		Examples: []argv.Example{want("-version", "allow"), want("-showsdks -json", "allow"), want("-list -project App.xcodeproj", "allow"),
			want("-project App.xcodeproj", "ask"), ex("-scheme App build", "-scheme")}},
		"-version -showsdks -list -usage -help --help --version", false),
	// csrutil disable, enable, clear and authenticated-root change System
	// Integrity Protection (systemChangers)
	query(tool("csrutil", flags("", "", ""), sub("status", flags("", "", ""), want("", "allow")), sub("report", flags("", "", ""))), "", false),
	// pkgutil --forget, --learn, --expand and --flatten write: left out
	query(gnu("pkgutil", flags("--pkgs-plist --only-files --only-dirs --regexp -v --verbose -h",
		"--volume --files --pkg-info --pkg-info-plist --file-info --file-info-plist --export-plist --payload-files --check-signature --group-pkgs", "--pkgs"),
		want("--pkgs", "allow"), want("--pkg-info com.apple.pkg.CLTools_Executables", "allow"), ex("--forget x", "--forget")), "", false),
	query(&argv.Command{Name: "system_profiler", OneDash: true, Flags: flags("-listDataTypes -json -xml -nospinner", "-detailLevel -timeout", ""),
		Examples: []argv.Example{want("SPHardwareDataType", "allow"), want("-json SPSoftwareDataType", "allow")}}, "", true),
	// brew's --prefix, --cellar, --repository and --cache are commands
	// that print about the formula they are given
	query(tool("brew", flags("-v --verbose -d --debug -q --quiet --env", "--prefix --cellar --repository --cache --caskroom", ""), brewNames...),
		"", true),
}

var queryIndex = index(queries, func(q *Query) string { return q.Cmd.Name })

// QueryOf is the query declared for name, or nil.
func QueryOf(name string) *Query { return queryIndex()[name] }

// queryCmds are the queries' declarations.
func queryCmds() []*argv.Command {
	out := make([]*argv.Command, 0, len(queries))
	for _, q := range queries {
		out = append(out, q.Cmd)
	}
	return out
}

// macReaders read the files they are given and print their metadata or,
// plutil -p, their contents.
var macReaders = []*argv.Command{
	// plutil: -p prints, -lint checks; -convert, -insert, -replace,
	// -remove, -extract and -o rewrite a file, left out
	{Name: "plutil", OneDash: true, Flags: flags("-p -lint -s -help", "", ""),
		Examples: []argv.Example{ex("-p Info.plist", ""), ex("-lint a.plist b.plist", ""), ex("-convert xml1 x.plist", "-convert"),
			ex("-replace K -string v x.plist", "-replace")}},
	// xattr with no flag or -l lists a file's attributes, -p prints one
	// (its first operand is the attribute's name); -d, -c and -w change them
	{Name: "xattr", Output: argv.Counts, Flags: flags("-l -p -r -s -v -x -h", "", ""),
		Examples: []argv.Example{want("-l build/app", "allow"), want("-p com.apple.quarantine build/app", "allow"), ex("-d x build/app", "-d")}},
	// mdls -plist FILE writes the attributes to FILE: left out
	{Name: "mdls", OneDash: true, Output: argv.Counts, Flags: flags("-raw -r", "-name -nullMarker", ""),
		Examples: []argv.Example{want("-name kMDItemVersion build/App.app", "allow"), ex("-plist out.plist x", "-plist")}},
	// codesign -d and -v display and verify a signature; -s signs,
	// --remove-signature strips it, -r FILE and --entitlements FILE write
	// what they display to FILE
	gnuCounts("codesign", flags("-d --display -v --verify --deep --check-notarization --all-architectures --no-strict -h",
		"-a --architecture -R --test-requirement", "--verbose --strict"),
		want("-dv --verbose=4 build/App.app", "allow"), want("--verify --deep --strict build/App.app", "allow"), ex("-s - build/App.app", "-s")),
	// spctl --assess asks Gatekeeper about a file, --status prints whether
	// it is on; --add, --remove, --enable and --master-disable change it
	gnuCounts("spctl", flags("-a --assess -v --verbose --status --raw --ignore-cache --no-cache", "-t --type --context", ""),
		want("--assess -vv build/App.app", "allow"), want("--status", "allow"), ex("--add x", "--add")),
	// lipo -create, -thin, -extract, -remove, -replace and -output write
	{Name: "lipo", OneDash: true, Output: argv.Counts, Flags: flags("-info -detailed_info -archs -verify_arch", "", ""),
		Examples: []argv.Example{want("-info build/app", "allow"), ex("-create a b -output c", "-create")}},
}

// gnuCounts is a GNU-style reader that prints what it finds of a file,
// never its contents.
func gnuCounts(name string, f []argv.Flag, ex ...argv.Example) *argv.Command {
	c := gnu(name, f, ex...)
	c.Output = argv.Counts
	return c
}
