package gate

import (
	"os"
	"path/filepath"
	"sync"
	"time"
)

// A recursive search walks its scope for sensitive files on every call
// (searchscope.go), and most of that time is system calls: a getdents per
// directory and an lstat per regular file for its link count. A session
// searches the same tree again and again, so the long-lived peer keeps the
// listings it read in a DirCache and the next walk stats each directory
// once instead. What the walk decides from a listing (sensitive names,
// links followed, hard-link twins of files with more than one link) is
// decided again on every call: only the listing is remembered.
//
// A listing is reused only while its directory is the same inode with the
// same mtime and ctime. Creating, removing or renaming an entry changes
// both, and ctime cannot be set back by a caller (touch -d sets mtime
// only). A directory changed within racyWindow of its listing is not
// kept: a change in the same clock tick as the listing would leave the
// stamps as they were (git's "racily clean" entries).

// racyWindow is how recent a directory's change may be for its listing to
// be kept: more than the coarsest timestamp granularity of the file
// systems a project lives on (FAT's 2 s).
const racyWindow = 2 * time.Second

// maxCachedDirs bounds the listings a DirCache holds.
const maxCachedDirs = 4096

// DirCache remembers directory listings across calls of Analyze. It is
// safe for concurrent use; the zero value is not: use NewDirCache.
type DirCache struct {
	window time.Duration // racyWindow
	max    int           // maxCachedDirs
	mu     sync.Mutex
	dirs   map[string]*listing
}

// NewDirCache returns an empty cache.
func NewDirCache() *DirCache {
	return &DirCache{window: racyWindow, max: maxCachedDirs, dirs: make(map[string]*listing)}
}

// listing is a directory's entries as os.ReadDir returned them (sorted by
// name), read while the directory had stamp.
type listing struct {
	stamp dirStamp
	ents  []dirEnt
}

// dirEnt is one entry of a listing.
type dirEnt struct {
	name  string
	typ   os.FileMode // the type bits of os.DirEntry.Type
	links uint64      // a regular file's link count when it was listed
}

func (e dirEnt) isDir() bool { return e.typ.IsDir() }

// readDir lists dir, from c when the listing there is current. A nil
// cache reads the directory every time.
func (c *DirCache) readDir(dir string) ([]dirEnt, error) {
	if c == nil {
		ents, _, err := listDir(dir)
		return ents, err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	st := stampOf(fi)
	c.mu.Lock()
	l := c.dirs[dir]
	c.mu.Unlock()
	if l != nil && l.stamp == st {
		return l.ents, nil
	}
	start := time.Now()
	ents, after, err := listDir(dir)
	if err != nil {
		return nil, err
	}
	if after != st || st.racy(start.Add(-c.window)) {
		return ents, nil // changed while it was read, or too recently
	}
	c.mu.Lock()
	if len(c.dirs) >= c.max {
		for k := range c.dirs { // drop an arbitrary listing
			delete(c.dirs, k)
			break
		}
	}
	c.dirs[dir] = &listing{stamp: st, ents: ents}
	c.mu.Unlock()
	return ents, nil
}

// listDir reads dir's entries, with the link count of each regular file,
// and the directory's stamp after the read.
func listDir(dir string) ([]dirEnt, dirStamp, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, dirStamp{}, err
	}
	ents := make([]dirEnt, len(des))
	for i, d := range des {
		ents[i] = dirEnt{name: d.Name(), typ: d.Type(), links: 1}
		if d.Type().IsRegular() {
			// notes.txt made by ln .env notes.txt is .env: the count is
			// only in the inode
			if fi, err := d.Info(); err == nil {
				ents[i].links = linkCount(fi)
			}
		}
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, dirStamp{}, err
	}
	return ents, stampOf(fi), nil
}

// linkedInfo is the file information of a listed file with more than one
// link, read now: whose twin it is may have changed since it was listed.
func linkedInfo(p string, e dirEnt) (os.FileInfo, bool) {
	if e.links <= 1 {
		return nil, false
	}
	fi, err := os.Lstat(p)
	return fi, err == nil && fi.Mode().IsRegular() && linkCount(fi) > 1
}

// joinEnt is the path of entry e of dir.
func joinEnt(dir string, e dirEnt) string { return filepath.Join(dir, e.name) }
