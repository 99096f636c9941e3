package schemas

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The strict check: a walk of a params object's bytes against the subset
// of JSON Schema the params schemas use (type, properties, required,
// additionalProperties, minLength, minimum, string enums, items, anyOf,
// $ref, if/then). It answers "certainly valid" only for params that hold
// nothing the validator might read otherwise and nothing encoding/json
// might decode otherwise: no member the schema does not declare, no
// repeated key, no key that differs from a declared one only in letter
// case, no escaped key, no number other than a plain integer where an
// integer is wanted. Everything else goes to the validator, which explains
// every rejection (SPEC §3.8). The differential fuzz targets (strict_test.go)
// hold the two to agreement: Certain implies ValidateParams accepts.

// verdict is the strict walk's answer for one value.
type verdict uint8

const (
	vUnknown verdict = iota // the validator must decide
	vValid
	vInvalid
)

// shape is one compiled schema node.
type shape struct {
	any         bool  // true or {}: every value
	types       uint8 // bitmask of typeX; 0: any type
	props       map[string]*shape
	folded      map[string]string // folded key → declared key
	required    []string
	noExtra     bool // additionalProperties: false
	minLen      int
	minimum     *int64
	enum        []string
	hasEnum     bool
	items       *shape
	anyOf       []*shape
	refShape    *shape
	ifS, thenS  *shape
	unsupported bool // a keyword this walk does not model
	// declared are the keys this node or a schema applied to the same
	// value ($ref, anyOf, then) declares, by folded spelling
	declared map[string]string
}

const (
	typeObject uint8 = 1 << iota
	typeArray
	typeString
	typeInteger
	typeNumber
	typeBoolean
	typeNull
)

var typeBits = map[string]uint8{"object": typeObject, "array": typeArray, "string": typeString,
	"integer": typeInteger, "number": typeNumber, "boolean": typeBoolean, "null": typeNull}

// strictShapes maps a params schema file to its compiled *shape (or nil).
var strictShapes sync.Map

type lazyShape struct {
	once sync.Once
	s    *shape
}

func paramsShape(method string) *shape {
	name, ok := paramsFile[method]
	if !ok {
		return nil
	}
	v, ok := strictShapes.Load(name)
	if !ok {
		v, _ = strictShapes.LoadOrStore(name, &lazyShape{})
	}
	l := v.(*lazyShape)
	l.once.Do(func() {
		b, err := embedded.ReadFile(name)
		if err != nil {
			return
		}
		var doc map[string]any
		if json.Unmarshal(b, &doc) != nil {
			return
		}
		defs, _ := doc["$defs"].(map[string]any)
		c := shapeCompiler{defs: defs, done: map[string]*shape{}}
		l.s = c.compile(doc)
		declare(l.s, map[*shape]bool{})
	})
	return l.s
}

// declare fills in each node's declared keys.
func declare(s *shape, seen map[*shape]bool) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	s.declared = map[string]string{}
	var add func(n *shape, in map[*shape]bool)
	add = func(n *shape, in map[*shape]bool) {
		if n == nil || in[n] {
			return
		}
		in[n] = true
		for fk, k := range n.folded {
			s.declared[fk] = k
		}
		add(n.refShape, in)
		add(n.thenS, in)
		for _, alt := range n.anyOf {
			add(alt, in)
		}
	}
	add(s, map[*shape]bool{})
	for _, sub := range s.props {
		declare(sub, seen)
	}
	for _, n := range append([]*shape{s.items, s.refShape, s.ifS, s.thenS}, s.anyOf...) {
		declare(n, seen)
	}
}

type shapeCompiler struct {
	defs map[string]any
	done map[string]*shape
}

