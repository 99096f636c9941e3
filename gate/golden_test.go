package gate_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"github.com/perm-peer/perm-peer/gate"
	"github.com/perm-peer/perm-peer/gate/corpus"
	"github.com/perm-peer/perm-peer/protocol"
)

// The verdict goldens lock the gate's whole answer (facts, reasons, risk,
// humanOnly, decidedBy, action, resources and the "always" offer) for every
// corpus row, every fuzz seed and generated spelling variants of the
// corpus commands that have flags. The corpus checks only decision and
// humanOnly; these catch any drift while the gate is restructured.
// Regenerate with: go test ./gate/ -run TestVerdictGolden -update

var update = flag.Bool("update", false, "rewrite gate/testdata/verdicts.golden.jsonl from the code as it is")

const goldenFile = "testdata/verdicts.golden.jsonl"

// goldenCase is one call and the world it is judged in.
type goldenCase struct {
	id   string
	call protocol.ToolCall
	env  gate.Env
}

// goldenLine is one line of the golden file.
type goldenLine struct {
	ID      string          `json:"id"`
	Input   json.RawMessage `json:"input"`
	Verdict goldenVerdict   `json:"verdict"`
}

type goldenVerdict struct {
	Decision  protocol.Decision  `json:"decision"`
	Risk      protocol.Risk      `json:"risk"`
	HumanOnly bool               `json:"humanOnly"`
	DecidedBy protocol.DecidedBy `json:"decidedBy"`
	Reasons   []protocol.Reason  `json:"reasons"`
	Facts     []protocol.Fact    `json:"facts"`
	// FactsDigest stands for facts too big to keep as text
	FactsDigest string       `json:"factsDigest,omitempty"`
	Action      string       `json:"action"`
	Resources   []string     `json:"resources"`
	Always      *gate.Always `json:"always"`
}

