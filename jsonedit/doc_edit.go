package jsonedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Doc is a JSON text with its parse tree and the edits asked so far.
type Doc struct {
	text     []byte // as written
	plain    []byte // comments blanked
	root     *Node
	edits    []edit
	appends  map[*Node][]pending
	unit     string // one level of indentation
	colon    string // between a key and its value
	compact  bool   // the whole object is on one line
	comments bool
}

type edit struct {
	start, end int
	text       string
}

type pending struct {
	key string // "" for an array element
	val any
}

// Parse parses text, which must hold one JSON object (an empty or blank
// text is an empty object). With comments, // and /* */ comments are
// allowed wherever whitespace is, as strip-json-comments allows them.
func Parse(text []byte, comments bool) (*Doc, error) {
	if len(bytes.TrimSpace(text)) == 0 {
		text = []byte("{}\n")
	}
	plain := text
	if comments {
		var err error
		if plain, err = stripComments(text); err != nil {
			return nil, err
		}
	}
	if !json.Valid(plain) {
		var v any
		err := json.Unmarshal(plain, &v)
		if err == nil {
			err = fmt.Errorf("not valid JSON")
		}
		if !comments && (bytes.Contains(text, []byte("//")) || bytes.Contains(text, []byte("/*"))) {
			err = fmt.Errorf("%w (JSON allows no comments here)", err)
		}
		return nil, err
	}
	p := &parser{b: plain}
	root, err := p.value()
	if err != nil {
		return nil, err
	}
	if root.Kind != Object {
		return nil, errNotObject
	}
	d := &Doc{text: text, plain: plain, root: root, appends: map[*Node][]pending{}, comments: comments}
	d.learnStyle()
	return d, nil
}

// Root is the top-level object.
func (d *Doc) Root() *Node { return d.root }

// Text is the value's text as written.
func (d *Doc) Text(n *Node) []byte { return d.text[n.Start:n.End] }

// learnStyle reads the indentation unit and the key-colon spacing from
// the text, so inserted values look like their neighbours.
func (d *Doc) learnStyle() {
	d.unit, d.colon = "  ", ": "
	r := d.root
	if len(r.Members) == 0 {
		return
	}
	first := r.Members[0]
	if c := string(d.plain[first.KeyEnd:first.Val.Start]); !strings.ContainsAny(c, "\r\n") {
		d.colon = c
	}
	sep := string(d.plain[r.Start+1 : first.KeyStart])
	nl := strings.LastIndexByte(sep, '\n')
	if nl < 0 {
		d.compact = true
		return
	}
	if in := sep[nl+1:]; in != "" {
		d.unit = strings.TrimPrefix(in, d.lineIndent(r.Start))
		if d.unit == "" {
			d.unit = in
		}
	}
}

// lineIndent is the leading whitespace of the line holding offset off.
func (d *Doc) lineIndent(off int) string {
	ls := bytes.LastIndexByte(d.plain[:off], '\n') + 1
	le := ls
	for le < len(d.plain) && (d.plain[le] == ' ' || d.plain[le] == '\t') {
		le++
	}
	return string(d.plain[ls:le])
}

// Replace puts v in place of node n.
func (d *Doc) Replace(n *Node, v any) {
	d.edits = append(d.edits, edit{n.Start, n.End, d.format(v, d.lineIndent(n.Start))})
}

// Append adds a member key: v to object container, or the element v to
// array container (key ""), after its last child.
func (d *Doc) Append(container *Node, key string, v any) {
	d.appends[container] = append(d.appends[container], pending{key, v})
}

// Remove deletes the children at idxs (members or elements) of container,
// with the separators that go with them.
func (d *Doc) Remove(container *Node, idxs []int) {
	gone := map[int]bool{}
	for _, i := range idxs {
		gone[i] = true
	}
	n := container.Len()
	first := -1 // first kept child
	for i := 0; i < n; i++ {
		if !gone[i] {
			first = i
			break
		}
	}
	if first < 0 {
		d.edits = append(d.edits, edit{container.Start + 1, container.End - 1, ""})
		return
	}
	if first > 0 {
		s, _ := container.childRange(0)
		e, _ := container.childRange(first)
		d.edits = append(d.edits, edit{s, e, ""})
	}
	for i := first + 1; i < n; i++ {
		if gone[i] {
			_, prevEnd := container.childRange(i - 1)
			_, end := container.childRange(i)
			d.edits = append(d.edits, edit{prevEnd, end, ""})
		}
	}
}