func (c *shapeCompiler) compile(node any) *shape {
	switch n := node.(type) {
	case bool:
		if n {
			return &shape{any: true}
		}
		return &shape{unsupported: true}
	case map[string]any:
		s := &shape{}
		if len(n) == 0 {
			s.any = true
		}
		for k, v := range n {
			switch k {
			case "$schema", "$id", "title", "description", "$defs", "$comment":
			case "type":
				s.types = c.types(v, s)
			case "properties":
				m, _ := v.(map[string]any)
				s.props, s.folded = map[string]*shape{}, map[string]string{}
				for name, sub := range m {
					s.props[name] = c.compile(sub)
					s.folded[foldKey(name)] = name
				}
			case "required":
				for _, r := range asList(v) {
					name, ok := r.(string)
					if !ok {
						s.unsupported = true
					}
					s.required = append(s.required, name)
				}
			case "additionalProperties":
				if b, ok := v.(bool); ok && !b {
					s.noExtra = true
				} else {
					s.unsupported = true
				}
			case "minLength":
				f, ok := v.(float64)
				s.minLen = int(f)
				s.unsupported = s.unsupported || !ok || f != float64(int(f))
			case "minimum":
				f, ok := v.(float64)
				m := int64(f)
				s.minimum = &m
				s.unsupported = s.unsupported || !ok || f != float64(m)
			case "enum":
				s.hasEnum = true
				for _, e := range asList(v) {
					str, ok := e.(string)
					if !ok {
						s.unsupported = true
					}
					s.enum = append(s.enum, str)
				}
			case "items":
				s.items = c.compile(v)
			case "anyOf":
				for _, sub := range asList(v) {
					s.anyOf = append(s.anyOf, c.compile(sub))
				}
				s.unsupported = s.unsupported || len(s.anyOf) == 0
			case "$ref":
				ref, _ := v.(string)
				name, ok := strings.CutPrefix(ref, "#/$defs/")
				def, found := c.defs[name]
				if !ok || !found {
					s.unsupported = true
					break
				}
				if done := c.done[name]; done != nil {
					s.refShape = done
					break
				}
				target := &shape{}
				c.done[name] = target
				*target = *c.compile(def)
				s.refShape = target
			case "if":
				s.ifS = c.compile(v)
			case "then":
				s.thenS = c.compile(v)
			default:
				s.unsupported = true
			}
		}
		if s.thenS != nil && s.ifS == nil {
			s.unsupported = true
		}
		return s
	}
	return &shape{unsupported: true}
}

func (c *shapeCompiler) types(v any, s *shape) uint8 {
	var bits uint8
	for _, t := range asList(v) {
		name, _ := t.(string)
		b, ok := typeBits[name]
		if !ok {
			s.unsupported = true
		}
		bits |= b
	}
	return bits
}

func asList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	return []any{v}
}

// foldKey maps a key to one spelling of its simple case folding, as
// encoding/json matches keys to struct fields.
func foldKey(s string) string {
	if isLowerASCII(s) {
		return s
	}
	return strings.ToLower(strings.ToUpper(s))
}

func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= utf8.RuneSelf || c >= 'A' && c <= 'Z' {
			return false
		}
	}
	return true
}

// Certain reports whether params (the bytes of a JSON value, already known
// to be valid JSON) certainly fit method's params schema and hold nothing
// that encoding/json would decode differently from what was checked. False
// means only that the validator must decide.
func Certain(method string, params []byte) bool {
	s := paramsShape(method)
	if s == nil {
		return false
	}
	if !json.Valid(params) {
		return false
	}
	w := strictWalker{b: params, ok: true}
	w.ws()
	return w.check(s, 0) == vValid && w.ok
}

// maxStrictDepth bounds the nesting the walk follows.
const maxStrictDepth = 256

// strictWalker walks valid JSON bytes.
type strictWalker struct {
	b  []byte
	i  int
	ok bool // no repeated, folded or escaped key seen
	// inIf > 0 while an if schema is tried: there, as in JSON Schema, an
	// undeclared member is no reason for doubt
	inIf int
}

// anyShape is the schema true: what skip checks a value against.
var anyShape = &shape{any: true}

func (w *strictWalker) ws() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\r', '\n':
			w.i++
		default:
			return
		}
	}
}

// check checks the value at w.i against s and moves past it. The anyOf,
// $ref and if branches walk the value again from its start.
func (w *strictWalker) check(s *shape, depth int) verdict {
	if depth > maxStrictDepth || s.unsupported {
		w.skip(depth)
		return vUnknown
	}
	if s.refShape != nil && s.types == 0 && s.props == nil && s.anyOf == nil && s.ifS == nil && !s.hasEnum && !s.noExtra {
		return w.check(s.refShape, depth) // a bare $ref
	}
	start := w.i
	result := w.own(s, depth)
	end := w.i
	for _, extra := range w.branches(s) {
		w.i = start
		result = and(result, extra(depth))
	}
	w.i = end
	return result
}

