package cmds

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// The macOS programs: the readers of a file's metadata (extended
// attributes, Spotlight's, code signatures, Gatekeeper's assessment,
// architectures, property lists) and the queries of the toolchain, the
// system and Homebrew. Their flags are the read-only ones: a flag the
// table lacks (xattr -d, plutil -replace, codesign -s) asks. The forms
// only a person may approve are their tools' entries' (brew services
// start: Configures; xattr -d com.apple.quarantine, defaults write,
// launchctl load, spctl --master-disable: macTools' ChangesSystem).

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
	// info --github opens the formula's page in the browser: left out
	sub("info", flags("--json --installed --eval-all --variations --formula --formulae --cask --casks -v --verbose -d --debug -q --quiet",
		"--analytics --days --category", "--json"), want("wget", "allow"), ex("--json=v2 --installed", ""), ex("--github wget", "--github")),
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
	// register a launchd job (brew's Configures)
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
	// Integrity Protection (macTools)
	query(tool("csrutil", flags("", "", ""), sub("status", flags("", "", ""), want("", "allow")), sub("report", flags("", "", ""))), "", false),
	// pkgutil --forget, --learn, --expand and --flatten write: left out
	query(gnu("pkgutil", flags("--pkgs-plist --only-files --only-dirs --regexp -v --verbose -h",
		"--volume --files --pkg-info --pkg-info-plist --file-info --file-info-plist --export-plist --payload-files --check-signature --group-pkgs", "--pkgs"),
		want("--pkgs", "allow"), want("--pkg-info com.apple.pkg.CLTools_Executables", "allow"), ex("--forget x", "--forget")), "", false),
	query(&argv.Command{Name: "system_profiler", OneDash: true, Flags: flags("-listDataTypes -json -xml -nospinner", "-detailLevel -timeout", ""),
		Examples: []argv.Example{want("SPHardwareDataType", "allow"), want("-json SPSoftwareDataType", "allow")}}, "", true),
	// diskutil erase*, partition*, mount*, eject change disks (macTools)
	query(tool("diskutil", flags("", "", ""),
		sub("list", flags("-plist", "", ""), want("", "allow"), want("-plist external", "allow")),
		sub("info", flags("-plist -all", "", ""), want("disk0s1", "allow")),
		tool("apfs", flags("", "", ""), sub("list", flags("-plist", "", ""), want("", "allow")))), "", true),
	// ioreg only prints the I/O Registry
	query(&argv.Command{Name: "ioreg", Flags: flags("-a -b -f -i -l -r -t -x", "-c -d -k -n -p -w", ""),
		Examples: []argv.Example{want("-l -w0", "allow"), want("-rd1 -c IOPlatformExpertDevice", "allow")}}, "", false),
	// pmset -g prints the power settings; its other forms change them
	query(&argv.Command{Name: "pmset", Flags: flags("-g", "", ""),
		Examples: []argv.Example{want("-g", "allow"), want("-g batt", "allow"), ex("-a sleep 0", "-a")}}, "-g", true),
	// softwareupdate -i installs, -d and --fetch-full-installer download,
	// --schedule changes the schedule
	query(gnu("softwareupdate", flags("-l --list --history --list-full-installers --all --no-scan --verbose", "--product-types", ""),
		want("-l", "allow"), want("--history", "allow"), ex("-i -a", "-i")), "-l --list --history --list-full-installers", false),
	// scutil with no option reads commands from stdin (which may set);
	// --set changes the host's names (macTools)
	query(&argv.Command{Name: "scutil", Flags: flags("--dns --proxy --nwi", "--get", ""),
		Examples: []argv.Example{want("--dns", "allow"), want("--get ComputerName", "allow"), ex("-r example.com", "-r")}},
		"--dns --proxy --nwi --get", false),
	// brew's --prefix, --cellar, --repository and --cache are commands
	// that print about the formula they are given
	query(tool("brew", flags("-v --verbose -d --debug -q --quiet --env", "--prefix --cellar --repository --cache --caskroom", ""), brewNames...),
		"", true),
}

var queryIndex = index(queries, func(q *Query) string { return q.Cmd.Name })

// QueryOf is the query declared for name, or nil.
func QueryOf(name string) *Query { return queryIndex()[name] }

// queryCmds are the queries' and the rewriters' declarations.
func queryCmds() []*argv.Command {
	out := make([]*argv.Command, 0, len(queries)+len(rewriters))
	for _, q := range queries {
		out = append(out, q.Cmd)
	}
	for _, r := range rewriters {
		out = append(out, r.Cmd)
	}
	return out
}

