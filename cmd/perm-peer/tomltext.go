package main

import (
	"strconv"
	"strings"
)

// tomlText edits a TOML file's text line by line, for the two kinds of
// table setup keeps in Codex's config.toml ([projects."DIR"] and
// [hooks.state."KEY"]): find a table by its header, set one key in it,
// append or delete a table. Everything else stays as written.
type tomlText struct{ lines []string }

func parseTOMLText(data []byte) *tomlText {
	s := string(data)
	if s == "" {
		return &tomlText{}
	}
	return &tomlText{lines: strings.SplitAfter(s, "\n")}
}

func (t *tomlText) String() string { return strings.Join(t.lines, "") }

// tomlHeader is the header of table name.key, with key quoted as TOML
// writes a basic string.
func tomlHeader(name, key string) string {
	return "[" + name + "." + strconv.Quote(key) + "]"
}

// isHeader: the line is a table header (any table).
func isHeader(line string) bool {
	l := strings.TrimSpace(line)
	return strings.HasPrefix(l, "[")
}

// table is the line range [start, end) of the table with this header
// (the header line first), or ok false.
func (t *tomlText) table(header string) (start, end int, ok bool) {
	for i, l := range t.lines {
		if stripTOMLComment(l) == header {
			end = i + 1
			for end < len(t.lines) && !isHeader(t.lines[end]) {
				end++
			}
			return i, end, true
		}
	}
	return 0, 0, false
}

func stripTOMLComment(line string) string {
	l := strings.TrimSpace(line)
	if i := strings.Index(l, "]"); i >= 0 && strings.HasPrefix(l, "[") {
		rest := strings.TrimSpace(l[i+1:])
		if rest == "" || strings.HasPrefix(rest, "#") {
			return l[:i+1]
		}
	}
	return l
}

// get is the raw value of key in the table at [start, end).
func (t *tomlText) get(start, end int, key string) (string, int, bool) {
	for i := start + 1; i < end; i++ {
		k, v, ok := strings.Cut(t.lines[i], "=")
		if ok && strings.TrimSpace(k) == key {
			v = strings.TrimSpace(v)
			if j := strings.Index(v, " #"); j >= 0 && strings.HasPrefix(v, `"`) && strings.Count(v[:j], `"`) == 2 {
				v = strings.TrimSpace(v[:j])
			}
			return v, i, true
		}
	}
	return "", 0, false
}

// set makes key = value (a TOML literal) in the table name."sub",
// appending the table when it is missing. It reports whether the text
// changed. When "sub" is written in the file in another form (an inline
// table, a dotted key), appending a table would define it twice and Codex
// would refuse its whole config: set leaves the file alone, ok false.
func (t *tomlText) set(name, sub, key, value string) (changed, ok bool) {
	header := tomlHeader(name, sub)
	start, end, found := t.table(header)
	if !found {
		text := t.String()
		if strings.Contains(text, strconv.Quote(sub)) || strings.Contains(text, "'"+sub+"'") {
			return false, false
		}
		if n := len(t.lines); n > 0 && !strings.HasSuffix(t.lines[n-1], "\n") {
			t.lines[n-1] += "\n"
		}
		if n := len(t.lines); n > 0 && strings.TrimSpace(t.lines[n-1]) != "" {
			t.lines = append(t.lines, "\n")
		}
		t.lines = append(t.lines, header+"\n", key+" = "+value+"\n")
		return true, true
	}
	if v, i, ok := t.get(start, end, key); ok {
		if v == value {
			return false, true
		}
		t.lines[i] = key + " = " + value + "\n"
		return true, true
	}
	t.lines = append(t.lines[:start+1], append([]string{key + " = " + value + "\n"}, t.lines[start+1:]...)...)
	return true, true
}

// drop deletes the table with header (and one blank line before it).
func (t *tomlText) drop(header string) bool {
	start, end, ok := t.table(header)
	if !ok {
		return false
	}
	if start > 0 && strings.TrimSpace(t.lines[start-1]) == "" {
		start--
	}
	t.lines = append(t.lines[:start], t.lines[end:]...)
	return true
}
