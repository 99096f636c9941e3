package review

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perm-peer/perm-peer/peer/hook"
)

// HostGrant is an "always" a host saved itself: Claude Code's "Yes, and
// don't ask again" writes a rule into its settings' permissions.allow,
// which answers later calls before perm-peer's hook is asked for a grant.
type HostGrant struct {
	ID   string `json:"id"`   // "claude-code:N", for RevokeHostGrant
	Host string `json:"host"` // claude-code
	Rule string `json:"rule"` // the host's rule, e.g. Bash(npm test:*)
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
}

// claudeSettings are the Claude Code settings files that apply in project
// p, most specific first.
func (r *Reviewer) claudeSettings(p Project) []string {
	files := []string{
		filepath.Join(p.Root, ".claude", "settings.local.json"),
		filepath.Join(p.Root, ".claude", "settings.json"),
	}
	if f := hook.ClaudeUserSettings(r.home); f != "" {
		files = append(files, f)
	}
	return files
}

// HostGrants lists the allow rules Claude Code's settings hold for project
// p (a file that is missing holds none; one that is not JSON is an error
// naming it).
func (r *Reviewer) HostGrants(p Project) ([]HostGrant, error) {
	var out []HostGrant
	for _, file := range r.claudeSettings(p) {
		allow, data, err := hook.ClaudeAllow(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return out, err
		}
		for i, rule := range allow {
			out = append(out, HostGrant{ID: "claude-code:" + strconv.Itoa(len(out)+1), Host: "claude-code", Rule: rule,
				File: file, Line: lineOf(data, "/permissions/allow/"+strconv.Itoa(i))})
		}
	}
	return out, nil
}

// RevokeHostGrant removes the host grant id (as HostGrants numbers it)
// from its settings file, editing only that element.
func (r *Reviewer) RevokeHostGrant(p Project, id string) (HostGrant, error) {
	all, err := r.HostGrants(p)
	if err != nil {
		return HostGrant{}, err
	}
	for _, g := range all {
		if g.ID != id {
			continue
		}
		data, err := os.ReadFile(g.File)
		if err != nil {
			return g, err
		}
		idx := 0
		for _, o := range all {
			if o.ID == id {
				break
			}
			if o.File == g.File {
				idx++
			}
		}
		out, err := removeElement(data, []string{"permissions", "allow"}, idx)
		if err != nil {
			return g, fmt.Errorf("edit %s: %w (the file is left as it is)", g.File, err)
		}
		return g, writeAtomic(g.File, out)
	}
	return HostGrant{}, fmt.Errorf("no host grant %q (see perm-peer grants list)", id)
}

// IsHostGrantID reports an ID HostGrants made.
func IsHostGrantID(id string) bool { return strings.HasPrefix(id, "claude-code:") }
