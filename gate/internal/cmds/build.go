package cmds

import (
	"slices"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// The build tools, toolchains and test runners (Tool, pkg.go).

// loads are a build tool's flags that load code (runs) or read a build
// file or directory (paths), for Tool.Loads.
func loads(runs, paths string) []argv.Flag {
	var out []argv.Flag
	if runs != "" {
		out = append(out, argv.Flag{Names: runs, Arity: argv.Value, Role: argv.Run})
	}
	return append(out, argv.Flag{Names: paths, Arity: argv.Value, Role: argv.Read})
}

var (
	gradleLoads = loads("-I --init-script", "-b --build-file -c --settings-file -p --project-dir")
	mvnLoads    = loads("", "-s --settings -gs --global-settings -f --file")
)

// goFlags are the go command's flags that run a program (Role Run), write
// a file (Write: -o, the test profiles), swap in source files (Source:
// -overlay), read a go.mod (Read: -modfile), or change where or how it
// builds (-C DIR, -ldflags, -w and -u of go env and go get, -pgo).
var goFlags = &argv.Command{Name: "go", GoFlags: true, Flags: []argv.Flag{
	{Names: "-exec -toolexec -vettool", Arity: argv.Value, Role: argv.Run},
	{Names: "-o", Arity: argv.Value, Role: argv.Write},
	{Names: "-coverprofile -cpuprofile -memprofile -blockprofile -mutexprofile -trace -outputdir", Arity: argv.Value, Role: argv.Write, Each: true},
	{Names: "-overlay", Arity: argv.Value, Role: argv.Source},
	{Names: "-modfile", Arity: argv.Value, Role: argv.Read},
	{Names: "-C", Arity: argv.Value},
	{Names: "-ldflags", Arity: argv.Value},
	{Names: "-w -u -pgo", Each: true},
}}

// goSubs are the go command's queries.
var goSubs = []*argv.Command{
	sub("version", flags("-m -v", "", "")),
	sub("env", flags("-json -changed", "", "")),
	sub("list", flags("-compiled -deps -e -export -find -json -m -retracted -test -u -versions -reuse -a -n -x -v -race -msan -asan -trimpath -mod=mod -mod=readonly -mod=vendor",
		"-f -tags -mod -C", ""), ex("./...", ""), ex("-m all", ""), ex("-f '{{.Dir}}' .", "")),
	sub("doc", flags("-all -c -cmd -short -src -u", "", "")),
	// go vet's own flags, its analyzers' switches (-printf=false) and the
	// build flags that only select what it reads
	goStyle(sub("vet", flags("-json -n -x -v -a -race -trimpath "+goVetAnalyzers, "-c -tags -mod -C", ""), ex("./...", ""), ex("-json -printf=false ./pkg/...", ""))),
	// go mod's queries: graph prints the module graph (like go list -m
	// all), why the import paths that need a package or module, verify
	// checks the module cache's hashes; the other go mod forms write
	// go.mod, go.sum or vendor/ and are not declared
	tool("mod", flags("", "", ""),
		goStyle(sub("graph", flags("-x", "-go", ""), ex("-go=1.21", ""), ex("-go 1.21", ""))),
		goStyle(sub("why", flags("-m -vendor", "", ""), ex("-m golang.org/x/net", ""))),
		goStyle(sub("verify", flags("", "", "")))),
}

// goVetAnalyzers are go vet's analyzers, each a switch that turns it on
// or off (go tool vet help).
const goVetAnalyzers = "-appends -asmdecl -assign -atomic -bools -buildtag -cgocall -composites -copylocks -defers -directive -errorsas " +
	"-framepointer -httpresponse -ifaceassert -loopclosure -lostcancel -nilfunc -printf -shift -sigchanyzer -slog -stdmethods " +
	"-stdversion -stringintconv -structtag -testinggoroutine -tests -timeformat -unmarshal -unreachable -unsafeptr -unusedresult -waitgroup"

// goStyle says c's flags are read as Go's flag package reads them
// (-go=1.21, --m).
func goStyle(c *argv.Command) *argv.Command { c.GoFlags = true; return c }

// makeFlags are GNU make's options, long ones by unique prefix: the
// makefiles it reads (Role Source: their recipes are code it runs), the
// directories (-C, -I: Role Read), --eval's recipe (Role Run); -j, -l
// and -O are switches when short and take an attached value when long.
// An option make lacks is read as a switch, the rest of its cluster read
// on (Unknown: Skip): make refuses it, and a call of make is never
// known-safe but for --version.
func makeFlags(name string) *argv.Command {
	return &argv.Command{Name: name, Abbrev: true, Unknown: argv.Skip, Flags: with(
		flags("-b -m -B|--always-make -d -e|--environment-overrides -i|--ignore-errors -k|--keep-going -L|--check-symlink-times "+
			"-n|--just-print|--dry-run|--recon -p|--print-data-base -q|--question -r|--no-builtin-rules -R|--no-builtin-variables "+
			"-s|--silent|--quiet --no-silent -S|--no-keep-going|--stop -t|--touch --trace -v -w|--print-directory "+
			"--no-print-directory --warn-undefined-variables -j -l -O -h",
			"-o|--old-file|--assume-old -W|--what-if|--new-file|--assume-new",
			"--jobs --load-average --output-sync --debug --shuffle"),
		argv.Flag{Names: "-f --file --makefile", Arity: argv.Value, Role: argv.Source},
		argv.Flag{Names: "-C|--directory -I|--include-dir", Arity: argv.Value, Role: argv.Read, Each: true},
		argv.Flag{Names: "-E --eval", Arity: argv.Value, Role: argv.Run})}
}

// version is a program whose entry says only that its --version (-V,
// version, -version) alone prints its version.
func version(name string) *Tool {
	return &Tool{Name: name, Version: true, Examples: []argv.Example{want("--version", "allow"), want("-V", "allow")}}
}

// buildTools are the build tools.
var buildTools = []*Tool{
	{Name: "go",
		Cmd:         tool("go", flags("", "", ""), goSubs...),
		Flags:       goFlags,
		Hook:        "go",
		Grant:       BySub,
		Nested:      []string{"mod", "work"},
		Installs:    slices.Concat(installWords, []string{"get"}),
		OntoPath:    []string{"install"},
		DryRuns:     []string{"-n"},
		Module:      "go",
		FetchesURLs: true,
		Examples: []argv.Example{want("test ./...", "ask"), want("list -m all", "allow"), want("mod why golang.org/x/net", "allow"),
			want("mod tidy", "ask"), want("vet ./...", "allow"), want("vet -vettool=/tmp/x ./...", "ask ask.flag"), want("list -m -u all", "allow"), want("mod why -m -json x", "ask ask.flag"), want("build -toolexec x ./...", "ask ask.flag"),
			want("install golang.org/x/tools/gopls@latest", "human human.outside-write"), want("env -w GOFLAGS=-x", "human human.persistence-write")},
	},
	{Name: "make",
		Cmd:     makeFlags("make"),
		Hook:    "make",
		Grant:   BySub,
		Version: true,
		Examples: []argv.Example{want("test", "ask"), want("-f /tmp/Makefile", "ask ask.flag"),
			want("-p", "human human.env-dump"), want("SHELL=/bin/zsh all", "ask ask.flag")},
	},
	{Name: "gmake", Cmd: makeFlags("gmake"), Hook: "make", Examples: []argv.Example{want("--eval='x:;rm -rf ~' x", "deny floor.rm-root")}},
	{Name: "gradle",
		Hook:    "loaders",
		Grant:   BySub,
		Loads:   gradleLoads,
		Version: true,
		Examples: []argv.Example{want("-I init.gradle build", "ask ask.flag"),
			want("-b /tmp/build.gradle build", "ask ask.flag"), want("build", "ask")},
	},
	{Name: "gradlew",
		Hook:     "loaders",
		Loads:    gradleLoads,
		Examples: []argv.Example{want("--init-script=x.gradle build", "ask ask.flag")},
	},
	{Name: "mvn",
		Hook:     "loaders",
		Grant:    BySub,
		Loads:    mvnLoads,
		Version:  true,
		Examples: []argv.Example{want("-s /tmp/settings.xml package", "ask ask.flag")},
	},
	{Name: "mvnw", Hook: "loaders", Loads: mvnLoads, Examples: []argv.Example{want("-f pom.xml package", "ask")}},
	{Name: "just",
		Hook:     "loaders",
		Grant:    BySub,
		Loads:    loads("--shell --shell-arg --shell-command", "-f --justfile -d --working-directory"),
		Examples: []argv.Example{want("--shell python3 build", "ask ask.flag")},
	},
	// pytest -p no:cacheprovider turns a plugin off (hooks_build.go)
	{Name: "pytest",
		Hook:      "loaders",
		Loads:     loads("-p", "-c --config-file --rootdir --confcutdir"),
		PluginOff: "no:",
		Examples:  []argv.Example{want("-p evil tests", "ask ask.flag"), want("-p no:cacheprovider tests", "ask")},
	},
	{Name: "dotnet", Grant: BySub, Installs: installWords, Version: true, Examples: []argv.Example{want("--version", "allow"), want("add package Newtonsoft.Json", "ask")}},
	{Name: "rustup", Grant: BySub, Version: true, Examples: []argv.Example{want("--version", "allow")}},
	{Name: "swift", Grant: BySub, Version: true, Examples: []argv.Example{want("--version", "allow")}},
	{Name: "zig", Grant: BySub, Version: true, Examples: []argv.Example{want("--version", "allow")}},
	{Name: "task", Grant: BySub, Examples: []argv.Example{want("build", "ask")}},
	{Name: "nx", Grant: BySub, Examples: []argv.Example{want("build", "ask")}},
	{Name: "turbo", Grant: BySub, Examples: []argv.Example{want("build", "ask")}},
	// compilers, toolchains and clients whose --version only prints it
	version("rustc"), version("gcc"), version("g++"), version("clang"), version("cc"), hookedTool("cmake", version("cmake")), version("javac"),
	version("tsc"), fixer(version("eslint")), fixer(version("prettier")), version("ninja"), version("bazel"), version("protoc"), hookedTool("psql", version("psql")),
	hookedTool("sqlite3", version("sqlite3")), hookedTool("db-client", version("mysql")), hookedTool("db-client", version("mariadb")),
}
