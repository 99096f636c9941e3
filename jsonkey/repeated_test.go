package jsonkey

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRepeated(t *testing.T) {
	for in, want := range map[string]string{
		`{"command":"git status"}`:                       "",
		`{"command":"rm -rf ~/","command":"git status"}`: "command",
		`{"command":"ls","Command":"rm -rf ~/"}`:         "Command",
		`{"comm\u0061nd":"ls","command":"rm -rf ~/"}`:    "command",
		`{"a":{"x":1,"y":{"k":1,"k":2}}}`:                "k",
		`{"a":[{"k":1},{"k":2}]}`:                        "", // two objects, one key each
		`{"edits":[{"old":"a","new":"b","NEW":"c"}]}`:    "NEW",
		`{"s":"{\"k\":1,\"k\":2}"}`:                      "", // a string, not an object
		`{"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k9":9,"k10":10,"k11":11,"k12":12,"k13":13,"k14":14,"k15":15,"k16":16,"k17":17,"K3":0}`: "K3",
		`{"ſ":1,"s":2}`: "s", // U+017F folds to s
		`not json`:      "",
		`[1,2,{"a":1}]`: "",
	} {
		assert.Equal(t, want, Repeated([]byte(in)), in)
	}
}

// refDuplicate is Repeated the slow way, with encoding/json's tokens.
func refDuplicate(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	var walk func() (bool, bool) // (dup, ok)
	walk = func() (bool, bool) {
		t, err := dec.Token()
		if err != nil {
			return false, false
		}
		switch t {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return false, false
				}
				k := Fold(kt.(string))
				if seen[k] {
					return true, true
				}
				seen[k] = true
				if dup, ok := walk(); dup || !ok {
					return dup, ok
				}
			}
			_, err = dec.Token()
			return false, err == nil
		case json.Delim('['):
			for dec.More() {
				if dup, ok := walk(); dup || !ok {
					return dup, ok
				}
			}
			_, err = dec.Token()
			return false, err == nil
		}
		return false, true
	}
	dup, _ := walk()
	return dup
}

func FuzzRepeated(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":[{"c":1,"C":2}]}}`, `{"\u0061":1,"a":2}`, `[{"k":1},{"k":1}]`, `{"ſ":1,"S":2}`, `{}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) || bytes.Count(raw, []byte("[")) > 400 || bytes.Count(raw, []byte("{")) > 400 {
			return
		}
		if got, want := Repeated(raw) != "", refDuplicate(raw); got != want {
			t.Fatalf("%q: Repeated says %v, encoding/json's tokens %v", raw, got, want)
		}
	})
}
