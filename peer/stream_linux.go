package peer

import "golang.org/x/sys/unix"

// bytesReadable is the number of bytes waiting to be read on fd (TIOCINQ,
// Linux's FIONREAD), or -1 when the call fails.
func bytesReadable(fd uintptr) int {
	n, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ)
	if err != nil {
		return -1
	}
	return n
}
