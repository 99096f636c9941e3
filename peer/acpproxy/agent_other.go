//go:build !unix

package acpproxy

import (
	"os/exec"
	"syscall"
)

func ownGroup(*exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func groupAlive(*exec.Cmd) bool { return false }
