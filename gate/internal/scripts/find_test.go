package scripts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// readFind reads a find command line written as one string.
func readFind(line string) Find {
	w := strings.Fields(line)
	return ReadFind(len(w), func(i int) string { return w[i] })
}

func TestReadFind(t *testing.T) {
	cases := []struct {
		line string
		want Find
	}{
		{"", Find{}},
		{". -name *.go", Find{Roots: 0, Expr: 1, Filtered: true}},
		{"-L -O3 -D tree src lib -type f", Find{Roots: 4, Expr: 6, Follows: true}},
		{"-D", Find{Roots: 1, Expr: 1}},
		{"( -name a )", Find{Filtered: true}},
		{"/ -delete", Find{Expr: 1, Deletes: true, Actions: []FindAction{{Kind: FindDelete, At: 1, Arg: -1}}}},
		{"src -name * -delete", Find{Expr: 1, Deletes: true, Actions: []FindAction{{Kind: FindDelete, At: 3, Arg: -1}}}},
		{". -mtime +3 -fprint out.txt", Find{Expr: 1, Filtered: true, Actions: []FindAction{{Kind: FindWrite, At: 3, Arg: 4}}}},
		{". -fls", Find{Expr: 1, Actions: []FindAction{{Kind: FindWrite, At: 1, Arg: -1}}}},
		{"-files0-from list.txt", Find{Actions: []FindAction{{Kind: FindNamesFrom, At: 0, Arg: 1}}}},
		{". -exec rm {} ; -print", Find{Expr: 1, Actions: []FindAction{{Kind: FindExec, At: 1, Arg: 4}}}},
		{". -okdir cat {} +", Find{Expr: 1, Actions: []FindAction{{Kind: FindExec, At: 1, Arg: 4, Asks: true}}}},
		// an -exec's words are its command's, not actions; an unended one runs to the end
		{". -exec echo -delete", Find{Expr: 1, Deletes: true, Actions: []FindAction{{Kind: FindExec, At: 1, Arg: 4}}}},
		// a test's value is read as a word of the expression too (stricter)
		{". -name -delete", Find{Expr: 1, Deletes: true, Filtered: true, Actions: []FindAction{{Kind: FindDelete, At: 2, Arg: -1}}}},
		{". -follow -size +1M", Find{Expr: 1, Follows: true, Filtered: true}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, readFind(c.line), c.line)
	}
}

// FuzzFind: ReadFind never panics, its indexes are in range and in
// order, and an -exec's command lies between its word and its end.
func FuzzFind(f *testing.F) {
	for _, s := range []string{". -name *.go", "-L / -delete", ". -exec rm {} ;", "-D x . -fprint o -files0-from l"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		w := strings.Fields(line)
		x := ReadFind(len(w), func(i int) string { return w[i] })
		if x.Roots < 0 || x.Roots > x.Expr || x.Expr > len(w) {
			t.Fatalf("%q: roots %d, expression %d of %d words", line, x.Roots, x.Expr, len(w))
		}
		last := x.Expr - 1
		for _, a := range x.Actions {
			if a.At <= last || a.At >= len(w) || a.Arg >= 0 && a.Arg <= a.At || a.Arg > len(w) {
				t.Fatalf("%q: action %+v after word %d", line, a, last)
			}
			last = a.At
			if a.Kind == FindExec {
				last = a.Arg
			}
		}
	})
}
