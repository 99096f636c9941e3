package cmds

import (
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// The disk tools: block tools that change a disk only with some words
// (fdisk -l lists, parted mklabel rewrites the partition table), the
// formatters, whose every call makes a file system, and the programs that
// serve a shell to the network. Their flags are not declared yet
// (Unknown: Ignore): the words that decide are. A device handed to a
// block tool that only inspects it is still human-only (human.system-path:
// the unknown-program reading of its words).

// BlockTool is a program that partitions, discards or erases block
// devices: a call changes a disk when one of its words is in Changes (a
// long flag also by a prefix, --create=x), when a short flag alone or in a
// cluster is one of ChangeLetters, when Inspects is set and none of its
// words is there, and always when the tool declares none of the three.
type BlockTool struct {
	Cmd           *argv.Command
	Changes       string
	Inspects      string
	ChangeLetters string
}

// device is a disk tool's declaration with its examples.
func device(name string, class argv.Class, ex ...argv.Example) *argv.Command {
	return &argv.Command{Name: name, Class: class, Unknown: argv.Ignore, Examples: ex}
}

// fdiskInspects are the fdisk family's listing and printing words.
const fdiskInspects = "-l --list -p --print print -s --show-size -d --dump --json -J -v --version -V"

// fdiskAs is a member of the fdisk family.
func fdiskAs(name string, ex ...argv.Example) *BlockTool {
	return &BlockTool{Cmd: device(name, argv.Disk, ex...), Inspects: fdiskInspects}
}

var blockTools = []*BlockTool{
	fdiskAs("fdisk", want("-l", "ask"), want("/dev/sda", "deny floor.disk-write")), fdiskAs("sfdisk", ex("-d /dev/sda", "")), fdiskAs("cfdisk"),
	fdiskAs("gdisk", ex("-l /dev/sda", "")), fdiskAs("sgdisk", want("-p /dev/sda", "human human.system-path"), want("-Z /dev/sda", "deny floor.disk-write")),
	// parted's -s is --script, not a listing: its commands say what it does
	{Cmd: device("parted", argv.Disk, want("-l", "ask"), want("-s /dev/sda mklabel gpt", "deny floor.disk-write")),
		Changes:  "mklabel mktable mkpart mkpartfs rm resizepart resize rescue set toggle name type disk_set disk_toggle move cp",
		Inspects: "-l --list print -v --version -h --help"},
	{Cmd: device("hdparm", argv.Disk, want("-I /dev/sda", "human human.system-path"), want("--security-erase p /dev/sda", "deny floor.disk-write")),
		Changes: "--security-erase --security-erase-enhanced --write-sector --trim-sector-ranges --dco-restore --make-bad-sector --fwdownload"},
	// badblocks -w writes test patterns, -n rewrites what it read
	{Cmd: device("badblocks", argv.Disk, want("-sv /dev/sda", "human human.system-path"), want("-wsv /dev/sda", "deny floor.disk-write")), ChangeLetters: "wn"},
	{Cmd: device("cryptsetup", argv.Disk, want("status x", "ask"), want("luksFormat /dev/sda", "deny floor.disk-write")), Changes: "luksFormat erase luksErase reencrypt format"},
	{Cmd: device("mdadm", argv.Disk, want("--detail /dev/md0", "human human.system-path"), want("--create /dev/md0", "deny floor.disk-write")), Changes: "--create -C --zero-superblock --build"},
	{Cmd: device("zpool", argv.Disk, want("status", "ask"), want("create tank /dev/sda", "deny floor.disk-write")), Changes: "create labelclear"},
	{Cmd: device("blkdiscard", argv.Disk, want("/dev/sda", "deny floor.disk-write"))},
	{Cmd: device("pvcreate", argv.Disk, ex("/dev/sda", ""))},
	{Cmd: device("vgcreate", argv.Disk, ex("vg0 /dev/sda", ""))},
}

var blockToolIndex = index(blockTools, func(b *BlockTool) string { return b.Cmd.Name })

// BlockToolOf is the block tool declared for name, or nil.
func BlockToolOf(name string) *BlockTool { return blockToolIndex()[name] }

// formatters create a file system: mkfs and newfs name a family
// (mkfs.ext4, newfs_msdos); the others are twins under their own names.
var formatters = []*argv.Command{
	mkfs, newfs,
	device("mke2fs", argv.Formatter, ex("/dev/sda1", "")), device("mkswap", argv.Formatter, ex("/dev/sda2", "")),
	device("wipefs", argv.Formatter, want("-a /dev/sda", "deny floor.mkfs")), device("mkntfs", argv.Formatter), device("mkdosfs", argv.Formatter),
	device("mkfatfs", argv.Formatter), device("mkexfatfs", argv.Formatter), device("mkudffs", argv.Formatter),
	device("mkreiserfs", argv.Formatter), device("mkjfs", argv.Formatter), device("mkhfs", argv.Formatter),
}

var (
	mkfs  = device("mkfs", argv.Formatter, want("-t ext4 /dev/sda1", "deny floor.mkfs"))
	newfs = device("newfs", argv.Formatter, want("/dev/da0", "deny floor.mkfs"))
)

// prefixFamilies are the declarations whose name starts a family of
// programs (mkfs.ext4, newfs_msdos).
var prefixFamilies = []*argv.Command{mkfs, newfs}

// shellServers serve a shell to the network; zsh's ztcp is its /dev/tcp.
var shellServers = []*argv.Command{
	device("ttyd", argv.ShellServer, want("-p 7681 bash", "deny floor.reverse-shell")), device("gotty", argv.ShellServer, want("-w bash", "deny floor.reverse-shell")),
	device("ztcp", argv.ShellServer, ex("example.com 23", "")), device("zsocket", argv.ShellServer),
}

// disks are the disk tools' declarations.
func disks() []*argv.Command {
	out := make([]*argv.Command, 0, len(blockTools)+len(formatters)+len(shellServers))
	for _, b := range blockTools {
		out = append(out, b.Cmd)
	}
	return append(append(out, formatters...), shellServers...)
}

// familyOf is the declaration of the prefix family name belongs to, nil
// when it belongs to none.
func familyOf(name string) *argv.Command {
	for _, c := range prefixFamilies {
		if strings.HasPrefix(name, c.Name) {
			return c
		}
	}
	return nil
}
