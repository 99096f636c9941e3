package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/perm-peer/perm-peer/protocol"
)

// The disk tools decide by their table entries (cmds/disk.go): a block
// tool changes a disk with the words its entry names, and only then is
// a disk device its floor; a formatter, under any name of its family, and
// a shell server are floors whatever their words.
func TestDiskToolsByTable(t *testing.T) {
	e := env(protocol.Policy{})
	floors := map[string]string{
		"parted -s /dev/sda mklabel gpt":     "floor.disk-write",
		"parted /dev/sda":                    "floor.disk-write", // no listing word: its prompt changes the disk
		"fdisk /dev/sda":                     "floor.disk-write",
		"badblocks -wsv /dev/sda":            "floor.disk-write",
		"hdparm --security-erase p /dev/sda": "floor.disk-write",
		"mdadm --create=x /dev/sda":          "floor.disk-write", // a long flag by its prefix
		"blkdiscard /dev/nvme0n1":            "floor.disk-write",
		"mkfs.ext4 /dev/sda1":                "floor.mkfs",
		"newfs_msdos /dev/da0":               "floor.mkfs",
		"wipefs -a /dev/sda":                 "floor.mkfs",
		"ttyd -p 7681 bash":                  "floor.reverse-shell",
	}
	for cmd, code := range floors {
		v := Analyze(bash(cmd), e)
		assert.Equal(t, protocol.DecisionDeny, v.Decision, cmd)
		assert.Contains(t, codes(v), code, cmd)
	}
	for _, cmd := range []string{"parted -l", "fdisk -l /dev/sda", "sgdisk -p /dev/sda", "badblocks -sv /dev/sda", "hdparm -I /dev/sda",
		"zpool status", "cryptsetup status x", "fdisk -l /tmp/disk.img"} {
		assert.NotEqual(t, protocol.DecisionDeny, Analyze(bash(cmd), e).Decision, cmd)
	}
}

// The file tools with a file flag decide by their table entries
// (cmds/files.go): patch's first operand, -o, -d, -r and -i, shuf's and iconv's
// -o in every spelling optionValues reads, iconv's operands as reads.
func TestFileToolsByTable(t *testing.T) {
	e := env(protocol.Policy{})
	human := map[string]string{
		"patch -o ~/.bashrc in.c fix.diff":   "human.persistence-write",
		"patch -d /home/u -p1 -i x.diff":     "human.outside-write",
		"patch -r ~/.bashrc -p1 -i x.diff":   "human.persistence-write", // the rejects' file
		"patch -p1 -i ~/.ssh/id_rsa":         "human.sensitive-read",
		"patch ~/.zshrc fix.diff":            "human.persistence-write",
		"shuf -o ~/.bashrc words.txt":        "human.persistence-write",
		"shuf -no ~/.bashrc 3 words.txt":     "human.persistence-write", // o found in a cluster
		"iconv --out=/home/u/.profile x.txt": "human.persistence-write",
		"iconv -f latin1 -t utf-8 .env":      "human.sensitive-read",
	}
	for cmd, code := range human {
		v := Analyze(bash(cmd), e)
		assert.True(t, v.HumanOnly, cmd)
		assert.Contains(t, codes(v), code, cmd)
	}
	assert.False(t, Analyze(bash("iconv -f .env -t utf-8 x.txt"), e).HumanOnly, "-f's value is an encoding, not a file")
}
