package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perm-peer/perm-peer/jsonkey"
	"github.com/perm-peer/perm-peer/regfile"
)

// MaxPolicyBytes caps the size of a policy file. A 400 000-rule policy is
// about 10 MB, far beyond any real one; the cap keeps a file that is not one
// (a symlink into /dev, a huge generated file) from taking the peer's
// memory.
const MaxPolicyBytes = 16 << 20

// readPolicyFile reads a policy file; (nil, nil) when it does not exist.
// Only a regular file of at most MaxPolicyBytes is read (a symlink to one is
// fine): see package regfile.
func readPolicyFile(file string) ([]byte, error) {
	data, _, err := regfile.Read(file, MaxPolicyBytes, regfile.Kind{One: "policy", Many: "policies"})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// checkPolicyText rejects what encoding/json would silently reinterpret:
// bytes that are not UTF-8 (decoded as U+FFFD, so a rule would match
// nothing the user meant) and repeated keys, also those differing only in
// case, which encoding/json folds onto one field (the last one would win,
// and a deny rule the user can see in the file would not apply). The JSON
// must be well-formed.
func checkPolicyText(file string, data []byte) error {
	if bad := invalidUTF8(data); bad >= 0 {
		line, col := lineCol(data, bad)
		ptr := pointerAt(data, bad)
		return fmt.Errorf("policy %s:%d:%d: %snot valid UTF-8 (save the file as UTF-8)", file, line, col, ptrPrefix(ptr))
	}
	if d := findDuplicateKey(data); d != nil {
		line, col := lineCol(data, d.off)
		fline, fcol := lineCol(data, d.firstOff)
		what := fmt.Sprintf("the key %q appears twice (first at %d:%d)", d.key, fline, fcol)
		if d.key != d.first {
			what = fmt.Sprintf("the key %q differs only in case from %q at %d:%d, and JSON decoding folds case", d.key, d.first, fline, fcol)
		}
		return fmt.Errorf("policy %s:%d:%d: %s: %s; perm-peer will not guess which one applies", file, line, col, d.ptr, what)
	}
	return nil
}

func ptrPrefix(ptr string) string {
	if ptr == "" {
		return ""
	}
	return ptr + ": "
}

// invalidUTF8 is the offset of the first byte that is not UTF-8, or -1.
func invalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// keyRepeat is a repeated key: its pointer, offsets, and spellings.
type keyRepeat struct {
	ptr        string
	key, first string
	off        int // the repeat
	firstOff   int
}

// tokenVisit is called for every token of a JSON text with the pointer of
// the value it belongs to and the byte range of the token; a member's key
// is visited with the member's pointer and isKey set. Returning false stops
// the walk.
type tokenVisit func(ptr string, start, end int, tok json.Token, isKey bool) bool

// walkTokens visits every token of data (which must be well-formed JSON).
func walkTokens(data []byte, visit tokenVisit) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var walk func(ptr string) bool
	next := func() (json.Token, int, int, bool) {
		start := skipSpace(data, int(dec.InputOffset()))
		tok, err := dec.Token()
		if err != nil {
			return nil, 0, 0, false
		}
		return tok, start, int(dec.InputOffset()), true
	}
	walk = func(ptr string) bool {
		tok, start, end, ok := next()
		if !ok || !visit(ptr, start, end, tok, false) {
			return false
		}
		d, isDelim := tok.(json.Delim)
		if !isDelim {
			return true
		}
		for i := 0; dec.More(); i++ {
			child := ptr + "/" + strconv.Itoa(i)
			if d == '{' {
				kt, ks, ke, ok := next()
				if !ok {
					return false
				}
				key, _ := kt.(string)
				child = ptr + "/" + escapePointer(key)
				if !visit(child, ks, ke, kt, true) {
					return false
				}
			}
			if !walk(child) {
				return false
			}
		}
		tok, start, end, ok = next() // the closing delimiter
		return ok && visit(ptr, start, end, tok, false)
	}
	walk("")
}

func escapePointer(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

// pointerAt is the pointer of the value (or member key) whose token covers
// the byte at off; "" for the root or when none does.
func pointerAt(data []byte, off int) string {
	// The text is not UTF-8 but may be well-formed otherwise: walk a copy
	// with the bad bytes made harmless, keeping every offset.
	clean := bytes.Clone(data)
	for i := 0; i < len(clean); {
		r, n := utf8.DecodeRune(clean[i:])
		if r == utf8.RuneError && n == 1 {
			clean[i] = '?'
		}
		i += n
	}
	found := ""
	walkTokens(clean, func(ptr string, start, end int, _ json.Token, _ bool) bool {
		if off >= start && off < end {
			found = ptr
			return false
		}
		return true
	})
	return found
}

// findDuplicateKey returns the first key repeated in its object (exactly,
// or differing only in case: encoding/json folds case when it decodes into
// a struct, and every object of a policy is one; jsonkey.Fold),
// or nil.
func findDuplicateKey(data []byte) *keyRepeat {
	type seen struct {
		key string
		off int
	}
	// Keys of the open objects, by the object's pointer.
	objects := map[string]map[string]seen{}
	var dup *keyRepeat
	walkTokens(data, func(ptr string, start, _ int, tok json.Token, isKey bool) bool {
		if d, ok := tok.(json.Delim); ok && !isKey {
			switch d {
			case '{':
				objects[ptr] = map[string]seen{}
			case '}':
				delete(objects, ptr)
			}
			return true
		}
		if !isKey {
			return true
		}
		key := tok.(string)
		parent := ptr[:strings.LastIndexByte(ptr, '/')]
		keys := objects[parent]
		folded := jsonkey.Fold(key)
		if s, ok := keys[folded]; ok {
			dup = &keyRepeat{ptr: parent + "/" + escapePointer(s.key), key: key, first: s.key, off: start, firstOff: s.off}
			return false
		}
		keys[folded] = seen{key: key, off: start}
		return true
	})
	return dup
}
