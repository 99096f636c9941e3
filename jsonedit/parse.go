package jsonedit

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Kind is a JSON value's type.
type Kind byte

// The kinds of Node.
const (
	Object Kind = '{'
	Array  Kind = '['
	String Kind = '"'
	Other  Kind = '0' // number, true, false, null
)

// Node is one value of the text and its byte range [Start, End).
type Node struct {
	Kind       Kind
	Start, End int
	Members    []Member // Object
	Elems      []*Node  // Array
	Str        string   // String, decoded
}

// Member is one key of an object.
type Member struct {
	Key              string
	KeyStart, KeyEnd int
	Val              *Node
}

// Get is the value of key in an object node (nil: absent or not an object).
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Object {
		return nil
	}
	for _, m := range n.Members {
		if m.Key == key {
			return m.Val
		}
	}
	return nil
}

// Len is the number of members or elements.
func (n *Node) Len() int {
	if n.Kind == Object {
		return len(n.Members)
	}
	return len(n.Elems)
}

// childRange is child i's byte range (an object member from its key).
func (n *Node) childRange(i int) (int, int) {
	if n.Kind == Object {
		return n.Members[i].KeyStart, n.Members[i].Val.End
	}
	return n.Elems[i].Start, n.Elems[i].End
}

// stripComments blanks // and /* */ comments outside strings, keeping
// every byte offset and line break, so that the result parses as JSON
// exactly where the commented text would after strip-json-comments.
func stripComments(text []byte) ([]byte, error) {
	out := make([]byte, len(text))
	copy(out, text)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"':
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			j := i
			for j < len(out) && out[j] != '\n' {
				j++
			}
			blank(i, j)
			i = j
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			j := i + 2
			for j+1 < len(out) && !(out[j] == '*' && out[j+1] == '/') {
				j++
			}
			if j+1 >= len(out) {
				return nil, fmt.Errorf("a /* comment at byte %d is not closed", i)
			}
			blank(i, j+2)
			i = j + 1
		}
	}
	return out, nil
}

// parser walks a text already checked by json.Valid.
type parser struct {
	b []byte
	i int
}

func (p *parser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value() (*Node, error) {
	p.space()
	n := &Node{Start: p.i}
	switch c := p.b[p.i]; c {
	case '{':
		n.Kind = Object
		p.i++
		seen := map[string]bool{}
		for {
			p.space()
			if p.b[p.i] == '}' {
				break
			}
			if p.b[p.i] == ',' {
				p.i++
				p.space()
			}
			ks := p.i
			key, err := p.str()
			if err != nil {
				return nil, err
			}
			if seen[key] {
				return nil, fmt.Errorf("the key %q appears twice in one object (byte %d)", key, ks)
			}
			seen[key] = true
			ke := p.i
			p.space()
			p.i++ // ':'
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.Members = append(n.Members, Member{Key: key, KeyStart: ks, KeyEnd: ke, Val: v})
			p.space()
		}
		p.i++
	case '[':
		n.Kind = Array
		p.i++
		for {
			p.space()
			if p.b[p.i] == ']' {
				break
			}
			if p.b[p.i] == ',' {
				p.i++
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.Elems = append(n.Elems, v)
			p.space()
		}
		p.i++
	case '"':
		n.Kind = String
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		n.Str = s
	default:
		n.Kind = Other
		for p.i < len(p.b) && !isDelimiter(p.b[p.i]) {
			p.i++
		}
	}
	n.End = p.i
	return n, nil
}

func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

func (p *parser) str() (string, error) {
	start := p.i
	for p.i++; p.b[p.i] != '"'; p.i++ {
		if p.b[p.i] == '\\' {
			p.i++
		}
	}
	p.i++
	var s string
	if err := json.Unmarshal(p.b[start:p.i], &s); err != nil {
		return "", fmt.Errorf("string at byte %d: %w", start, err)
	}
	return s, nil
}

// errNotObject: the text is JSON but its top level is not an object.
var errNotObject = errors.New("the top level is not a JSON object")

// Plain is text with its // and /* */ comments blanked, as
// strip-json-comments leaves it, for a reader that only decodes a settings
// file that allows comments (Gemini CLI's).
func Plain(text []byte) ([]byte, error) { return stripComments(text) }