// branches are the parts of s that check the same value again.
func (w *strictWalker) branches(s *shape) []func(int) verdict {
	var out []func(int) verdict
	if s.refShape != nil {
		out = append(out, func(d int) verdict { return w.check(s.refShape, d) })
	}
	if len(s.anyOf) > 0 {
		out = append(out, func(d int) verdict {
			start, res := w.i, vInvalid
			for _, alt := range s.anyOf {
				w.i = start
				switch w.check(alt, d) {
				case vValid:
					return vValid
				case vUnknown:
					res = vUnknown
				}
			}
			return res
		})
	}
	if s.ifS != nil {
		out = append(out, func(d int) verdict {
			start := w.i
			w.inIf++
			cond := w.check(s.ifS, d)
			w.inIf--
			switch cond {
			case vInvalid:
				return vValid
			case vUnknown:
				return vUnknown
			}
			if s.thenS == nil {
				return vValid
			}
			w.i = start
			return w.check(s.thenS, d)
		})
	}
	return out
}

func and(a, b verdict) verdict {
	switch {
	case a == vInvalid || b == vInvalid:
		return vInvalid
	case a == vUnknown || b == vUnknown:
		return vUnknown
	}
	return vValid
}

// own checks s's type, object, array, string and number keywords.
func (w *strictWalker) own(s *shape, depth int) verdict {
	c := w.b[w.i]
	var kind uint8
	switch {
	case c == '{':
		kind = typeObject
	case c == '[':
		kind = typeArray
	case c == '"':
		kind = typeString
	case c == 't' || c == 'f':
		kind = typeBoolean
	case c == 'n':
		kind = typeNull
	default:
		kind = typeNumber
	}
	switch kind {
	case typeObject:
		return w.object(s, depth)
	case typeArray:
		return w.array(s, depth)
	case typeString:
		return w.str(s)
	case typeNumber:
		return w.number(s)
	}
	w.skip(depth)
	res := vValid
	if s.types != 0 && s.types&kind == 0 {
		res = vInvalid
	}
	if s.hasEnum { // string enums only: a literal is not in them
		res = vInvalid
	}
	return res
}

func (w *strictWalker) object(s *shape, depth int) verdict {
	res := vValid
	if s.types != 0 && s.types&typeObject == 0 || s.hasEnum {
		res = vInvalid
	}
	w.i++ // {
	var backing [16][]byte
	keys := backing[:0] // the keys seen, as written
	for {
		w.ws()
		if w.b[w.i] == '}' {
			w.i++
			break
		}
		kstart := w.i
		w.skipString()
		key := w.b[kstart+1 : w.i-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			w.ok = false // an escaped key: the validator decides
		}
		for _, o := range keys {
			if bytes.EqualFold(o, key) {
				w.ok = false // a repeated key, in some letter case
			}
		}
		keys = append(keys, key)
		w.ws()
		w.i++ // :
		w.ws()
		sub := s.props[string(key)]
		if sub == nil && s != anyShape {
			switch k, folds := s.declaredAs(key); {
			case folds && k != string(key):
				w.ok = false // "Command" for "command"
			case s.noExtra:
				res = vInvalid
			case !folds && len(s.declared) > 0 && res == vValid && w.inIf == 0:
				res = vUnknown // a member no schema of this object declares
			}
		}
		if sub != nil {
			res = and(res, w.check(sub, depth+1))
		} else {
			w.skip(depth + 1)
		}
		w.ws()
		if w.b[w.i] == ',' {
			w.i++
		}
	}
	for _, r := range s.required {
		found := false
		for _, k := range keys {
			if string(k) == r {
				found = true
			}
		}
		if !found {
			res = vInvalid
		}
	}
	return res
}

// declaredAs returns the declared key that key spells in some letter case.
func (s *shape) declaredAs(key []byte) (string, bool) {
	for _, k := range s.declared {
		if bytes.EqualFold([]byte(k), key) {
			return k, true
		}
	}
	return "", false
}

func (w *strictWalker) array(s *shape, depth int) verdict {
	res := vValid
	if s.types != 0 && s.types&typeArray == 0 || s.hasEnum {
		res = vInvalid
	}
	w.i++ // [
	for {
		w.ws()
		if w.b[w.i] == ']' {
			w.i++
			return res
		}
		if s.items != nil {
			res = and(res, w.check(s.items, depth+1))
		} else {
			w.skip(depth + 1)
		}
		w.ws()
		if w.b[w.i] == ',' {
			w.i++
		}
	}
}

