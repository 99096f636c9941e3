//go:build linux || darwin || dragonfly || freebsd || netbsd || openbsd

package peer

import "golang.org/x/sys/unix"

// bytesReadable is the number of bytes waiting to be read on fd (FIONREAD;
// TIOCINQ on Linux), or -1 when the call fails.
func bytesReadable(fd uintptr) int {
	n, err := unix.IoctlGetInt(int(fd), fionread)
	if err != nil {
		return -1
	}
	return n
}
