// always.go offers what an "always" answer may grant: a pattern for the
// one top-level fact of a call that asks (SPEC §5.7).

package gate

import (
	"net"
	"path/filepath"
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/cmds"
	"github.com/perm-peer/perm-peer/protocol"
)

// always computes what an "always" answer may grant (SPEC §5.7).
func (fl *factLog) always() *Always {
	if fl.noAlways {
		return nil
	}
	var top []*rfact
	for _, f := range fl.facts {
		if f.parent < 0 {
			top = append(top, f)
		}
	}
	if len(top) != 1 {
		return nil
	}
	f := top[0]
	if f.ask != nil {
		return nil // asks whatever rule or grant covers it (flag-policed): a grant would never apply
	}
	switch f.kind {
	case protocol.FactExec:
		if fl.outsideProject(f) {
			return nil // no grant would cover it there
		}
		if fl.simple != 1 || f.static != len(f.argv) || len(f.argv) == 0 {
			return nil
		}
		return execGrant(f)
	case protocol.FactRead, protocol.FactWrite:
		if !f.path.known || f.path.glob {
			return nil
		}
		if f.listOnly && !fl.inProject(f.path) {
			// a listing outside the project names files; Read(dir/**) would
			// let every later call read their contents
			return nil
		}
		return pathGrant(f, fl.env.Project)
	case protocol.FactNetwork:
		return hostGrant(f)
	}
	return nil
}

// execGrant is the Bash rule an "always" for one simple command grants:
// the command as written, or TOOL SUB * for a tool whose grant is per
// subcommand; nil for an interpreter, a shell, or words a pattern cannot
// spell.
func execGrant(f *rfact) *Always {
	base := strings.ToLower(filepath.Base(f.argv[0]))
	if isInterpreter(base) || isShell(base) {
		return nil
	}
	for _, w := range f.argv {
		// an empty word ("") cannot be written in a Bash(…) pattern
		if w == "" || strings.ContainsAny(w, "*()") {
			return nil
		}
	}
	pat := strings.Join(f.argv, " ")
	// a tool whose grant is per subcommand (cmds.Tool): TOOL SUB *
	if t := cmds.ToolOf(f.argv[0]); t != nil && t.Grant != cmds.Exact && len(f.argv) >= 2 && isPlainWord(f.argv[1]) {
		sub := f.argv[1]
		switch {
		case sub == "run" && t.Grant == cmds.ByScript && len(f.argv) >= 3 && isPlainWord(f.argv[2]):
			pat = strings.Join(f.argv[:3], " ")
			if len(f.argv) > 3 {
				pat += " *"
			}
		case sub == "run" || sub == "exec" || sub == "x" || sub == "dlx" || installs(t, f.argv[1:]):
			// runs arbitrary code, or installs it (pip install x * would
			// cover git+https://… and another index): only the exact command
		case t.GrantFlags != nil && t.GrantFlags(sub) != nil:
			// git checkout -b *, not git checkout * (cmds.Tool's GrantFlags)
			pat = strings.Join(f.argv, " ")
			if len(f.argv) >= 4 && slices.Contains(t.GrantFlags(sub), f.argv[2]) {
				pat = strings.Join(f.argv[:3], " ") + " *"
			}
		case t.Groups(sub) && len(f.argv) >= 3 && isPlainWord(f.argv[2]):
			// gh pr create *, docker compose up *, git stash list *
			pat = strings.Join(f.argv[:3], " ") + " *"
		case t.Groups(sub):
			pat = strings.Join(f.argv, " ")
		default:
			pat = f.argv[0] + " " + sub + " *"
		}
	}
	return &Always{Pattern: "Bash(" + pat + ")", Covers: "bash: " + pat + "  (this project)"}
}

// pathGrant is the Read or Write rule for one file (a listing: the
// directory's tree), relative to the project when it is inside.
func pathGrant(f *rfact, project string) *Always {
	rel := func(p string) string {
		if project != "" && within(p, project) && p != project {
			return strings.TrimPrefix(p, project+"/")
		}
		return p
	}
	g := escapeGlob(rel(f.path.abs))
	if f.kind == protocol.FactRead {
		if f.listOnly {
			g = strings.TrimSuffix(g, "/") + "/**"
		}
		return &Always{Pattern: "Read(" + g + ")", Covers: "read: " + g + "  (this project)"}
	}
	return &Always{Pattern: "Write(" + g + ")", Covers: "write: " + g + "  (this project)"}
}

// hostGrant is the WebFetch rule for one host (a local one: with its port).
func hostGrant(f *rfact) *Always {
	if f.host == "" || strings.ContainsAny(f.host, "/*") {
		return nil
	}
	host := f.host
	if localHost(host) {
		// localhost:3000 is one service; localhost is also the Docker
		// API on 2375 and every other admin port
		if f.port == "" {
			return nil
		}
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		host += ":" + f.port
	}
	return &Always{Pattern: "WebFetch(domain:" + host + ")", Covers: "webfetch: " + host + "  (this project)"}
}

// installs reports a package manager subcommand that fetches and
// installs packages (also uv pip install, poetry add, go get): one of the
// tool's Installs words first or second.
func installs(t *cmds.Tool, rest []string) bool {
	for i, w := range rest {
		if i > 1 {
			break
		}
		if slices.Contains(t.Installs, w) {
			return true
		}
		if w == "get" {
			return false // npm get KEY prints a setting: KEY is no subcommand
		}
	}
	return false
}

// localHost reports a loopback, private or link-local host, or a name
// that stays on this machine or network.
func localHost(h string) bool {
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".internal") || !strings.Contains(h, ".") && !strings.Contains(h, ":") {
		return true
	}
	ip := net.ParseIP(h)
	if v4, ok := looseIPv4(h); ok {
		ip = v4
	}
	return ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())
}

func isPlainWord(s string) bool {
	if s == "" || s[0] == '-' {
		return false
	}
	return !strings.ContainsAny(s, "/=$*?[]{}'\"\\ :@")
}

// escapeGlob quotes glob characters so a path matches only itself.
func escapeGlob(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
