package acpproxy

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the agent in a process group of its own and has the kernel
// kill it when perm-peer dies, however it dies (SIGKILL included): a busy
// agent must not run on unguarded.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