func TestVerdictGolden(t *testing.T) {
	cases := goldenCases(t)
	got := make(map[string]string, len(cases))
	var out bytes.Buffer
	for _, c := range cases {
		line, err := goldenOf(c)
		if err != nil {
			t.Fatal(err)
		}
		got[c.id] = string(line)
		out.Write(line)
		out.WriteByte('\n')
	}
	if *update {
		if err := os.WriteFile(goldenFile, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %d verdicts to %s", len(cases), goldenFile)
		return
	}
	want := readGolden(t)
	var diffs []string
	for _, c := range cases {
		switch w, ok := want[c.id]; {
		case !ok:
			diffs = append(diffs, "new case (not in the golden): "+got[c.id])
		case w != got[c.id]:
			diffs = append(diffs, fmt.Sprintf("%s\n  want %s\n  got  %s", c.id, w, got[c.id]))
		}
		delete(want, c.id)
	}
	for id := range want {
		diffs = append(diffs, "case gone from the inputs: "+id)
	}
	sort.Strings(diffs)
	for i, d := range diffs {
		if i == 40 {
			t.Errorf("… and %d more", len(diffs)-40)
			break
		}
		t.Error(d)
	}
	if len(diffs) > 0 {
		t.Errorf("%d of %d verdicts differ from %s; explain each in the commit and run with -update", len(diffs), len(cases), goldenFile)
	}
}

// Past these sizes the golden holds a digest, not the text: fork bombs
// and parse-limit rows have hundreds of kilobytes of facts.
const (
	maxGoldenInput = 4 << 10
	maxGoldenFacts = 16 << 10
)

// goldenOf is the golden line of one case.
func goldenOf(c goldenCase) ([]byte, error) {
	v := gate.Analyze(c.call, c.env)
	l := goldenLine{ID: c.id, Input: c.call.RawInput, Verdict: goldenVerdict{
		Decision: v.Decision, Risk: v.Risk, HumanOnly: v.HumanOnly, DecidedBy: v.DecidedBy, Reasons: v.Reasons,
		Facts: v.Facts, Action: v.Action, Resources: v.Resources, Always: v.Always}}
	if len(l.Input) > maxGoldenInput {
		l.Input, _ = json.Marshal(map[string]string{"sha256": digest(l.Input)})
	}
	if facts, err := json.Marshal(v.Facts); err != nil {
		return nil, err
	} else if len(facts) > maxGoldenFacts {
		l.Verdict.Facts = nil
		l.Verdict.FactsDigest = fmt.Sprintf("%d facts, sha256 %s", len(v.Facts), digest(facts))
	}
	if len(l.Verdict.Action) > maxGoldenInput {
		l.Verdict.Action = "sha256 " + digest([]byte(v.Action))
	}
	return json.Marshal(l)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func readGolden(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open(goldenFile)
	if err != nil {
		t.Fatalf("%v (run go test ./gate/ -run TestVerdictGolden -update)", err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	for sc.Scan() {
		var l struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s: %v", goldenFile, err)
		}
		m[l.ID] = sc.Text()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// goldenCases are the corpus rows, their spelling variants and the fuzz
// seeds, in a fixed order.
func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	f, err := os.Open("../testdata/corpus/gate.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := corpus.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, row := range rows {
		env, err := row.Env()
		if err != nil {
			t.Fatalf("%s: %v", row.ID, err)
		}
		cases = append(cases, goldenCase{row.ID, row.ToolCall, env})
		for i, call := range spellingCalls(row.ToolCall) {
			cases = append(cases, goldenCase{fmt.Sprintf("%s~s%d", row.ID, i+1), call, env})
		}
	}
	for i, in := range seedInputs(t) {
		cases = append(cases, goldenCase{fmt.Sprintf("fuzz-%d", i+1), bashCall(in.Cmd), gate.SeedEnv},
			goldenCase{fmt.Sprintf("fuzz-%d-line", i+1), bashCall(gate.SeedLine(in)), gate.SeedEnv})
	}
	return cases
}

func bashCall(cmd string) protocol.ToolCall {
	raw, _ := json.Marshal(map[string]string{"command": cmd})
	return protocol.ToolCall{Tool: "bash", Kind: protocol.KindExecute, RawInput: raw}
}

// seedInputs are FuzzAnalyze's seeds in code and in testdata/fuzz.
func seedInputs(t *testing.T) []gate.SeedInput {
	t.Helper()
	in := gate.SeedInputs()
	files, err := filepath.Glob("testdata/fuzz/FuzzAnalyze/*")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		s, err := parseSeed(string(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		in = append(in, s)
	}
	return in
}

// parseSeed reads a "go test fuzz v1" file of FuzzAnalyze's five values.
func parseSeed(text string) (gate.SeedInput, error) {
	var s gate.SeedInput
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 6 || lines[0] != "go test fuzz v1" {
		return s, fmt.Errorf("not a FuzzAnalyze seed")
	}
	cmd, ok := strings.CutPrefix(lines[1], "string(")
	if !ok {
		return s, fmt.Errorf("line 2 is not a string")
	}
	cmd, err := strconv.Unquote(strings.TrimSuffix(cmd, ")"))
	if err != nil {
		return s, err
	}
	s.Cmd = cmd
	var bs [4]uint8
	for i, l := range lines[2:] {
		switch {
		case strings.HasPrefix(l, "byte("):
			c, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(l, "byte("), ")"))
			if err != nil || len(c) != 1 {
				return s, fmt.Errorf("line %d: %q", i+3, l)
			}
			bs[i] = c[0]
		case strings.HasPrefix(l, "uint8("):
			n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(l, "uint8("), ")"), 0, 8)
			if err != nil {
				return s, fmt.Errorf("line %d: %w", i+3, err)
			}
			bs[i] = uint8(n)
		default:
			return s, fmt.Errorf("line %d: %q", i+3, l)
		}
	}
	s.W1, s.W2, s.Fl, s.Gl = bs[0], bs[1], bs[2], bs[3]
	return s, nil
}

// maxSpellings bounds the variants of one command.
const maxSpellings = 12

// spellingCalls are a bash call with its flags spelled other ways.
func spellingCalls(call protocol.ToolCall) []protocol.ToolCall {
	var in map[string]any
	if json.Unmarshal(call.RawInput, &in) != nil {
		return nil
	}
	cmd, ok := in["command"].(string)
	if !ok {
		return nil
	}
	var out []protocol.ToolCall
	for _, v := range spellings(cmd) {
		in["command"] = v
		raw, err := json.Marshal(in)
		if err != nil {
			continue
		}
		c := call
		c.RawInput = raw
		out = append(out, c)
	}
	return out
}

// spellings rewrites one flag of cmd at a time: --x=V as --x V and back,
// -abc as -a -b -c and as -a bc, -o V as -oV, a long flag cut to a prefix.
// What the gate makes of each is what the golden records: a variant need
// not mean the same as the original (--color auto is not --color=auto).
func spellings(cmd string) []string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return nil
	}
	seen := map[string]bool{cmd: true}
	var out []string
	add := func(start, end uint, repl string) {
		v := cmd[:start] + repl + cmd[end:]
		if !seen[v] && len(out) < maxSpellings {
			seen[v] = true
			out = append(out, v)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		for i := 1; i < len(call.Args); i++ {
			w := call.Args[i]
			if w.Lit() == "" {
				continue
			}
			start, end := w.Pos().Offset(), w.End().Offset()
			raw := cmd[start:end]
			next := ""
			if i+1 < len(call.Args) && call.Args[i+1].Lit() != "" {
				next = cmd[call.Args[i+1].Pos().Offset():call.Args[i+1].End().Offset()]
			}
			nextEnd := end
			if next != "" {
				nextEnd = call.Args[i+1].End().Offset()
			}
			variantsOf(raw, next, func(repl string, both bool) {
				if both {
					add(start, nextEnd, repl)
				} else {
					add(start, end, repl)
				}
			})
		}
		return true
	})
	return out
}

// variantsOf calls emit with each other spelling of the flag raw (both:
// the spelling also replaces the next word).
func variantsOf(raw, next string, emit func(repl string, both bool)) {
	switch {
	case raw == "--" || raw == "-" || !strings.HasPrefix(raw, "-"):
	case strings.HasPrefix(raw, "--"):
		if name, val, ok := strings.Cut(raw, "="); ok {
			if val != "" {
				emit(name+" "+val, false)
			}
			if len(name) >= 8 {
				emit(name[:len(name)-2]+"="+val, false)
			}
			return
		}
		if len(raw) >= 8 {
			emit(raw[:len(raw)-2], false)
		}
		if next != "" && !strings.HasPrefix(next, "-") {
			emit(raw+"="+next, true)
		}
	case len(raw) == 2:
		if next != "" && !strings.HasPrefix(next, "-") {
			emit(raw+next, true)
		}
	case isLetters(raw[1:]):
		parts := make([]string, 0, len(raw)-1)
		for _, c := range raw[1:] {
			parts = append(parts, "-"+string(c))
		}
		emit(strings.Join(parts, " "), false)
		emit(raw[:2]+" "+raw[2:], false)
	}
}

func isLetters(s string) bool {
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}
