package argv

import (
	"reflect"
	"strings"
	"testing"
)

var sortLike = &Command{Name: "sort", Abbrev: true, Flags: []Flag{
	{Names: "-u --unique -r --reverse -n", Arity: None},
	{Names: "-o --output -t --field-separator -k --key", Arity: Value},
	{Names: "--color", Arity: Optional},
}}

// TestSpellingsAgree checks that every spelling of a flag and its value
// gives the same operands and unknown flags.
func TestSpellingsAgree(t *testing.T) {
	groups := [][]string{
		{"-o out in", "-oout in", "--output out in", "--output=out in", "--outp=out in", "--outp out in"},
		{"-u -r -n in", "-urn in", "-ur -n in", "--unique --reverse -n in", "--uniq --rev -n in"},
		{"-uo out in", "-u -o out in", "-u -oout in", "--unique --output=out in"},
		{"-t: -k2 in", "-t : -k 2 in", "--field-separator=: --key=2 in"},
		{"--color in", "--color=auto in", "--col=auto in"},
	}
	for _, g := range groups {
		want := sortLike.Parse(strings.Fields(g[0]), nil)
		for _, s := range g[1:] {
			got := sortLike.Parse(strings.Fields(s), nil)
			// operand indexes differ with the word count: compare the words
			if !reflect.DeepEqual(words(g[0], want.Operands), words(s, got.Operands)) || !reflect.DeepEqual(want.Unknown, got.Unknown) {
				t.Errorf("%q: %v %v; %q: %v %v", g[0], words(g[0], want.Operands), want.Unknown, s, words(s, got.Operands), got.Unknown)
			}
		}
	}
}

