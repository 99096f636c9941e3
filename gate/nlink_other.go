//go:build !unix

package gate

import (
	"os"
	"time"
)

// linkCount is the number of hard links to a file (unknown here: one).
func linkCount(os.FileInfo) uint64 { return 1 }

// dirStamp is a directory's mtime; without a ctime it is not trusted to
// show a change, so no listing is kept (racy).
type dirStamp struct{ mtime int64 }

func stampOf(fi os.FileInfo) dirStamp { return dirStamp{mtime: fi.ModTime().UnixNano()} }

func (dirStamp) racy(time.Time) bool { return true }
