package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/perm-peer/perm-peer/regfile"
)

// maxSettingsBytes caps a host settings file, as gate.MaxPolicyBytes caps
// a policy: a real one is a few KB.
const maxSettingsBytes = 16 << 20

var settingsKind = regfile.Kind{One: "settings file", Many: "settings files"}

// settingsFile is a host's settings file as setup found it. A symlink is
// followed: setup writes through it to its target, so that a dotfiles
// manager's link stays a link.
type settingsFile struct {
	path   string // as the host names it
	target string // after symlinks
	data   []byte
	info   fs.FileInfo // nil: the file does not exist yet
}

// readSettings reads path with the checks policy files get (a regular file
// of at most maxSettingsBytes); a missing file reads as empty.
func readSettings(path string) (*settingsFile, error) {
	target, err := followLinks(path)
	if err != nil {
		return nil, err
	}
	f := &settingsFile{path: path, target: target}
	data, fi, err := regfile.Read(target, maxSettingsBytes, settingsKind)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return f, nil
	case err != nil:
		if target != path {
			return nil, fmt.Errorf("%w (%s is a symlink to it)", err, path)
		}
		return nil, err
	}
	f.data, f.info = data, fi
	return f, nil
}

// followLinks resolves the symlinks of path's last element (its directory
// may hold links too; the file is written beside its target).
func followLinks(path string) (string, error) {
	p := path
	for range 40 {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", fmt.Errorf("read %s: %w", path, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		link, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", path, err)
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(p), link)
		}
		p = link
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// where names the file for messages: "X" or "X (a symlink to Y)".
func (f *settingsFile) where() string {
	if f.target != f.path {
		return f.path + " (a symlink to " + f.target + ")"
	}
	return f.path
}

// writable refuses what setup must not replace: a read-only file, one the
// user cannot write, one that belongs to someone else (the rename would
// give it to the user running setup), a directory it cannot write in.
func (f *settingsFile) writable() error {
	dir := filepath.Dir(f.target)
	if f.info == nil {
		if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", dir)
		} else if err != nil && f.target != f.path {
			return fmt.Errorf("%s is a symlink to %s, whose directory does not exist", f.path, f.target)
		}
		return nil
	}
	if f.info.Mode().Perm()&0o222 == 0 {
		return fmt.Errorf("%s is read-only (mode %04o): setup does not replace it; make it writable or add the hooks by hand", f.where(), f.info.Mode().Perm())
	}
	if err := unix.Access(f.target, unix.W_OK); err != nil {
		return fmt.Errorf("%s is not writable by you: %w", f.where(), err)
	}
	if st, ok := f.info.Sys().(*syscall.Stat_t); ok {
		if euid := os.Geteuid(); euid != 0 && int(st.Uid) != euid {
			return fmt.Errorf("%s belongs to uid %d, not to you (uid %d): setup would make it yours; run setup as its owner", f.where(), st.Uid, euid)
		}
	}
	if err := unix.Access(dir, unix.W_OK); err != nil {
		return fmt.Errorf("cannot write in %s (it holds %s): %w", dir, f.where(), err)
	}
	return nil
}

// write replaces the file's content atomically (a crash leaves the old
// file or the new one) through any symlink, keeping its mode and owner.
func (f *settingsFile) write(data []byte) error {
	dir := filepath.Dir(f.target)
	mode := os.FileMode(0o644)
	owner := f.info
	if f.info != nil {
		mode = f.info.Mode().Perm()
	} else {
		// A new file (and the folders made for it) belongs to whoever owns
		// the folder it goes in: root running setup in a user's project
		// leaves nothing the user cannot edit.
		var created []string
		owner, created = nearestFolder(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
		for _, d := range created {
			if st, ok := sysStat(owner); ok && os.Geteuid() == 0 {
				_ = os.Chown(d, int(st.Uid), int(st.Gid))
			}
		}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(f.target)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", f.where(), err)
	}
	defer os.Remove(tmp.Name())
	err = writeAll(tmp, data, mode, owner)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), f.target)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", f.where(), err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename itself durable
		d.Close()
	}
	return nil
}

func writeAll(tmp *os.File, data []byte, mode os.FileMode, old fs.FileInfo) error {
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if st, ok := sysStat(old); ok && os.Geteuid() == 0 {
		// root (sudo) writing a user's file: it stays the user's (old is
		// the file, or for a new file the folder it goes in)
		if err := tmp.Chown(int(st.Uid), int(st.Gid)); err != nil {
			return err
		}
	}
	return tmp.Sync()
}

// nearestFolder is the info of dir or of its nearest existing ancestor,
// and the folders between them that do not exist yet.
func nearestFolder(dir string) (fs.FileInfo, []string) {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if fi, err := os.Stat(d); err == nil {
			return fi, missing
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			return nil, missing
		}
	}
}

func sysStat(fi fs.FileInfo) (*syscall.Stat_t, bool) {
	if fi == nil {
		return nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return st, ok
}

// remove deletes a file setup had created. A symlink's target is emptied
// to {} instead, so that the user's link keeps pointing at a file.
func (f *settingsFile) remove() error {
	if f.target != f.path {
		return f.write([]byte("{}\n"))
	}
	if err := os.Remove(f.target); err != nil {
		return fmt.Errorf("remove %s: %w", f.target, err)
	}
	return nil
}
