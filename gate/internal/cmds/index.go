package cmds

import (
	"sync"

	"github.com/perm-peer/perm-peer/gate/internal/argv"
)

// readerIndex is the readers by name, built on first use.
var readerIndex = sync.OnceValue(func() map[string]*argv.Command {
	m := make(map[string]*argv.Command, len(readers))
	for _, c := range readers {
		if m[c.Name] != nil {
			panic("cmds: " + c.Name + " is declared twice")
		}
		m[c.Name] = c
	}
	return m
})

// index is every program the table declares, by name.
var index = sync.OnceValue(func() map[string]*argv.Command {
	m := make(map[string]*argv.Command, len(readers)+len(info)+len(searches)+len(tools))
	for _, set := range [][]*argv.Command{readers, info, searches, tools} {
		for _, c := range set {
			if m[c.Name] != nil {
				panic("cmds: " + c.Name + " is declared twice")
			}
			m[c.Name] = c
		}
	}
	return m
})

// Lookup returns the declaration of a program's flags (with its
// subcommands'), nil for a program the table does not have.
func Lookup(name string) *argv.Command { return index()[name] }

// All are the declarations, for the tests that check each.
func All() []*argv.Command {
	var out []*argv.Command
	for _, set := range [][]*argv.Command{readers, info, searches, tools} {
		out = append(out, set...)
	}
	return out
}
