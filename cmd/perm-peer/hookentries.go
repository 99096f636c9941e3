package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/perm-peer/perm-peer/jsonedit"
)

// hookCommand finds perm-peer's hook in a command line: the executable
// (group 1: quoted or not, any directory, perhaps after an env prefix)
// and the host (group 2), with flags allowed after it.
var hookCommand = regexp.MustCompile(`(?:^|[\s;&|(])('(?:[^']|'\\'')*/?perm-peer'|"[^"]*perm-peer"|[^\s'";&|()]*perm-peer)\s+hook\s+([a-z-]+)(?:\s|$)`)

// ourHook is one hook object in a settings file that runs perm-peer's
// hook for this host.
type ourHook struct {
	event    string
	eventArr *jsonedit.Node // the event's array
	groupIdx int            // index in eventArr
	group    *jsonedit.Node // the matcher group (grouped hosts)
	hooksArr *jsonedit.Node // the group's "hooks" (grouped hosts)
	hookIdx  int            // index in hooksArr
	hook     *jsonedit.Node
	command  *jsonedit.Node
	exeStart int // the executable's span in command.Str
	exeEnd   int
}

// exe is the executable the hook runs, unquoted.
func (h ourHook) exe() string { return shellUnquote(h.command.Str[h.exeStart:h.exeEnd]) }

// findOurs lists this host's perm-peer hooks under every event of hooks.
func (s hostSetup) findOurs(hooks *jsonedit.Node) map[string][]ourHook {
	found := map[string][]ourHook{}
	if hooks == nil || hooks.Kind != jsonedit.Object {
		return found
	}
	for _, m := range hooks.Members {
		arr := m.Val
		if arr.Kind != jsonedit.Array {
			continue
		}
		for gi, g := range arr.Elems {
			if !s.grouped {
				if h, ok := s.ours(g); ok {
					h.event, h.eventArr, h.groupIdx = m.Key, arr, gi
					found[m.Key] = append(found[m.Key], h)
				}
				continue
			}
			hs := g.Get("hooks")
			if hs == nil || hs.Kind != jsonedit.Array {
				continue
			}
			for hi, hn := range hs.Elems {
				if h, ok := s.ours(hn); ok {
					h.event, h.eventArr, h.groupIdx, h.group, h.hooksArr, h.hookIdx = m.Key, arr, gi, g, hs, hi
					found[m.Key] = append(found[m.Key], h)
				}
			}
		}
	}
	return found
}

func (s hostSetup) ours(n *jsonedit.Node) (ourHook, bool) {
	c := n.Get("command")
	if c == nil || c.Kind != jsonedit.String {
		return ourHook{}, false
	}
	m := hookCommand.FindStringSubmatchIndex(c.Str)
	if m == nil || c.Str[m[4]:m[5]] != s.host {
		return ourHook{}, false
	}
	return ourHook{hook: n, command: c, exeStart: m[2], exeEnd: m[3]}, true
}

// install adds perm-peer's hook to each of the host's events, or points
// an existing one at exe, and says what it changed. Only perm-peer's own
// hook objects are touched: the user's hooks beside them in a group, the
// group's matcher and the hook's other fields (timeout, env prefix,
// flags) stay as written.
func (s hostSetup) install(doc *jsonedit.Doc, exe string) ([]string, []string, error) {
	root := doc.Root()
	var changes, warnings []string
	for _, f := range s.topLevel {
		if root.Get(f.Key) == nil {
			doc.Append(root, f.Key, f.Val)
			changes = append(changes, fmt.Sprintf("set %s: %v", f.Key, f.Val))
		}
	}
	command := shellQuote(exe) + " hook " + s.host
	hooks := root.Get("hooks")
	if hooks != nil && hooks.Kind != jsonedit.Object {
		return nil, nil, fmt.Errorf(`"hooks" is not a JSON object`)
	}
	if hooks == nil {
		var all jsonedit.Fields
		for _, ev := range s.events {
			all = append(all, jsonedit.Field{Key: ev, Val: []any{s.entry(command)}})
			changes = append(changes, "added "+ev+": "+command)
		}
		doc.Append(root, "hooks", all)
		return changes, warnings, nil
	}
	found := s.findOurs(hooks)
	for _, ev := range s.events {
		arr := hooks.Get(ev)
		switch {
		case arr == nil:
			doc.Append(hooks, ev, []any{s.entry(command)})
			changes = append(changes, "added "+ev+": "+command)
			continue
		case arr.Kind != jsonedit.Array:
			return nil, nil, fmt.Errorf("hooks.%s is not a JSON array", ev)
		}
		ours := found[ev]
		if len(ours) == 0 {
			doc.Append(arr, "", s.entry(command))
			changes = append(changes, "added "+ev+": "+command)
			continue
		}
		h := ours[0]
		if h.exe() != exe {
			cmd := h.command.Str[:h.exeStart] + shellQuote(exe) + h.command.Str[h.exeEnd:]
			doc.Replace(h.command, cmd)
			changes = append(changes, fmt.Sprintf("updated %s: %s (was %s)", ev, cmd, h.command.Str))
		}
		if w := s.narrowMatcher(h); w != "" {
			warnings = append(warnings, w)
		}
		if len(ours) > 1 {
			s.removeHooks(doc, ours[1:])
			changes = append(changes, fmt.Sprintf("removed %d more perm-peer hook(s) from %s (each would decide and audit every call again)", len(ours)-1, ev))
		}
	}
	return changes, warnings, nil
}

// entry is a new event entry running command: a group, or the hook.
func (s hostSetup) entry(command string) jsonedit.Fields {
	if s.grouped {
		return s.group(s.hook(command))
	}
	return s.hook(command)
}

