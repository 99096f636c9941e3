//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package peer

// fionread is FIONREAD, _IOR('f', 127, int), the same on macOS and the BSDs;
// golang.org/x/sys does not define it for them.
const fionread = 0x4004667f