func words(s string, idx []int) []string {
	f := strings.Fields(s)
	var out []string
	for _, i := range idx {
		out = append(out, f[i])
	}
	return out
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		args     string
		operands []string
		unknown  []string
	}{
		{"-x in", []string{"in"}, []string{"-x"}},
		{"-ux in", []string{"in"}, []string{"-x"}},
		{"--bogus in", []string{"in"}, []string{"--bogus"}},
		{"--unique=1 in", []string{"in"}, []string{"--unique=1"}}, // a switch given a value
		{"--re in", []string{"in"}, nil},                          // unique prefix of --reverse
		{"-- -o x", []string{"-o", "x"}, nil},
		{"- in", []string{"-", "in"}, nil},
		{"-o", nil, nil},
	} {
		inv := sortLike.Parse(strings.Fields(c.args), nil)
		if !reflect.DeepEqual(words(c.args, inv.Operands), c.operands) || !reflect.DeepEqual(inv.Unknown, c.unknown) {
			t.Errorf("%q: operands %v unknown %v, want %v %v", c.args, words(c.args, inv.Operands), inv.Unknown, c.operands, c.unknown)
		}
	}
	// ambiguous prefix: --o is --output only, but a table with --outline too refuses it
	amb := &Command{Abbrev: true, Flags: []Flag{{Names: "--output", Arity: None}, {Names: "--outline", Arity: None},
		{Names: "--color --colour", Arity: Optional}}}
	if inv := amb.Parse([]string{"--out"}, nil); len(inv.Unknown) != 1 {
		t.Errorf("ambiguous prefix accepted: %v", inv)
	}
	// a prefix of two spellings of one flag is that flag, as getopt_long has it
	if inv := amb.Parse([]string{"--col=auto"}, nil); len(inv.Unknown) != 0 || !inv.Has("--color") || inv.Uses[0].Value != "auto" {
		t.Errorf("--col=auto: %+v", inv)
	}
	// a word known only at run time is an operand, unless it starts with
	// a written dash: -o$X is -o whatever $X holds
	if inv := sortLike.Parse([]string{"$X"}, []bool{true}); len(inv.Unknown) != 0 || len(inv.Operands) != 1 {
		t.Errorf("dynamic word: %v", inv)
	}
	if inv := sortLike.Parse([]string{"-o$X", "in"}, []bool{true}); !inv.Has("-o") || inv.Uses[0].Value != "$X" || len(inv.Operands) != 1 {
		t.Errorf("dynamic flag: %+v", inv)
	}
	// values: next word, attached, in a cluster, abbreviated
	for _, c := range []struct {
		args   string
		at, va int
		value  string
	}{{"-o out in", 0, 1, "out"}, {"-uoout in", 0, 0, "out"}, {"--outp=x in", 0, 0, "x"}, {"in --output y", 1, 2, "y"}, {"-o", 0, -1, ""}} {
		inv := sortLike.Parse(strings.Fields(c.args), nil)
		var u *Use
		for i := range inv.Uses {
			if inv.Uses[i].Flag.Arity == Value {
				u = &inv.Uses[i]
			}
		}
		if u == nil || u.At != c.at || u.ValAt != c.va || u.Value != c.value {
			t.Errorf("%q: value use %+v, want at %d value at %d %q", c.args, u, c.at, c.va, c.value)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("-uo out --key=2 -- x", "-z")
	f.Add("--outp", "-")
	f.Fuzz(func(t *testing.T, args, extra string) {
		w := append(strings.Fields(args), extra)
		inv := sortLike.Parse(w, []bool{len(extra)%2 == 0})
		for _, i := range inv.Operands {
			if i < 0 || i >= len(w) {
				t.Fatalf("operand index %d out of range", i)
			}
		}
	})
}

// TestFlagsFound checks that a flag is found by its full name in every
// spelling: bundled, attached, abbreviated.
func TestFlagsFound(t *testing.T) {
	for _, c := range []struct {
		args string
		has  string
		want bool
	}{
		{"-urn in", "-n", true},
		{"-uoout in", "--output", false}, // found as -o: names are per spelling
		{"-uoout in", "-o", true},
		{"-uon in", "-n", false}, // n is -o's value
		{"--outp=x in", "--output", true},
		{"--rev in", "--reverse", true},
		{"-z in", "-z", false}, // unknown
	} {
		if got := sortLike.Parse(strings.Fields(c.args), nil).Has(c.has); got != c.want {
			t.Errorf("%q has %s: %v, want %v", c.args, c.has, got, c.want)
		}
	}
}

// TestEachSplitsAsWritten: a table's Each entry parses exactly as the
// flags it lists, each its own flag with its own spellings.
func TestEachSplitsAsWritten(t *testing.T) {
	each := &Command{Name: "x", Abbrev: true, Flags: []Flag{
		{Names: "-q --quiet|--silent -v", Arity: None, Each: true},
		{Names: "-n --lines", Arity: Value, Each: true},
		{Names: "-o", Arity: Value, Role: Write},
	}}
	split := &Command{Name: "x", Abbrev: true, Flags: []Flag{
		{Names: "-q", Arity: None}, {Names: "--quiet --silent", Arity: None}, {Names: "-v", Arity: None},
		{Names: "-n", Arity: Value}, {Names: "--lines", Arity: Value},
		{Names: "-o", Arity: Value, Role: Write},
	}}
	for _, args := range [][]string{{"-qv", "f"}, {"--si", "f"}, {"-n", "5", "f"}, {"--lines=5"}, {"-vn5"}, {"-o", "out"}, {"--qu", "-x"}} {
		a, b := each.Parse(args, nil), split.Parse(args, nil)
		if !reflect.DeepEqual(a.Operands, b.Operands) || !reflect.DeepEqual(a.Unknown, b.Unknown) || len(a.Uses) != len(b.Uses) {
			t.Errorf("%q: Each parsed %+v, split %+v", args, a, b)
			continue
		}
		for i := range a.Uses {
			ua, ub := a.Uses[i], b.Uses[i]
			if ua.Name != ub.Name || ua.At != ub.At || ua.Flag.Names != ub.Flag.Names || ua.Flag.Role != ub.Flag.Role || ua.Flag.Each {
				t.Errorf("%q: use %d: Each %+v (%+v), split %+v (%+v)", args, i, ua, *ua.Flag, ub, *ub.Flag)
			}
		}
	}
}

// TestValued checks a declaration of the options that take a value only
// (Unknown: Skip): any other is a switch, read on in its cluster, and the
// first operand is where a wrapper's command starts.
func TestValued(t *testing.T) {
	sudo := Valued("ug", "--user")
	for _, c := range []struct {
		args  string
		first int
	}{
		{"-u root ls", 2},
		{"-Eu root ls", 2}, // -E a switch, then -u's value
		{"-uroot ls", 1},   // attached
		{"-Eiuroot ls", 1}, // the rest of the cluster is -u's
		{"--user root ls", 2},
		{"--user=root ls", 1},
		{"--us root ls", 1}, // no abbreviation: --us is a switch
		{"--preserve-env ls", 1},
		{"-5 ls", 1},
		{"-- -u ls", 1},
		{"-u", -1},
		{"- ls", 0},
	} {
		args := strings.Fields(c.args)
		if got := sudo.FirstOperand(len(args), func(i int) (string, bool) { return args[i], false }); got != c.first {
			t.Errorf("%q: first operand %d, want %d", c.args, got, c.first)
		}
	}
	if u := sudo.FirstUnknown(2, func(i int) (string, bool) { return []string{"-E", "ls"}[i], false }); u != "" {
		t.Errorf("FirstUnknown of a Skip declaration: %q, want none", u)
	}
	words := strings.Fields("-E a -- b c")
	if e := sudo.End(len(words), func(i int) (string, bool) { return words[i], false }); e != 3 {
		t.Errorf("-E a -- b c: End %d, want 3", e)
	}
	inv := sudo.Parse(words, nil)
	if inv.Ended != 3 || !reflect.DeepEqual(inv.Operands, []int{1, 3, 4}) || !reflect.DeepEqual(inv.Unknown, []string{"-E"}) {
		t.Errorf("-E a -- b c: %+v, want operands [1 3 4], ended 3, unknown [-E]", inv)
	}
}

// A BSD-style letter (a name without a dash) is found in the operand words
// that hold it, never in a flag's value, and the word stays an operand.
func TestBSDLetters(t *testing.T) {
	ps := &Command{Name: "ps", Flags: []Flag{{Names: "-o -p", Arity: Value}, {Names: "e -E", Effect: ShowsEnv}}}
	for _, c := range []struct {
		args     string
		found    []string
		operands []string
	}{
		{"eww -p 1", []string{"e"}, []string{"eww"}},
		{"aux", nil, []string{"aux"}},
		{"-o user", nil, nil},
		{"-E", []string{"-E"}, nil},
		{"-p 1 -- e", []string{"e"}, []string{"e"}},
	} {
		inv := ps.Parse(strings.Fields(c.args), nil)
		var found []string
		for _, u := range inv.Uses {
			if u.Flag.Effect == ShowsEnv {
				found = append(found, u.Name)
			}
		}
		if !reflect.DeepEqual(found, c.found) || !reflect.DeepEqual(words(c.args, inv.Operands), c.operands) {
			t.Errorf("%q: found %v operands %v, want %v %v", c.args, found, words(c.args, inv.Operands), c.found, c.operands)
		}
	}
}

// TestGoFlags checks Go's flag syntax: one or two dashes, =value or the
// next word, no clusters, a switch given a value, "--" read past.
func TestGoFlags(t *testing.T) {
	goLike := &Command{GoFlags: true, Flags: []Flag{{Names: "-o -exec", Arity: Value, Each: true}, {Names: "-v"}}}
	for _, c := range []struct {
		args, want string
	}{
		{"build -o bin .", "-o=bin"},
		{"build --o=bin .", "-o=bin"},
		{"test -v=true -exec 'x y' ./...", "-v=true -exec='x y'"},
		{"run m.go -- -o out", "-o=out"},
		{"build -ov bin", ""}, // no cluster: -ov is unknown
	} {
		args := strings.Fields(strings.ReplaceAll(c.args, "'x y'", "'x_y'"))
		var got []string
		for _, u := range goLike.Parse(args, nil).Uses {
			if u.ValAt < 0 {
				got = append(got, u.Name+"=")
				continue
			}
			got = append(got, u.Name+"="+strings.ReplaceAll(u.Value, "'x_y'", "'x y'"))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("%q: %q, want %q", c.args, strings.Join(got, " "), c.want)
		}
	}
}

// TestLeadFlag checks that a LeadFlag declaration reads flags in the
// first word only (kill's signal): the words after are operands, the
// value of the first word's flag is not.
func TestLeadFlag(t *testing.T) {
	kill := &Command{Name: "kill", Numeric: true, LeadFlag: true, Flags: []Flag{
		{Names: "-l --list", Arity: None},
		{Names: "-s --signal", Arity: Value},
	}}
	for args, want := range map[string][]string{
		"-9 -1":            {"-1"},
		"-TERM -1 2":       {"-1", "2"},
		"-s KILL -1":       {"-1"},
		"--signal=KILL -1": {"-1"},
		"-sKILL -1":        {"-1"},
		"-- -1":            {"-1"},
		"-9 -- -1":         {"--", "-1"},
		"123 -1":           {"123", "-1"},
		"-1":               nil,
		"-s -1 123":        {"123"},
	} {
		inv := kill.Parse(strings.Fields(args), nil)
		if got := words(args, inv.Operands); !reflect.DeepEqual(got, want) {
			t.Errorf("kill %s: operands %q, want %q", args, got, want)
		}
		if first := kill.FirstOperand(len(strings.Fields(args)), func(i int) (string, bool) { return strings.Fields(args)[i], false }); len(want) > 0 && first < 0 {
			t.Errorf("kill %s: FirstOperand found none", args)
		}
	}
}

// TestRunTimeOperands checks that a RunTimeOperands declaration reads a
// run-time word as an operand even when it starts with a dash, and one
// without reads it as a flag.
func TestRunTimeOperands(t *testing.T) {
	args, dyn := []string{"-$X", "f"}, []bool{true, false}
	sed := &Command{Name: "sed", RunTimeOperands: true, Flags: []Flag{{Names: "-n", Arity: None}}}
	if got := sed.Parse(args, dyn).Operands; !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("RunTimeOperands: operands %v, want [0 1]", got)
	}
	sed.RunTimeOperands = false
	if got := (&Command{Name: "sed", Flags: sed.Flags}).Parse(args, dyn).Operands; !reflect.DeepEqual(got, []int{1}) {
		t.Errorf("without: operands %v, want [1]", got)
	}
}

