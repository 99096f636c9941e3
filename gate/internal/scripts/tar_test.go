package scripts

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// readTar reads a tar command line written as one string; a word starting
// with $ is known only at run time.
func readTar(line string) Tar {
	w := strings.Fields(line)
	return ReadTar(len(w), func(i int) (string, bool) { return w[i], strings.Contains(w[i], "$") })
}

func TestReadTar(t *testing.T) {
	f := func(at int, val string) TarValue { return TarValue{Letter: 'f', At: at, Val: val} }
	cases := []struct {
		line string
		want Tar
	}{
		{"czf a.tgz src", Tar{Letters: "czf", Values: []TarValue{f(1, "a.tgz")}, Operands: []int{2}}},
		// old style: the values follow the bundle, in the letters' order
		{"cfC a.tar /tmp x", Tar{Letters: "cfC", Values: []TarValue{f(1, "a.tar"), {Letter: 'C', At: 2, Val: "/tmp"}}, Operands: []int{3}}},
		{"-xf a.tar -C out", Tar{Letters: "xfC", Values: []TarValue{f(1, "a.tar"), {Letter: 'C', At: 3, Val: "out"}}}},
		{"-cfa.tar x", Tar{Letters: "cf", Values: []TarValue{{Letter: 'f', At: 0, Attached: true, Val: "a.tar"}}, Operands: []int{1}}},
		{"-cf - .", Tar{Letters: "cf", Values: []TarValue{f(1, "-")}, Operands: []int{2}, ToStdout: true}},
		{"-c src", Tar{Letters: "c", Operands: []int{1}, ToStdout: true}},
		{"-t", Tar{Letters: "t"}},
		// long options: an exact name, or one an abbreviation begins alone;
		// --fil begins --file and --files-from (tar: "ambiguous"), and
		// --list is not --listed-incremental; --exclude's value is a pattern
		{"--fil=a.tar -c x", Tar{Letters: "c", Operands: []int{2}, ToStdout: true, Unknown: []string{"--fil=a.tar"}}},
		{"--fi=a.tar -c x", Tar{Letters: "c", Operands: []int{2}, ToStdout: true, Unknown: []string{"--fi=a.tar"}}},
		{"--list -f a.tar", Tar{Letters: "f", Values: []TarValue{f(2, "a.tar")}}},
		{"--listed s.db -cf x.tar", Tar{Letters: "cf", Values: []TarValue{{Letter: 'g', At: 1, Val: "s.db"}, f(3, "x.tar")}}},
		// short letters tar has not (GNU tar's and bsdtar's)
		{"-tQf a.tar", Tar{Letters: "tQf", Values: []TarValue{f(1, "a.tar")}, Unknown: []string{"-Q"}}},
		{"tvfE a.tar", Tar{Letters: "tvfE", Values: []TarValue{f(1, "a.tar")}, Unknown: []string{"-E"}}},
		{"--files-from list -c", Tar{Letters: "c", Values: []TarValue{{Letter: 'T', At: 1, Val: "list"}}}},
		{"--exclude .env -cf x.tar .", Tar{Letters: "cf", Values: []TarValue{{Letter: '!', At: 1, Val: ".env"}, f(3, "x.tar")}, Operands: []int{4}}},
		{"--file", Tar{Values: []TarValue{{Letter: 'f', At: 0, Attached: true}}}},
		// files tar writes beside its archive: --index-file and --volno-file
		// ('>'), the -g snapshot ('g')
		{"-tf a.tar --index-file=out --volno-fi v", Tar{Letters: "tf", Values: []TarValue{f(1, "a.tar"),
			{Letter: '>', At: 2, Attached: true, Val: "out"}, {Letter: '>', At: 4, Val: "v"}}}},
		{"-cf x.tar --listed s.db -gt.db src", Tar{Letters: "cfg", Values: []TarValue{f(1, "x.tar"),
			{Letter: 'g', At: 3, Val: "s.db"}, {Letter: 'g', At: 4, Attached: true, Val: "t.db"}}, Operands: []int{5}}},
		// commands: the value, or the next word; exec= is dropped
		{"-cf x.tar --to-command=sh .", Tar{Letters: "cf", Values: []TarValue{f(1, "x.tar")}, Operands: []int{3}, Runs: []string{"sh"}}},
		{"-c --checkpoint-action exec=id .", Tar{Letters: "c", Operands: []int{2, 3}, Runs: []string{"id"}, ToStdout: true}},
		{"--use-compress-program=zstd -cf x .", Tar{Letters: "cf", Values: []TarValue{{Letter: 'I', At: 0, Attached: true, Val: "zstd"}, f(2, "x")},
			Operands: []int{3}, Runs: []string{"zstd"}}},
		// -- ends the options; a word known at run time is an operand
		{"-cf x -- -v", Tar{Letters: "cf", Values: []TarValue{f(1, "x")}, Operands: []int{3}}},
		{"$OPTS x", Tar{Operands: []int{0, 1}, ToStdout: true}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, readTar(c.line), c.line)
	}
}

// FuzzTar: ReadTar never panics, its indexes are in range, an operand is
// no option's value, and an unattached value is its word.
func FuzzTar(f *testing.F) {
	for _, s := range []string{"czf a.tgz src", "-xf a.tar -C /", "--fil=x -c --to-command=sh .", "-cf - -- -v", "cfT a list $X"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		w := strings.Fields(line)
		x := readTar(line)
		values := map[int]bool{}
		for _, v := range x.Values {
			if v.At < 0 || v.At >= len(w) || !v.Attached && v.Val != w[v.At] {
				t.Fatalf("%q: value %+v", line, v)
			}
			values[v.At] = values[v.At] || !v.Attached
		}
		for _, o := range x.Operands {
			if o < 0 || o >= len(w) || values[o] {
				t.Fatalf("%q: operand %d (values %v)", line, o, x.Values)
			}
		}
	})
}

// TestTarUnknownOptions: a long option neither GNU tar nor bsdtar has is
// reported; a unique prefix of one they have is not.
func TestTarUnknownOptions(t *testing.T) {
	for line, want := range map[string][]string{
		"-tf a.tar --zz-bogus":           {"--zz-bogus"},
		"-tf a.tar --wildcards '*.go'":   nil,
		"--list --file=a.tar --no-recur": nil,
		"-tf a.tar --include '*.c'":      nil,           // bsdtar
		"-tf a.tar --exclu=x":            {"--exclu=x"}, // tar: ambiguous (--exclude, --exclude-from, …)
		"-tf a.tar --to-stdouts":         {"--to-stdouts"},
	} {
		assert.Equal(t, want, readTar(line).Unknown, line)
	}
}
