package cmds

import (
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// Socat is socat's options before its two addresses. -lf, -r/-R and the
// lock files write the file they name.
var Socat = &argv.Command{Name: "socat",
	Flags: with(flags("-d -dd -ddd -dddd -D -v -x -s -u -U -g -4 -6 -ly -lu -lm -lh -h -hh -hhh -V", "-b -t -T -lp", ""),
		writes("-lf"), writes("-r"), writes("-R"), writes("-L"), writes("-W")),
	Examples: []argv.Example{ex("-u FILE:a FILE:b", ""), ex("-d -d - TCP:h:80", ""), ex("-lf log - -", ""), ex("-z - -", "-z")}}

// socatFiles are the address types that open a local file by its path
// (a bare path with a "/" is GOPEN); socatStdio those that are the
// process's own streams. Every other type (TCP*, UDP*, OPENSSL*, SOCKS*,
// PROXY*, UNIX-*, EXEC, SYSTEM, PTY, ...) reaches the network, a socket
// or a program.
var (
	socatFiles = map[string]bool{"file": true, "open": true, "gopen": true, "create": true, "creat": true, "pipe": true}
	socatStdio = map[string]bool{"-": true, "stdio": true, "stdin": true, "stdout": true, "stderr": true}
)

// socatFileOptions are the address options that only say how a file is
// opened; any other (unlink-*, link=, su=, chroot=, exec-ish options)
// makes the address more than a file.
var socatFileOptions = map[string]bool{"creat": true, "create": true, "excl": true, "trunc": true, "append": true,
	"rdonly": true, "wronly": true, "rdwr": true, "ignoreeof": true, "noatime": true, "nonblock": true, "binary": true,
	"text": true, "cr": true, "crnl": true, "raw": true}

// SocatAddress is one of socat's two addresses, when both are local.
type SocatAddress struct {
	Arg  int    // index of the address in the arguments
	Path string // the file it opens, "" for a standard stream
	// Read, Write: data flows out of it, into it (both unless -u or -U)
	Read, Write bool
}

// SocatLocal reads socat's arguments as a transfer between local files
// and standard streams: ok only when both addresses are, the options are
// the table's and none of them writes a file. Examples:
// socat FILE:a FILE:b, socat -u OPEN:in,rdonly CREATE:out, socat - ./x.
func SocatLocal(n int, at func(i int) (val string, dyn bool)) (addrs []SocatAddress, ok bool) {
	inv := Socat.ParseAt(n, at)
	if len(inv.Unknown) > 0 || len(inv.Operands) != 2 || inv.HasRole(argv.Write) {
		return nil, false
	}
	for n, i := range inv.Operands {
		v, dyn := at(i)
		if dyn {
			return nil, false
		}
		path, ok := socatLocalAddress(v)
		if !ok {
			return nil, false
		}
		// -u: from the first address to the second; -U: the other way
		addrs = append(addrs, SocatAddress{Arg: i, Path: path,
			Read: !inv.Has("-u") && !inv.Has("-U") || inv.Has("-u") == (n == 0), Write: !inv.Has("-u") && !inv.Has("-U") || inv.Has("-u") == (n == 1)})
	}
	return addrs, true
}

// socatLocalAddress is the file a local address opens ("" for a standard
// stream); false for any other address.
func socatLocalAddress(a string) (path string, ok bool) {
	head, params, hasParams := strings.Cut(a, ":")
	if !hasParams {
		// STDIO, -, a bare path (GOPEN when it holds a "/"), each with options
		head, opts, _ := strings.Cut(a, ",")
		switch {
		case socatStdio[strings.ToLower(head)]:
			return "", opts == ""
		case strings.Contains(head, "/") && !strings.ContainsAny(head, "!"):
			return head, fileOptions(opts)
		}
		return "", false
	}
	kind := strings.ToLower(head)
	if !socatFiles[kind] || strings.Contains(params, ":") || strings.ContainsAny(params, "!") {
		return "", false
	}
	path, opts, _ := strings.Cut(params, ",")
	if path == "" {
		return "", false
	}
	return path, fileOptions(opts)
}

// fileOptions reports a comma list of options that only say how a file is
// opened (creat,trunc).
func fileOptions(opts string) bool {
	if opts == "" {
		return true
	}
	for _, o := range strings.Split(opts, ",") {
		if name, _, _ := strings.Cut(o, "="); !socatFileOptions[strings.ToLower(name)] {
			return false
		}
	}
	return true
}