func (w *strictWalker) str(s *shape) verdict {
	start := w.i
	w.skipString()
	if s.types != 0 && s.types&typeString == 0 {
		return vInvalid
	}
	if s.minLen == 0 && !s.hasEnum {
		return vValid
	}
	text := w.b[start+1 : w.i-1]
	if bytes.IndexByte(text, '\\') >= 0 {
		var u string
		if json.Unmarshal(w.b[start:w.i], &u) != nil {
			return vUnknown
		}
		text = []byte(u)
	}
	if utf8.RuneCount(text) < s.minLen {
		return vInvalid
	}
	if s.hasEnum {
		for _, e := range s.enum {
			if e == string(text) {
				return vValid
			}
		}
		return vInvalid
	}
	return vValid
}

func (w *strictWalker) number(s *shape) verdict {
	start := w.i
	for w.i < len(w.b) {
		c := w.b[w.i]
		if c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			break
		}
		w.i++
	}
	tok := w.b[start:w.i]
	if s.hasEnum {
		return vInvalid
	}
	digits := bytes.TrimPrefix(tok, []byte("-"))
	plainInt := len(tok) <= 18 && len(digits) > 0 && len(bytes.Trim(digits, "0123456789")) == 0
	switch {
	case s.types == 0 && s.minimum == nil:
		return vValid
	case s.types&(typeInteger|typeNumber) == 0 && s.types != 0:
		return vInvalid
	case !plainInt:
		return vUnknown // 1.0 and 1e3 are integers to the validator, not to encoding/json's int
	}
	if s.minimum != nil {
		n, err := strconv.ParseInt(string(tok), 10, 64)
		if err != nil {
			return vUnknown
		}
		if n < *s.minimum {
			return vInvalid
		}
	}
	return vValid
}

// skip moves past one value, checking the keys of the objects in it for
// repeats and escapes (a repeated key anywhere goes to the validator).
func (w *strictWalker) skip(depth int) {
	if depth > maxStrictDepth {
		w.ok = false
	}
	switch w.b[w.i] {
	case '{':
		w.object(anyShape, depth)
	case '[':
		w.array(anyShape, depth)
	case '"':
		w.skipString()
	default:
		for w.i < len(w.b) {
			c := w.b[w.i]
			if c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\r' || c == '\n' {
				return
			}
			w.i++
		}
	}
}

func (w *strictWalker) skipString() {
	w.i++
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case '\\':
			w.i += 2
			continue
		case '"':
			w.i++
			return
		}
		w.i++
	}
}

// FoldedKey returns the JSON pointer of a member of params whose key
// differs from a key its schema declares only in letter case ("Command"
// for "command"), or "". encoding/json would decode it into the declared
// field, which the validator never looked at: such params are rejected.
func FoldedKey(method string, params []byte) string {
	s := paramsShape(method)
	if s == nil {
		return ""
	}
	var v any
	if json.Unmarshal(params, &v) != nil {
		return ""
	}
	return foldedIn(s, v, "", 0)
}

func foldedIn(s *shape, v any, ptr string, depth int) string {
	if s == nil || depth > maxStrictDepth {
		return ""
	}
	for _, alt := range append(append([]*shape{s.refShape, s.thenS}, s.anyOf...), s.items) {
		if alt == s.items {
			if l, ok := v.([]any); ok {
				for i, e := range l {
					if p := foldedIn(alt, e, ptr+"/"+strconv.Itoa(i), depth+1); p != "" {
						return p
					}
				}
			}
			continue
		}
		if p := foldedIn(alt, v, ptr, depth+1); p != "" {
			return p
		}
	}
	m, ok := v.(map[string]any)
	if !ok || s.props == nil {
		return ""
	}
	for k, sub := range m {
		if _, exact := s.props[k]; !exact {
			if _, folds := s.folded[foldKey(k)]; folds {
				return ptr + "/" + escapePointer(k)
			}
			continue
		}
		if p := foldedIn(s.props[k], sub, ptr+"/"+escapePointer(k), depth+1); p != "" {
			return p
		}
	}
	return ""
}

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
