//go:build unix && !linux

package acpproxy

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the agent in a process group of its own. These systems have
// no parent-death signal in SysProcAttr: an agent that reads its stdin ends
// at its EOF when perm-peer dies; a busy one may outlive it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
