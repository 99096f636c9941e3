package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// canonicalReference is the canonical form by way of encoding/json: decode
// with UseNumber, encode with HTML escaping off (what recordHash does).
func canonicalReference(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return canonicalValue(v)
}

func TestCanonicalJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"b":1,"a":{"d":[3,{"y":1,"x":2}],"c":"<&>"}}`, `{"a":{"c":"<&>","d":[3,{"x":2,"y":1}]},"b":1}`},
		{` { "a" : 1.50 , "a" : -0 } `, `{"a":-0}`},
		{`"\u0041\u003c\/"`, `"A</"`},
		{`"line\u2028sep"`, `"line\u2028sep"`},
		{"\"raw \u2028 sep\"", `"raw \u2028 sep"`},
		{"\"bad \xff byte\"", "\"bad \ufffd byte\""},
		{`[1e3,true,false,null,[],{}]`, `[1e3,true,false,null,[],{}]`},
		{`{"\u00e9":1,"e":2,"z":3}`, `{"e":2,"z":3,"é":1}`},
	} {
		got, err := canonicalJSON([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		if string(got) != tc.want {
			t.Errorf("%s: got %s, want %s", tc.in, got, tc.want)
		}
		ref, err := canonicalReference([]byte(tc.in))
		if err != nil || !bytes.Equal(ref, got) {
			t.Errorf("%s: reference %s (%v), got %s", tc.in, ref, err, got)
		}
	}
}

// FuzzCanonicalJSON: for any valid JSON, the byte-level canonicalizer
// agrees with the encoding/json reference; invalid JSON is an error.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `"x"`, `1`, `{"b":[1,{"y":"\u2028","x":null}],"a":"\ud800"}`,
		`{"a":1,"a":2}`, "\"\xff\"", `{"sessionId":"s","source":"user"}`, `{"a":[{"}":"]\""}],"session\u0049d":"x","source":"auto"}`, `{"source":1}`,
		`{"k":"\"\\\/\b\f\n\r\t"}`, ` [ 1 , 2 ] `, `{"a":}`, `[1,]`, `tru`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fields, ferr := readIndexFields(data) // never panics, on any bytes
		if json.Valid(data) {
			want, werr := readIndexFieldsReference(data)
			if (ferr == nil) != (werr == nil) || fields != want {
				t.Fatalf("readIndexFields(%q) = %+v, %v; json.Decoder reads %+v, %v", data, fields, ferr, want, werr)
			}
		}
		got, err := canonicalJSON(data)
		if !json.Valid(data) {
			if err == nil {
				t.Fatalf("%q is not JSON but canonicalized to %q", data, got)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		want, err := canonicalReference(data)
		if err != nil {
			t.Fatalf("reference on %q: %v", data, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%q: got %q, reference %q", data, got, want)
		}
	})
}

// Nesting is bounded like encoding/json's decoder: deep input is an error,
// not a stack overflow.
func TestCanonicalJSONDepth(t *testing.T) {
	deep := func(n int) []byte {
		return append(bytes.Repeat([]byte("["), n), bytes.Repeat([]byte("]"), n)...)
	}
	got, err := canonicalJSON(deep(100))
	if err != nil || !bytes.Equal(got, deep(100)) {
		t.Fatalf("100 levels: %q, %v", got, err)
	}
	// Exactly as deep as encoding/json allows, around a scalar.
	most := []byte(strings.Repeat("[", maxCanonDepth) + "1" + strings.Repeat("]", maxCanonDepth))
	got, err = canonicalJSON(most)
	if err != nil || !bytes.Equal(got, most) {
		t.Fatalf("%d levels around a scalar: %v", maxCanonDepth, err)
	}
	if _, err := canonicalReference(most); err != nil {
		t.Fatalf("encoding/json refuses %d levels: %v", maxCanonDepth, err)
	}
	if _, err := canonicalJSON(deep(maxCanonDepth + 1)); err == nil {
		t.Fatal("more than maxCanonDepth levels must be refused")
	}
	if _, err := canonicalReference(deep(maxCanonDepth + 1)); err == nil {
		t.Fatal("encoding/json is expected to refuse it too")
	}
}

// readIndexFieldsReference is readIndexFields written with json.Decoder's
// tokens, as it was before skipJSON: FuzzCanonicalJSON holds the two to
// the same answers on valid JSON.
func readIndexFieldsReference(v []byte) (indexFields, error) {
	var f indexFields
	dec := json.NewDecoder(bytes.NewReader(v))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return f, fmt.Errorf("not a JSON object")
	}
	var haveSession, haveSource bool
	for dec.More() && !(haveSession && haveSource) {
		t, err := dec.Token()
		if err != nil {
			return f, err
		}
		key, _ := t.(string)
		switch key {
		case "sessionId":
			err, haveSession = dec.Decode(&f.SessionID), true
		case "source":
			err, haveSource = dec.Decode(&f.Source), true
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}
