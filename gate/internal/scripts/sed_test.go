package scripts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSed(t *testing.T) {
	cases := []struct {
		script string
		safe   bool
		eff    Effects
	}{
		{"1,20p", true, Effects{}},
		{"s/foo/bar/g", true, Effects{}},
		{"/func main/,/^}/p", true, Effects{}},
		{"$!N;s/\\n/ /", true, Effects{}},
		{"s|a|b|2", true, Effects{}},
		{"/x/{p;q}", true, Effects{}},
		{"s/a\\/b/c/", true, Effects{}},
		{"y/abc/xyz/", true, Effects{}},
		{"10q", true, Effects{}},
		{"0~3d;2,+4p", true, Effects{}},
		{"/a/I,/b/M!d", true, Effects{}},
		{"# w comment\np", true, Effects{}},
		{"a w text\np", true, Effects{}},
		{":top;/x/b top", true, Effects{}},
		{"w out.txt", false, Effects{Writes: []string{"out.txt"}}},
		{"/x/{w out.txt", false, Effects{Writes: []string{"out.txt"}}},
		{"W  spaced", false, Effects{Writes: []string{"spaced"}}},
		{"s/a/b/w out", false, Effects{Writes: []string{"out"}}},
		{"s/a/b/gw out\np", false, Effects{Writes: []string{"out"}}},
		{"s/a/b/e", false, Effects{Runs: []string{"b"}}},
		{"s/.*/id/e", false, Effects{Runs: []string{"id"}}},
		{"1e id", false, Effects{Runs: []string{"id"}}},
		{"e", false, Effects{}},
		{"r /etc/passwd", false, Effects{Reads: []string{"/etc/passwd"}}},
		{"R x\nr y", false, Effects{Reads: []string{"x", "y"}}},
		{"\\%x%w out", false, Effects{Writes: []string{"out"}}},
		{"s/a/b/E", false, Effects{}},
		{"y/a/b/w", true, Effects{}}, // y takes no flags: GNU sed refuses the trailing w and writes nothing
		{"s/a/b", false, Effects{}},
		{"s/a\nb/c/", false, Effects{}},
		{"/unclosed", false, Effects{}},
		{"1,", false, Effects{}},
		{"1!", false, Effects{}},
		{"k", false, Effects{}},
		{"", true, Effects{}},
	}
	for _, c := range cases {
		safe, eff := Sed(c.script)
		assert.Equal(t, c.safe, safe, "%q", c.script)
		assert.Equal(t, c.eff, eff, "%q", c.script)
	}
}

// FuzzSed: Sed never panics, a safe script has no effects, and every
// effect is text of the script.
func FuzzSed(f *testing.F) {
	for _, s := range []string{"s/a/b/g", "1e id", "/x/{w out\n}", "\\%x%r f", "s/x/y/w o;p", "y/ab/cd/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, script string) {
		safe, eff := Sed(script)
		if safe && (len(eff.Runs)+len(eff.Writes)+len(eff.Reads) > 0) {
			t.Fatalf("Sed(%q) is safe with effects %+v", script, eff)
		}
		for _, e := range [][]string{eff.Runs, eff.Writes, eff.Reads} {
			for _, x := range e {
				if !strings.Contains(script, x) {
					t.Fatalf("Sed(%q): effect %q is not in the script", script, x)
				}
			}
		}
	})
}
