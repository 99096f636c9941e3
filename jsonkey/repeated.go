package jsonkey

import (
	"encoding/json"
	"unicode/utf8"
)

// Repeated returns a key that appears twice in one object anywhere in
// raw (at any depth, or equal up to letter case, where a host decoding into
// a struct folds them), or "". JSON parsers disagree on which copy of a
// repeated key wins, so a host may act on the copy the gate did not read:
// {"command":"rm -rf ~/","command":"git status"}. Input that is not valid
// JSON reports "": decoding it fails anyway. The key returned is the
// second copy's, unescaped.
func Repeated(raw []byte) string {
	if len(raw) == 0 || !json.Valid(raw) {
		return ""
	}
	d := dupScanner{b: raw}
	d.value(0)
	if d.found && d.dup == "" {
		return `""` // the empty key, repeated
	}
	return d.dup
}

// maxDupDepth bounds the nesting the scanner follows; deeper input is
// reported as a duplicate (so human-only) rather than recursed into.
const maxDupDepth = 512

// dupScanner walks valid JSON, collecting each object's folded keys.
type dupScanner struct {
	b     []byte
	i     int
	dup   string
	found bool
}

func (d *dupScanner) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\r', '\n':
			d.i++
		default:
			return
		}
	}
}

// value skips one value starting at d.i (after blanks), checking the
// objects in it. It stops early once a duplicate is found.
func (d *dupScanner) value(depth int) {
	d.ws()
	if d.found || d.i >= len(d.b) {
		return
	}
	switch d.b[d.i] {
	case '{':
		if depth >= maxDupDepth {
			d.dup, d.found = "(nesting deeper than 512)", true
			return
		}
		d.object(depth + 1)
	case '[':
		if depth >= maxDupDepth {
			d.dup, d.found = "(nesting deeper than 512)", true
			return
		}
		d.i++
		for {
			d.ws()
			if d.b[d.i] == ']' {
				d.i++
				return
			}
			d.value(depth + 1)
			if d.found {
				return
			}
			d.ws()
			if d.b[d.i] == ',' {
				d.i++
			}
		}
	case '"':
		d.str()
	default: // number, true, false, null
		for d.i < len(d.b) {
			switch d.b[d.i] {
			case ',', ']', '}', ' ', '\t', '\r', '\n':
				return
			}
			d.i++
		}
	}
}

func (d *dupScanner) object(depth int) {
	d.i++ // {
	var keys []string
	var seen map[string]bool // past a few keys a map beats the linear scan
	for {
		d.ws()
		if d.b[d.i] == '}' {
			d.i++
			return
		}
		start := d.i
		d.str()
		k := d.key(d.b[start:d.i])
		fk := Fold(k)
		switch {
		case seen != nil:
			if seen[fk] {
				d.dup, d.found = k, true
				return
			}
			seen[fk] = true
		default:
			for _, o := range keys {
				if o == fk {
					d.dup, d.found = k, true
					return
				}
			}
			if keys = append(keys, fk); len(keys) > 16 {
				seen = make(map[string]bool, 2*len(keys))
				for _, o := range keys {
					seen[o] = true
				}
			}
		}
		d.ws()
		d.i++ // :
		d.value(depth)
		if d.found {
			return
		}
		d.ws()
		if d.b[d.i] == ',' {
			d.i++
		}
	}
}

// str skips a string literal starting at d.i.
func (d *dupScanner) str() {
	d.i++ // opening quote
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case '\\':
			d.i += 2
			continue
		case '"':
			d.i++
			return
		}
		d.i++
	}
}

// key is a quoted key's text, unescaped: "comm\u0061nd" is "command".
func (d *dupScanner) key(quoted []byte) string {
	plain := true
	for _, c := range quoted[1 : len(quoted)-1] {
		if c == '\\' || c >= utf8.RuneSelf {
			plain = false
			break
		}
	}
	if plain {
		return string(quoted[1 : len(quoted)-1])
	}
	var k string
	_ = json.Unmarshal(quoted, &k) // valid JSON: cannot fail
	return k
}
