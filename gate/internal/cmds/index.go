package cmds

import (
	"slices"
	"sync"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// index builds a table's by-name index on first use; a name declared
// twice is a bug in the table.
func index[T any](table []T, name func(T) string) func() map[string]T {
	return sync.OnceValue(func() map[string]T {
		m := make(map[string]T, len(table))
		for _, c := range table {
			if _, dup := m[name(c)]; dup {
				panic("cmds: " + name(c) + " is declared twice")
			}
			m[name(c)] = c
		}
		return m
	})
}

func commandName(c *argv.Command) string { return c.Name }

// readerIndex is the readers by name.
var readerIndex = index(slices.Concat(readers, macReaders, inspectors), commandName)

// programIndex is every program whose flags the table declares, by name.
var programIndex = index(All(), commandName)

// Lookup returns the declaration of a program's flags (with its
// subcommands'), nil for a program the table does not have.
// A name of a prefix family (mkfs.ext4) finds the family's.
func Lookup(name string) *argv.Command {
	if c, ok := programIndex()[name]; ok {
		return c
	}
	return familyOf(name)
}

// All are the declarations of the programs' flags: the core programs, the
// readers, the info printers, the searches, the tools with subcommands,
// the disk tools, the file tools, the pagers and editors, the installers,
// the macOS readers and queries, the shell builtins, the secret stores,
// the other programs a hook of the gate's reads (system.go), the archivers,
// the password managers and credential helpers (the tools' declarations,
// toolCmds, hold the coding agents' and the peer-to-peer senders').
func All() []*argv.Command {
	return slices.Concat(core, readers, info, searches, tools, toolCmds(), disks(), files(), pagers, editors, installerCmds(), macReaders, inspectors, queryCmds(), builtins,
		secretStores, systemCmds, interpCmds(), archivers, secretCLIs, debuggers)
}

// ClassOf is the class of a program the table declares, argv.Other for
// one it does not.
func ClassOf(name string) argv.Class {
	if c := Lookup(name); c != nil {
		return c.Class
	}
	return argv.Other
}
