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
