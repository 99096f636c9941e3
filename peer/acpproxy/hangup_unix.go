//go:build unix

package acpproxy

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// hangup is closed when the writer of r has closed its end, found without
// reading r (what is unread stays there): a pipe or a socket reports
// POLLHUP whatever data it still holds. It watches until stop is closed.
// A reader that is not a file never reports one.
func hangup(r io.Reader, stop <-chan struct{}) <-chan struct{} {
	ch := make(chan struct{})
	f, ok := r.(*os.File)
	if !ok {
		return ch
	}
	rc, err := f.SyscallConn() // not f.Fd(): that would make the file blocking
	if err != nil {
		return ch
	}
	var fd int32
	if rc.Control(func(raw uintptr) { fd = int32(raw) }) != nil {
		return ch
	}
	go func() {
		for {
			fds := []unix.PollFd{{Fd: fd}} // no events asked: POLLHUP is always reported
			n, err := unix.Poll(fds, 100)
			if err == nil && n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0 {
				close(ch)
				return
			}
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	return ch
}