// macReaders read the files they are given and print their metadata.
var macReaders = []*argv.Command{
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
	// otool prints a Mach-O file's headers and load commands (-L: the
	// libraries it links); -t, -s and -d dump its sections, left out
	{Name: "otool", Output: argv.Counts, Flags: flags("-L -D -h -l -f -a -v -V -X -o -I -r -c", "-arch", ""),
		Examples: []argv.Example{want("-L build/app", "allow"), want("-arch arm64 -hv build/app", "allow"), ex("-tV build/app", "-t")}},
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

// Rewriter is a program that rewrites the files it is given in its
// editing modes (plutil -replace K -string v F writes F): with a flag of
// Edits, or a command of Script's that is not one of Looks (PlistBuddy
// -c 'Set :K v'), or with Script and none given (its commands then come
// from stdin), it writes its operands; Output names the file written
// instead (plutil -o F), nothing when its value is one of Stdout. A flag
// of Edits whose last value is in Prints only prints (plutil -extract K
// raw prints the value; -extract K json rewrites F with it).
type Rewriter struct {
	Cmd    *argv.Command
	Edits  string
	Prints map[string]string
	Output string
	Stdout string
	Script string
	Looks  string
}

// Writes says which files the n words at(i), parsed as inv, write: the
// operands (edits), and the word Output's value is (out, -1 for none or
// stdout).
func (r *Rewriter) Writes(inv argv.Invocation, n int, at func(i int) (val string, dyn bool)) (edits bool, out int) {
	out, scripts := -1, 0
	for _, u := range inv.Uses {
		switch {
		case u.Name == r.Output && u.ValAt >= 0:
			if v, dyn := at(u.ValAt); dyn || !slices.Contains(strings.Fields(r.Stdout), v) {
				out = u.ValAt
			}
		case u.Name == r.Script:
			scripts++
			edits = edits || u.ValAt < 0 || r.scriptEdits(at(u.ValAt))
		case slices.Contains(strings.Fields(r.Edits), u.Name):
			edits = edits || !r.prints(u, n, at)
		}
	}
	if r.Script != "" && scripts == 0 {
		edits = true
	}
	return edits && out < 0 && !r.hasOutput(inv), out
}

// hasOutput says inv names an output, stdout or a file.
func (r *Rewriter) hasOutput(inv argv.Invocation) bool { return r.Output != "" && inv.Has(r.Output) }

// scriptEdits says a command of the program's language may write.
func (r *Rewriter) scriptEdits(cmd string, dyn bool) bool {
	f := strings.Fields(cmd)
	return dyn || len(f) == 0 || !slices.Contains(strings.Fields(r.Looks), strings.ToLower(f[0]))
}

// prints says edit flag u's last value makes it only print.
func (r *Rewriter) prints(u argv.Use, n int, at func(i int) (string, bool)) bool {
	last := u.ValAt
	if u.Flag.Arity == argv.Two && u.ValAt >= 0 && u.ValAt+1 < n {
		last = u.ValAt + 1
	}
	if last < 0 {
		return false
	}
	v, dyn := at(last)
	return !dyn && slices.Contains(strings.Fields(r.Prints[u.Name]), v)
}

// plutilTypes are the types of the values plutil -insert and -replace set.
const plutilTypes = "-bool -integer -float -string -date -data -xml -json"

var rewriters = []*Rewriter{
	// plutil: -p prints, -lint (the default) checks, -type and -extract K
	// raw print a value; -convert, -insert, -replace, -remove, -create and
	// -extract in another format rewrite the file, or write -o's file;
	// -e EXT writes a file beside it
	{Cmd: &argv.Command{Name: "plutil", OneDash: true, Flags: append(flags("-p -lint -s -r -n -help -append -array -dictionary -header",
		"-convert -insert -replace -remove -create -type -expect -o -e "+plutilTypes, ""), argv.Flag{Names: "-extract", Arity: argv.Two}),
		Examples: []argv.Example{want("-p Info.plist", "allow"), want("-lint a.plist b.plist", "allow"),
			want("-extract CFBundleVersion raw Info.plist", "allow"), want("-extract CFBundleVersion json Info.plist", "ask"),
			want("-convert xml1 -o - Info.plist", "allow"), want("-convert xml1 x.plist", "ask"),
			want("-replace K -string v /home/u/Library/LaunchAgents/x.plist", "human human.persistence-write")}},
		Edits: "-convert -insert -replace -remove -create -extract -e", Prints: map[string]string{"-extract": "raw"},
		Output: "-o", Stdout: "- /dev/stdout"},
	// PlistBuddy -c CMD runs CMD on the file and saves it when CMD changed
	// it: Print, Help and Exit only read. Spelled PlistBuddy, as it is
	// installed, its name has capitals, which the gate never finds
	// known-safe (a case-insensitive disk runs RM as rm): Print asks there
	{Cmd: &argv.Command{Name: "plistbuddy", Flags: flags("-x -h", "-c", ""),
		Examples: []argv.Example{want("-c 'Print :CFBundleVersion' Info.plist", "allow"), want("-x -c Print Info.plist", "allow"),
			want("-c 'Set :RunAtLoad true' /home/u/Library/LaunchAgents/x.plist", "human human.persistence-write"), want("Info.plist", "ask")}},
		Script: "-c", Looks: "print help exit"},
}

var rewriterIndex = index(rewriters, func(r *Rewriter) string { return r.Cmd.Name })

// RewriterOf is the rewriter declared for name, or nil.
func RewriterOf(name string) *Rewriter { return rewriterIndex()[name] }

// macTools change the system outside any project in the forms their
// entries give (ChangesSystem): macOS settings, launchd jobs and
// sessions, the keychains and trust store, disks (SPEC §5.4: human-only
// like their Linux counterparts). The flags of those that have read-only
// forms are their queries' and readers' entries (csrutil status, xattr -l).
var macTools = []*Tool{
	macTool("defaults", "write com.x k v", "write", "delete", "import", "rename"),
	macTool("launchctl", "setenv X 1", "load", "bootstrap", "submit", "setenv", "unsetenv", "asuser", "bsexec", "enable", "config", "kickstart",
		"unload", "bootout", "disable", "remove", "stop", "kill", "limit", "start"),
	// macOS security: find-*-password -w or -g prints a password, and
	// dump-keychain -d the keychain's secrets (the keychain hook)
	withCmd(macTool("security", "add-trusted-cert x.pem", "add-trusted-cert", "remove-trusted-cert", "trust-settings-import", "add-certificates", "import", "export",
		"delete-*", "add-generic-password", "add-internet-password", "set-keychain-settings", "set-key-partition-list",
		"create-keychain", "default-keychain", "login-keychain", "list-keychains -s|-d", "authorizationdb write", "authorize"),
		withHook("keychain", tool("security", flags("-h -i -p -q -v", "", ""),
			sub("find-generic-password", flags("-g -w", "-a -c -C -D -G -j -l -r -s", "")),
			sub("find-internet-password", flags("-g -w", "-a -c -C -d -D -j -l -p -P -r -s -t", "")),
			sub("dump-keychain", flags("-a -d -i -r", "", "")), sub("list-keychains", flags("", "-d -s", ""))),
			want("find-generic-password -s gh -w", "human human.sensitive-read"), want("dump-keychain", "human human.sensitive-read"),
			want("list-keychains", "ask"))),
	macTool("diskutil", "eraseDisk APFS X disk2", "erase*", "partition*", "zeroDisk", "randomDisk", "secureErase", "reformat", "splitPartition",
		"mergePartitions", "resizeVolume", "apfs delete*", "apfs erase*", "apfs resize*", "apfs encrypt*", "apfs decrypt*", "unmountDisk", "eject", "mount*"),
	macTool("csrutil", "disable", "disable", "enable", "clear", "authenticated-root"),
	macTool("spctl", "--master-disable", "--master-disable", "--global-disable", "--add", "--remove", "--disable", "--enable"),
	macTool("tmutil", "disable", "delete", "deletelocalsnapshots", "disable", "setdestination", "removedestination"),
	macTool("systemsetup", "-setremotelogin on", "-set*"),
	macTool("scutil", "--set HostName x", "--set"),
	macTool("networksetup", "-setdnsservers Wi-Fi 1.1.1.1", "-set*", "-add*", "-remove*", "-create*", "-delete*"),
	macTool("dscl", ". -create /Users/x", "-create", "-append", "-delete", "-passwd", "-change", "-merge"),
	macTool("kextload", "x.kext", ""),
	macTool("kmutil", "load -p x", "load", "unload", "create", "install"),
	macTool("profiles", "install -path x", "install", "remove", "-I", "-R"),
	// without its quarantine attribute a downloaded program runs unchecked
	// by Gatekeeper; -c clears every attribute, the quarantine with them
	macTool("xattr", "-d com.apple.quarantine app", "-c", "com.apple.quarantine -d|-w"),
}

// withCmd is t with its flags declared by c.
func withCmd(t *Tool, c *argv.Command) *Tool { t.Cmd = c; return t }

// macTool is name's entry: forms change the system, as example does.
func macTool(name, example string, forms ...string) *Tool {
	return &Tool{Name: name, ChangesSystem: forms, Examples: []argv.Example{want(example, "human human.system-write")}}
}
