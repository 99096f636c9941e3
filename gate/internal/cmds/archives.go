package cmds

import "github.com/perm-peer/perm-peer/gate/internal/argv"

// The archivers: what they extract, create, list or stream to stdout is
// read by the hook each entry names (gate/hooks_archive.go): tar's
// letters, zip's and 7-Zip's command forms. unzip and gunzip, which the
// gate finds known-safe when they only list or test, are in safe.go.

// tarCmd is tar under name (GNU tar, bsdtar): its flags, in old, short and
// long style, are read by package scripts' ReadTar, which the hook asks
// about one it lacks.
func tarCmd(name string, ex ...argv.Example) *argv.Command {
	return &argv.Command{Name: name, Unknown: argv.ByHook, Hook: "tar", Examples: ex}
}

// sevenZipFlags are 7-Zip's switches: one letter and its value attached
// (-o{dir}, -t7z, -mx=9, -x!*.log, -slt, -bb3, -r-), -y alone.
var sevenZipFlags = flags("-y", "", "-a -b -i -m -o -p -r -s -t -u -v -w -x")

// sevenZip is 7-Zip under name; its first operand is a command letter
// (a, x, l, …).
func sevenZip(name, hook string, ex ...argv.Example) *argv.Command {
	return &argv.Command{Name: name, Flags: sevenZipFlags, Hook: hook, Examples: ex}
}

var archivers = []*argv.Command{
	tarCmd("tar", want("-tzf vendor.tgz", "allow"), want("-czf out.tgz src", "ask"), want("-xf a.tar -C /etc", "human human.system-write"),
		want("-cf - . --to-command=sh", "human human.sensitive-read"), want("-tf host:a.tar", "ask ask.network"),
		want("--list -f /etc/a.tar", "ask ask.outside-read")),
	tarCmd("bsdtar", want("-tf a.tar", "allow"), want("-xf a.tar -C out", "ask ask.write")),
	// Info-ZIP zip: NAME FILES… writes NAME, -r packs directories, -TT and
	// --unzip-command run a command to test the archive
	withHook("zip", gnu("zip", with(flags("-r -R --recurse-paths -j --junk-paths -q --quiet -v --verbose -y --symlinks -u --update -f --freshen "+
		"-m --move -T --test -e --encrypt -D --no-dir-entries -X --no-extra -o --latest-time -l --to-crlf -z --archive-comment "+
		"-F --fix -A --adjust-sfx -J --junk-sfx -g --grow -k --DOS-names -L --license -c --entry-comments -d --delete -@ --names-stdin "+
		"-S --system-hidden -0 -1 -2 -3 -4 -5 -6 -7 -8 -9",
		"-b --temp-path -n --suffixes -t --from-date -O --output-file -P --password -Z --compression-method -s --split-size -i --include -x --exclude", ""),
		runs("--unzip-command"))),
		want("-r out.zip src", "ask ask.write"), want("-TT 'rm -rf ~' out.zip a.txt", "deny floor.rm-root")),
	withHook("gzip", gnu("gzip", flags(zcats+" -k --keep --synchronous --rsyncable --fast --best -1 -2 -3 -4 -5 -6 -7 -8 -9", "-S --suffix", "")),
		want("-k notes.txt", "ask"), want("-d notes.txt.gz", "ask")),
	sevenZip("7z", "7z", want("l a.7z", "allow"), want("x a.7z -oout", "ask ask.write"), want("a out.7z src", "ask ask.write")),
	sevenZip("7za", "7z", want("t a.7z", "allow")), sevenZip("7zr", "7z", want("l a.7z", "allow")),
	// 7-Zip's current binary (7-zip.org's 7zz), the same command line
	sevenZip("7zz", "7z", want("l a.7z", "allow"), want("x a.7z -o/etc/app", "human human.system-write")),
}