// TestDigitsAndEnds checks a Digits flag's value (the digits after it, the
// cluster read on) and a flag that ends the flags (python -c CODE ARGS).
func TestDigitsAndEnds(t *testing.T) {
	perl := &Command{Name: "perl", StopAtOperand: true, ReadOn: true, Flags: []Flag{
		{Names: "-l -0", Arity: Digits, Each: true}, {Names: "-e", Arity: Value}, {Names: "-n", Arity: None}}}
	inv := perl.Parse(strings.Fields("-l0ne print f"), nil)
	var got []string
	for _, u := range inv.Uses {
		got = append(got, u.Name+"="+u.Value)
	}
	if want := []string{"-l=0", "-n=", "-e=print"}; !reflect.DeepEqual(got, want) || !reflect.DeepEqual(inv.Operands, []int{2}) {
		t.Errorf("perl -l0ne print f: %v %v, want %v [2]", got, inv.Operands, want)
	}
	if u := perl.Parse([]string{"-0x1F"}, nil).Uses; len(u) != 1 || u[0].Value != "x1" {
		t.Errorf("perl -0x1F: %v, want -0 with x1 (then F)", u)
	}
	python := &Command{Name: "python", StopAtOperand: true, Flags: []Flag{{Names: "-c", Arity: Value, Ends: true}, {Names: "-u", Arity: None}}}
	for args, want := range map[string][]int{"-c CODE -u x": {2, 3}, "-cCODE -u": {1}, "-uc CODE": nil, "-u -c": nil} {
		w := strings.Fields(args)
		if got := python.Parse(w, nil).Operands; !reflect.DeepEqual(got, want) {
			t.Errorf("python %s: operands %v, want %v", args, got, want)
		}
		first := python.FirstOperand(len(w), func(i int) (string, bool) { return w[i], false })
		if (len(want) == 0 && first != -1) || (len(want) > 0 && first != want[0]) {
			t.Errorf("python %s: first operand %d, want %v", args, first, want)
		}
	}
}
