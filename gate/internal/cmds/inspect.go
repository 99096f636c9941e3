package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// inspectors read the files they are given and print what is inside:
// binaries' headers, symbols and disassembly (binutils), lint findings
// with the lines they quote (shellcheck, hadolint). They run nothing and
// write nothing, but print contents: a secret handed to one is read.
// binutils' --plugin loads a shared library: it runs code.
var inspectors = []*argv.Command{
	gnu("readelf", flags("-a --all -h --file-header -l --program-headers --segments -S --section-headers --sections -g --section-groups "+
		"-t --section-details -e --headers -s --syms --symbols --dyn-syms --lto-syms -C --demangle -N --no-demangle -n --notes "+
		"-r --relocs -u --unwind -d --dynamic -V --version-info -A --arch-specific -D --use-dynamic -L --lint --enable-checks "+
		"-I --histogram -W --wide -H -v -z --decompress -T --silent-truncation --ctf-symbols --ctf-strings --ctf-parent --got-contents",
		"-x --hex-dump -p --string-dump -R --relocated-dump --ctf --dwarf-depth --dwarf-start --sym-base", "-w --debug-dump --sframe"),
		want("-h a.out", "allow"), want("-Ws build/app", "allow"), want("-x .rodata .env", "human human.sensitive-read"), ex("-Q a.out", "-Q")),
	gnu("objdump", with(flags("-a --archive-headers -f --file-headers -p --private-headers -h --section-headers --headers -x --all-headers "+
		"-D --disassemble-all -S --source -s --full-contents -g --debugging -e --debugging-tags -G --stabs -t --syms -T --dynamic-syms "+
		"-r --reloc -R --dynamic-reloc -v -i --info -H -l --line-numbers -w --wide -z --disassemble-zeroes -F --file-offsets "+
		"-L --process-links --no-show-raw-insn --show-raw-insn --prefix-addresses --no-addresses --special-syms --no-recurse-limit "+
		"--recurse-limit --visualize-jumps --source-comment -V",
		"-b --target -m --architecture -j --section -M --disassembler-options -I --include --start-address --stop-address "+
			"--adjust-vma --prefix --prefix-strip --insn-width --dwarf-depth --dwarf-start",
		"-d --disassemble -C --demangle -W --dwarf -P --private"), runs("--plugin")),
		want("-d a.out", "allow"), want("-s -j .data app", "allow"), want("--plugin ./x.so -d a.out", "ask ask.flag"), ex("-Q a.out", "-Q")),
	gnu("nm", with(flags("-a --debug-syms -A -o --print-file-name -B -C --demangle --no-demangle -D --dynamic -e -g --extern-only "+
		"-j -l --line-numbers -n -v --numeric-sort -p --no-sort -P --portability -r --reverse-sort -S --print-size -s --print-armap "+
		"-u --undefined-only -U --defined-only -V -W --no-weak --size-sort --special-syms --synthetic --with-symbol-versions "+
		"--without-symbol-versions --quiet", "-f --format -t --radix --target -X --ifunc-chars", ""), runs("--plugin")),
		want("-C app", "allow"), want("--plugin x.so app", "ask ask.flag"), ex("-Q app", "-Q")),
	counts(gnu("size", flags("-A -B -G -d -o -x -t --totals --common", "--format --radix --target", ""),
		want("app", "allow"), ex("-Q app", "-Q"))),
	gnu("shellcheck", with(flags("-a --check-sourced -x --external-sources --norc --list-optional",
		"-e --exclude -f --format -i --include -o --enable -P --source-path -s --shell -S --severity -W --wiki-link-count",
		"-C --color --extended-analysis"), reads("--rcfile")),
		want("-x scripts/*.sh", "allow"), want("-f gcc -S warning run.sh", "allow"), ex("-Q run.sh", "-Q")),
	gnu("hadolint", with(flags("-v --version --no-fail --no-color -V --verbose --strict-labels --disable-ignore-pragma",
		"-f --format -t --failure-threshold --ignore --error --warning --info --style --trusted-registry --require-label --file-path-in-report", ""),
		reads("-c --config")),
		want("Dockerfile", "allow"), want("--ignore DL3008 Dockerfile", "allow"), ex("-Q Dockerfile", "-Q")),
	// yamllint prints each problem's line, column and rule; -c names the
	// configuration it reads (YAML: rules, no code)
	gnu("yamllint", with(flags("--list-files -s --strict --no-warnings -v", "-d --config-data -f --format", ""), reads("-c --config-file")),
		want(".", "allow"), want("-f parsable -s k8s/", "allow"), want(".env", "human human.sensitive-read"), ex("-Q x.yml", "-Q")),
	// tokei counts lines of code by language: -o picks the format it
	// prints (json, yaml), -i reads a count it printed before
	counts(&argv.Command{Name: "tokei", Flags: with(flags("-f --files --hidden -l --languages --no-ignore --no-ignore-dot --no-ignore-parent "+
		"--no-ignore-vcs -C --compact -v --verbose -V", "-c --columns -e --exclude -o --output -s --sort -t --type -n --num-format --streaming", ""),
		reads("-i --input")),
		Examples: []argv.Example{want("", "allow"), want("-t Go,Rust -e vendor .", "allow"), want("-o json src", "allow"), ex("-Q .", "-Q")}}),
}
