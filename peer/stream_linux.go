package peer

import "golang.org/x/sys/unix"

// fionread is Linux's name for FIONREAD on a pipe or tty.
const fionread = unix.TIOCINQ
