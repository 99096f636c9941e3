//go:build unix

package gate

import (
	"os"
	"syscall"
	"time"
)

// linkCount is the number of hard links to a file.
func linkCount(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// dirStamp is what changes when a directory's entries change: its inode,
// mtime and ctime (which no caller can set back).
type dirStamp struct {
	dev, ino     uint64
	mtime, ctime int64 // nanoseconds
}

func stampOf(fi os.FileInfo) dirStamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return dirStamp{mtime: fi.ModTime().UnixNano()}
	}
	return dirStamp{dev: uint64(st.Dev), ino: uint64(st.Ino), mtime: fi.ModTime().UnixNano(),
		ctime: time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)).UnixNano()}
}

// racy reports a stamp from limit (the listing's start less the racy
// window) or later: too close to the listing to tell a later change from
// none. A stamp without a ctime is never kept.
func (s dirStamp) racy(limit time.Time) bool {
	l := limit.UnixNano()
	return s.ino == 0 || s.ctime == 0 || s.mtime >= l || s.ctime >= l
}