// Changed reports whether any edit was asked.
func (d *Doc) Changed() bool { return len(d.edits) > 0 || len(d.appends) > 0 }

// Bytes is the text with every edit applied.
func (d *Doc) Bytes() ([]byte, error) {
	edits := append([]edit(nil), d.edits...)
	for c, items := range d.appends {
		edits = append(edits, d.appendEdit(c, items))
	}
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	for i := 1; i < len(edits); i++ {
		if edits[i].start < edits[i-1].end {
			return nil, fmt.Errorf("jsonedit: overlapping edits at bytes %d and %d", edits[i-1].start, edits[i].start)
		}
	}
	var b bytes.Buffer
	at := 0
	for _, e := range edits {
		b.Write(d.text[at:e.start])
		b.WriteString(e.text)
		at = e.end
	}
	b.Write(d.text[at:])
	return b.Bytes(), nil
}

// appendEdit is the one insertion that adds items after c's last child.
func (d *Doc) appendEdit(c *Node, items []pending) edit {
	var b strings.Builder
	if c.Len() == 0 {
		indent := d.lineIndent(c.Start)
		if d.compact {
			for i, it := range items {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(d.item(it, ""))
			}
			return edit{c.Start + 1, c.End - 1, b.String()}
		}
		for i, it := range items {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n" + indent + d.unit + d.item(it, indent+d.unit))
		}
		b.WriteString("\n" + indent)
		return edit{c.Start + 1, c.End - 1, b.String()}
	}
	firstStart, _ := c.childRange(0)
	_, lastEnd := c.childRange(c.Len() - 1)
	sep := string(d.plain[c.Start+1 : firstStart])
	if nl := strings.LastIndexByte(sep, '\n'); nl >= 0 && !d.compact {
		indent := sep[nl+1:]
		for _, it := range items {
			b.WriteString(",\n" + indent + d.item(it, indent))
		}
	} else {
		for _, it := range items {
			b.WriteString(", " + d.item(it, ""))
		}
	}
	return edit{lastEnd, lastEnd, b.String()}
}

func (d *Doc) item(it pending, indent string) string {
	v := d.format(it.val, indent)
	if it.key == "" {
		return v
	}
	return quote(it.key) + d.colon + v
}

// Fields is an object whose keys keep their order when written.
type Fields []Field

// Field is one member of Fields.
type Field struct {
	Key string
	Val any
}

// format writes v at indentation indent: multi-line in the file's style,
// or on one line when the file is written that way.
func (d *Doc) format(v any, indent string) string {
	nl, inner := "\n"+indent+d.unit, "\n"+indent
	if d.compact {
		nl, inner = "", ""
	}
	switch x := v.(type) {
	case Fields:
		if len(x) == 0 {
			return "{}"
		}
		var b strings.Builder
		b.WriteByte('{')
		for i, f := range x {
			if i > 0 {
				b.WriteByte(',')
				if d.compact {
					b.WriteByte(' ')
				}
			}
			b.WriteString(nl + quote(f.Key) + d.colon + d.format(f.Val, indent+d.unit))
		}
		b.WriteString(inner + "}")
		return b.String()
	case []any:
		if len(x) == 0 {
			return "[]"
		}
		var b strings.Builder
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
				if d.compact {
					b.WriteByte(' ')
				}
			}
			b.WriteString(nl + d.format(e, indent+d.unit))
		}
		b.WriteString(inner + "]")
		return b.String()
	case string:
		return quote(x)
	default:
		out, _ := json.Marshal(x)
		return string(out)
	}
}

// quote is s as a JSON string, without encoding/json's HTML escapes: a
// command's && and > stay readable.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
