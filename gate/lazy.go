package gate

import (
	"regexp"
	"sync"
)

// lazyRE compiles expr on its first use rather than at package init: the
// gate's ~50 patterns cost every start of the binary, and most commands
// never reach most of them (issue 14).
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
