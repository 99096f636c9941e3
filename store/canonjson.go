package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

// The canonical form of a JSON value, without decoding it into maps: the
// same bytes as canonicalValue of its decoding (encoding/json with
// UseNumber, then encoded with HTML escaping off), which is the reference
// recordHash uses. Objects have their members sorted by key (the last of
// duplicate keys wins, as when decoding into a map), numbers and literals
// are kept as written, and a string is copied as written when that already
// is its canonical encoding: no escape in it, valid UTF-8, no U+2028 or
// U+2029 (which the encoder escapes). Any other string goes through
// encoding/json. FuzzCanonicalJSON checks the two agree.

var errCanonSyntax = errors.New("canonical JSON: malformed input")

// maxCanonDepth bounds nesting as encoding/json does (its decoder refuses
// more than 10000 levels), so hostile input cannot exhaust the stack.
const maxCanonDepth = 10000

// canonicalJSON returns the canonical form of the JSON value data.
func canonicalJSON(data []byte) ([]byte, error) {
	c := canonicalizer{data: data}
	if err := c.value(); err != nil {
		return nil, err
	}
	c.space()
	if c.pos != len(c.data) {
		return nil, errCanonSyntax
	}
	return c.out, nil
}

// canonicalizer reads data from pos and appends canonical JSON to out.
type canonicalizer struct {
	data    []byte
	pos     int
	out     []byte
	depth   int
	scratch []byte // an object being reassembled in key order (value)
}

// span is one object member written to out: its key (the bytes it
// denotes, which sort like the string), the key's canonical encoding and
// its value at out[start:end].
type span struct {
	key, keyJSON []byte
	start, end   int
}

func (c *canonicalizer) space() {
	for c.pos < len(c.data) {
		switch c.data[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

func (c *canonicalizer) value() error {
	c.space()
	if c.pos >= len(c.data) {
		return errCanonSyntax
	}
	if b := c.data[c.pos]; b == '{' || b == '[' {
		// Count containers only, as encoding/json does.
		c.depth++
		defer func() { c.depth-- }()
		if c.depth > maxCanonDepth {
			return errors.New("canonical JSON: nested too deeply")
		}
	}
	switch c.data[c.pos] {
	case '{':
		start := len(c.out)
		ms, err := c.members()
		if err != nil {
			return err
		}
		// The members' values are at out[start:]; the object replaces
		// them, reassembled in scratch (free again once an object's
		// members, nested objects included, are all written).
		obj := append(c.scratch[:0], '{')
		for i, m := range ms {
			if i > 0 {
				obj = append(obj, ',')
			}
			obj = append(append(append(obj, m.keyJSON...), ':'), c.out[m.start:m.end]...)
		}
		obj = append(obj, '}')
		c.out = append(c.out[:start], obj...)
		c.scratch = obj
		return nil
	case '[':
		c.pos++
		c.out = append(c.out, '[')
		c.space()
		if c.pos < len(c.data) && c.data[c.pos] == ']' {
			c.pos++
			c.out = append(c.out, ']')
			return nil
		}
		for {
			if err := c.value(); err != nil {
				return err
			}
			c.space()
			if c.pos >= len(c.data) {
				return errCanonSyntax
			}
			switch c.data[c.pos] {
			case ',':
				c.pos++
				c.out = append(c.out, ',')
			case ']':
				c.pos++
				c.out = append(c.out, ']')
				return nil
			default:
				return errCanonSyntax
			}
		}
	case '"':
		lit, err := c.stringLiteral()
		if err != nil {
			return err
		}
		enc, _, err := canonString(lit, false)
		if err != nil {
			return err
		}
		c.out = append(c.out, enc...)
		return nil
	default:
		start := c.pos
		for c.pos < len(c.data) && !isDelimiter(c.data[c.pos]) {
			c.pos++
		}
		lit := c.data[start:c.pos]
		if !json.Valid(lit) {
			return errCanonSyntax
		}
		c.out = append(c.out, lit...)
		return nil
	}
}

// members reads an object (at '{') and writes each member's canonical value
// to out; it returns them sorted by key, the last of equal keys kept.
func (c *canonicalizer) members() ([]span, error) {
	c.pos++ // '{'
	var ms []span
	c.space()
	if c.pos < len(c.data) && c.data[c.pos] == '}' {
		c.pos++
		return ms, nil
	}
	for {
		c.space()
		if c.pos >= len(c.data) || c.data[c.pos] != '"' {
			return nil, errCanonSyntax
		}
		lit, err := c.stringLiteral()
		if err != nil {
			return nil, err
		}
		keyJSON, key, err := canonString(lit, true)
		if err != nil {
			return nil, err
		}
		c.space()
		if c.pos >= len(c.data) || c.data[c.pos] != ':' {
			return nil, errCanonSyntax
		}
		c.pos++
		start := len(c.out)
		if err := c.value(); err != nil {
			return nil, err
		}
		ms = append(ms, span{key: key, keyJSON: keyJSON, start: start, end: len(c.out)})
		c.space()
		if c.pos >= len(c.data) {
			return nil, errCanonSyntax
		}
		switch c.data[c.pos] {
		case ',':
			c.pos++
		case '}':
			c.pos++
			slices.SortStableFunc(ms, func(a, b span) int { return bytes.Compare(a.key, b.key) })
			// Keep the last of each run of equal keys.
			kept := ms[:0]
			for i, m := range ms {
				if i+1 < len(ms) && bytes.Equal(ms[i+1].key, m.key) {
					continue
				}
				kept = append(kept, m)
			}
			return kept, nil
		default:
			return nil, errCanonSyntax
		}
	}
}

// stringLiteral returns the string literal at pos, quotes included.
func (c *canonicalizer) stringLiteral() ([]byte, error) {
	start := c.pos
	for i := c.pos + 1; i < len(c.data); i++ {
		switch c.data[i] {
		case '\\':
			i++ // skip the escaped byte
		case '"':
			c.pos = i + 1
			return c.data[start:c.pos], nil
		}
	}
	return nil, errCanonSyntax
}

// canonString returns the canonical encoding of a string literal and, when
// wantText, the text it denotes. A literal that already is canonical is
// returned as is, its text a slice of it: nothing is allocated.
func canonString(lit []byte, wantText bool) (enc, text []byte, err error) {
	body := lit[1 : len(lit)-1]
	if bytes.IndexByte(body, '\\') < 0 && utf8.Valid(body) &&
		!bytes.Contains(body, []byte("\u2028")) && !bytes.Contains(body, []byte("\u2029")) {
		for _, b := range body {
			if b < 0x20 {
				return nil, nil, errCanonSyntax
			}
		}
		return lit, body, nil
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return nil, nil, fmt.Errorf("canonical JSON: %w", err)
	}
	if enc, err = canonicalValue(s); err != nil {
		return nil, nil, err
	}
	if wantText {
		text = []byte(s)
	}
	return enc, text, nil
}
