package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	upstream "github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/perm-peer/perm-peer/schemas/internal/jsonschema"
)

// The copy differs from upstream v5.3.1 only in when a draft's meta-schema
// is compiled. These tests hold it to that: every perm-peer schema compiles
// alike, and every document gets the same verdict and the same error tree
// (every keyword and instance location, every message) from both.

type pair struct {
	name string
	ours *jsonschema.Schema
	up   *upstream.Schema
}

func compileBoth(t testing.TB) []pair {
	t.Helper()
	files, err := filepath.Glob("../../*.schema.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no schema files: %v", err)
	}
	var out []pair
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		url := "https://example.test/" + filepath.Base(f)
		oc := jsonschema.NewCompiler()
		oc.Draft = jsonschema.Draft2020
		if err := oc.AddResource(url, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		uc := upstream.NewCompiler()
		uc.Draft = upstream.Draft2020
		if err := uc.AddResource(url, bytes.NewReader(b)); err != nil {
			t.Fatal(err)
		}
		o, oerr := oc.Compile(url)
		u, uerr := uc.Compile(url)
		if (oerr == nil) != (uerr == nil) {
			t.Fatalf("%s: compile: ours %v, upstream %v", f, oerr, uerr)
		}
		if oerr != nil {
			t.Fatalf("%s does not compile: %v", f, oerr)
		}
		out = append(out, pair{filepath.Base(f), o, u})
	}
	return out
}

// same validates v with both and fails on any difference.
func (p pair) same(t testing.TB, v any) bool {
	t.Helper()
	oerr, uerr := p.ours.Validate(v), p.up.Validate(v)
	if (oerr == nil) != (uerr == nil) {
		t.Errorf("%s: ours %v, upstream %v for %v", p.name, oerr, uerr, v)
		return false
	}
	if oerr != nil {
		if o, u := canonical(fmt.Sprintf("%#v", oerr)), canonical(fmt.Sprintf("%#v", uerr)); o != u {
			t.Errorf("%s: error trees differ for %v:\nours:\n%s\nupstream:\n%s", p.name, v, o, u)
			return false
		}
	}
	return oerr == nil
}

// TestSameAsUpstream validates every JSON value found anywhere in the
// conformance vectors (params and results of real scenarios, valid and
// invalid) against every schema.
func TestSameAsUpstream(t *testing.T) {
	pairs := compileBoth(t)
	vectors, err := filepath.Glob("../../../conformance/vectors/*.json")
	if err != nil || len(vectors) == 0 {
		t.Fatalf("no vectors: %v", err)
	}
	var docs []any
	for _, f := range vectors {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		v, err := decode(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		docs = collect(v, docs)
	}
	valid := 0
	for _, p := range pairs {
		for _, d := range docs {
			if p.same(t, d) {
				valid++
			}
		}
	}
	// Both verdicts occur, so the comparison covers accepting and rejecting.
	if valid == 0 || valid == len(pairs)*len(docs) {
		t.Fatalf("%d of %d validations passed: the documents do not exercise both verdicts", valid, len(pairs)*len(docs))
	}
	t.Logf("%d schemas x %d documents, %d valid", len(pairs), len(docs), valid)
}

// FuzzSameAsUpstream: any JSON document, against the schema chosen by pick.
func FuzzSameAsUpstream(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `[]`, `"x"`, `{"sessionId":"s","toolCall":{"tool":"bash","kind":"execute","rawInput":{"command":"ls"}}}`,
		`{"mode":"nope","rules":{"allow":[1]}}`, `{"reply":"always","scope":{}}`, `{"protocolVersion":1,"capabilities":{"x":true}}`} {
		for pick := range 8 {
			f.Add([]byte(s), uint8(pick*5))
		}
	}
	pairs := compileBoth(f)
	f.Fuzz(func(t *testing.T, doc []byte, pick uint8) {
		v, err := decode(doc)
		if err != nil {
			return
		}
		pairs[int(pick)%len(pairs)].same(t, v)
	})
}

// canonical sorts the lines of an error tree and the property names of
// "additionalProperties 'a', 'b' not allowed": both implementations list
// sibling causes and those names in map iteration order.
func canonical(tree string) string {
	lines := strings.Split(tree, "\n")
	for i, l := range lines {
		const pre, post = "additionalProperties ", " not allowed"
		j := strings.Index(l, pre)
		if j < 0 || !strings.HasSuffix(l, post) {
			continue
		}
		names := strings.Split(l[j+len(pre):len(l)-len(post)], ", ")
		sort.Strings(names)
		lines[i] = l[:j+len(pre)] + strings.Join(names, ", ") + post
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// collect appends v and every object and array inside it.
func collect(v any, out []any) []any {
	switch x := v.(type) {
	case map[string]any:
		out = append(out, x)
		for _, e := range x {
			out = collect(e, out)
		}
	case []any:
		out = append(out, x)
		for _, e := range x {
			out = collect(e, out)
		}
	}
	return out
}
