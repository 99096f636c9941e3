//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package peer

import "golang.org/x/sys/unix"

// fionread is FIONREAD, _IOR('f', 127, int), the same on macOS and the BSDs;
// golang.org/x/sys does not define it for them.
const fionread = 0x4004667f

// bytesReadable is the number of bytes waiting to be read on fd
// (FIONREAD), or -1 when the call fails.
func bytesReadable(fd uintptr) int {
	n, err := unix.IoctlGetInt(int(fd), fionread)
	if err != nil {
		return -1
	}
	return n
}
