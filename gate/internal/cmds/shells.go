package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The shells' own options, the words before the -c string or the script
// (+o NAME is read as -o NAME). Most set shell options and are harmless;
// a startup file a shell sources (bash --rcfile FILE) is code it runs
// (argv.Source), a file it writes is a write (fish --profile FILE), and an
// option a declaration lacks makes the call not known-safe (SPEC §5.1).

// sources are flags whose value is a file of code the shell runs first.
func sources(names string) argv.Flag {
	return argv.Flag{Names: names, Arity: argv.Value, Role: argv.Source}
}

// shell is a shell's wrapper entry with its options declared.
func shell(name string, f []argv.Flag, ex ...argv.Example) *Wrapper {
	return &Wrapper{Name: name, Wrap: Shell, Opts: &argv.Command{Name: name, Flags: f, StopAtOperand: true},
		Examples: append([]argv.Example{want("-c 'rm -rf ~'", floorInside)}, ex...)}
}

// posixLetters are the set options every POSIX shell takes as flags.
const posixLetters = "-a -b -C -e -f -h -i -m -n -s -u -v -x -c -l -p -E -V -q "

var (
	bashOpts = with(flags(posixLetters+"-B -H -P -T -k -r -t -D --login --norc --noprofile --posix --restricted --verbose "+
		"--noediting --debugger --dump-strings --dump-po-strings --pretty-print --debug --wordexp", "-o -O", ""),
		sources("--rcfile --init-file"))
	kshOpts = with(flags(posixLetters+"-k -r -t -X -U -B -G -H -D", "-o -T", ""), writes("-R"))
	// zsh takes every letter as an option and every option name spelled
	// --name; the common ones are declared
	zshOpts = flags(posixLetters+"-0 -1 -2 -3 -4 -5 -6 -7 -8 -9 -A -B -D -F -G -I -J -K -L -M -N -O -P -Q -R -S -T -U -W -X -Y -Z "+
		"-d -g -j -k -o -r -t -w -y --login --interactive --no-rcs --norcs --no-globalrcs --noglobalrcs --shinstdin "+
		"--errexit --err-exit --xtrace --verbose --no-exec --noexec --nounset --pipefail --pipe-fail --sh-word-split "+
		"--shwordsplit --extended-glob --extendedglob --no-glob --noglob --privileged --single-command --posix-builtins", "-o --emulate", "")
	yashOpts = with(flags(posixLetters+"--login --interactive --noprofile --norcfile --posix", "-o", ""),
		sources("--profile --rcfile"))
	fishOpts = with(flags("-i --interactive -l --login -n --no-execute -P --private -N --no-config --print-rusage-self "+
		"--print-debug-categories -c --command", "-d --debug --features -D --debug-stack-frames", ""),
		runs("-C --init-command"), writes("-o --debug-output"), writes("-p --profile"), writes("--profile-startup"))
	cshOpts = flags("-b -c -d -e -f -F -i -l -m -n -q -s -t -v -V -x -X -Y", "", "")
)

// shells are the shells: sh -c 'CMD', bash x.sh, echo CMD | sh.
func shells() []*Wrapper {
	out := []*Wrapper{
		shell("bash", bashOpts, want("-euo pipefail -c ls", "allow"), want("-O extglob -c ls", "allow"),
			want("--rcfile evil.sh -i -c ls", "ask ask.source"), want("--init-file=x.sh -ic ls", "ask ask.source"),
			want("--zz -c ls", "ask ask.flag")),
		shell("rbash", bashOpts),
		shell("zsh", zshOpts, want("-f -c ls", "allow"), want("--no-rcs -c ls", "allow")),
		shell("yash", yashOpts, want("--rcfile x.sh -i -c ls", "ask ask.source")),
		shell("fish", fishOpts, want("-c ls", "allow"), want("-C 'rm -rf ~' -c ls", "ask"),
			want("--profile ~/.bashrc -c ls", "human human.persistence-write")),
		shell("csh", cshOpts), shell("tcsh", cshOpts, want("-f -c ls", "allow")),
	}
	for _, n := range []string{"sh", "dash", "ash", "posh"} {
		out = append(out, shell(n, flags(posixLetters, "-o", ""), want("-e -c ls", "allow"), want("+e -c ls", "allow")))
	}
	for _, n := range []string{"ksh", "mksh", "ksh93", "oksh", "pdksh"} {
		out = append(out, shell(n, kshOpts))
	}
	return out
}