// narrowMatcher warns when perm-peer's hook sits in a group whose matcher
// lets it see only some tools; the user's matcher is kept.
func (s hostSetup) narrowMatcher(h ourHook) string {
	if !s.grouped {
		return ""
	}
	m := h.group.Get("matcher")
	if m == nil {
		return ""
	}
	if m.Kind == jsonedit.String && s.catchAll(m.Str, true) {
		return ""
	}
	return fmt.Sprintf("%s: perm-peer's hook is in a group with the matcher %s: it sees only the tools that match (kept as you wrote it)", h.event, m.Str)
}

// removeHooks deletes the hook objects hs: a group left with no hook is
// deleted with them when it holds nothing but its matcher; an event left
// with no entry is not (see remove).
func (s hostSetup) removeHooks(doc *jsonedit.Doc, hs []ourHook) (emptied map[*jsonedit.Node]int) {
	emptied = map[*jsonedit.Node]int{} // event array → entries removed
	if !s.grouped {
		byArr := map[*jsonedit.Node][]int{}
		for _, h := range hs {
			byArr[h.eventArr] = append(byArr[h.eventArr], h.groupIdx)
		}
		for arr, idx := range byArr {
			doc.Remove(arr, idx)
			emptied[arr] = len(idx)
		}
		return emptied
	}
	byGroup := map[*jsonedit.Node][]ourHook{}
	for _, h := range hs {
		byGroup[h.group] = append(byGroup[h.group], h)
	}
	groupsGone := map[*jsonedit.Node][]int{}
	for g, gh := range byGroup {
		h := gh[0]
		if len(gh) == h.hooksArr.Len() && onlyKeys(g, "matcher", "hooks") {
			groupsGone[h.eventArr] = append(groupsGone[h.eventArr], h.groupIdx)
			continue
		}
		idx := make([]int, len(gh))
		for i, x := range gh {
			idx[i] = x.hookIdx
		}
		doc.Remove(h.hooksArr, idx)
	}
	for arr, idx := range groupsGone {
		doc.Remove(arr, idx)
		emptied[arr] = len(idx)
	}
	return emptied
}

func onlyKeys(obj *jsonedit.Node, keys ...string) bool {
	for _, m := range obj.Members {
		ok := false
		for _, k := range keys {
			ok = ok || m.Key == k
		}
		if !ok {
			return false
		}
	}
	return true
}

// uninstall removes every perm-peer hook of this host, then the event
// arrays and the "hooks" object left empty by it, and says whether
// nothing is left of the file but what setup puts there (so the file can
// go).
func (s hostSetup) uninstall(doc *jsonedit.Doc) (changes []string, empty bool) {
	root := doc.Root()
	hooks := root.Get("hooks")
	found := s.findOurs(hooks)
	if len(found) == 0 {
		return nil, false
	}
	var all []ourHook
	for _, m := range hooks.Members {
		for _, h := range found[m.Key] {
			all = append(all, h)
			changes = append(changes, "removed "+m.Key+": "+h.command.Str)
		}
	}
	// Decide the event arrays that end up empty before asking any edit,
	// so that an emptied array is removed whole, never both ways.
	var events []int
	perArr := map[*jsonedit.Node][]ourHook{}
	for _, h := range all {
		perArr[h.eventArr] = append(perArr[h.eventArr], h)
	}
	var partial []ourHook
	for i, m := range hooks.Members {
		hs := perArr[m.Val]
		if len(hs) > 0 && s.emptiesArray(m.Val, hs) {
			events = append(events, i)
			continue
		}
		partial = append(partial, hs...)
	}
	s.removeHooks(doc, partial)
	if len(events) == hooks.Len() {
		// "hooks" goes, and with it the keys the file holds only for
		// hooks (Cursor's "version")
		var gone []int
		empty = true
		for i, m := range root.Members {
			if m.Key == "hooks" || s.isTopLevelDefault(doc, m) {
				gone = append(gone, i)
			} else {
				empty = false
			}
		}
		doc.Remove(root, gone)
		return changes, empty
	}
	doc.Remove(hooks, events)
	return changes, false
}

// emptiesArray: removing hs leaves the event array with no entry.
func (s hostSetup) emptiesArray(arr *jsonedit.Node, hs []ourHook) bool {
	if !s.grouped {
		return len(hs) == arr.Len()
	}
	perGroup := map[int]int{}
	for _, h := range hs {
		perGroup[h.groupIdx]++
	}
	for gi, g := range arr.Elems {
		hsArr := g.Get("hooks")
		if hsArr == nil || perGroup[gi] == 0 || perGroup[gi] != hsArr.Len() || !onlyKeys(g, "matcher", "hooks") {
			return false
		}
	}
	return true
}

func (s hostSetup) isTopLevelDefault(doc *jsonedit.Doc, m jsonedit.Member) bool {
	for _, f := range s.topLevel {
		if f.Key == m.Key && strings.TrimSpace(string(doc.Text(m.Val))) == fmt.Sprint(f.Val) {
			return true
		}
	}
	return false
}

// shellQuote quotes a path for a hook command line (the hosts run it
// through a shell).
func shellQuote(s string) string {
	if safeWord.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

var safeWord = regexp.MustCompile(`^[A-Za-z0-9_./+-]+$`)

// shellUnquote undoes shellQuote and plain double quotes.
func shellUnquote(s string) string {
	switch {
	case len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'':
		return strings.ReplaceAll(s[1:len(s)-1], `'\''`, `'`)
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		return s[1 : len(s)-1]
	}
	return s
}
