package cmds

import (
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

// readerIndex is the readers by name.
var readerIndex = index(readers, func(c *argv.Command) string { return c.Name })
