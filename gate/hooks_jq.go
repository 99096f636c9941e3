package gate

import (
	"slices"
	"strings"

	"github.com/perm-peer/perm-peer/gate/internal/scripts"
)

// jq analyses jq, gojq and yq (yq: the entry's hook is "yq"): the filter by scripts.JqUnknownCalls (a
// filter is known-safe only when every function it calls is a pure
// builtin or its own, SPEC §5.1), the files it loads, reads or edits;
// taint when it prints the environment.
func (fl *factLog) jq(f *rfact, idx int, yq bool, lb string, args []word, sc *scope) (taint bool) {
	// --arg NAME VALUE and its kin take two words: they are dropped
	// here, so that the filter is the first operand left (after --, jq
	// takes "--arg" for the filter and refuses it)
	var rest []word
	splits := false
	for i := 0; i < len(args); i++ {
		switch v := args[i].val; {
		case yq && (v == "-s" || v == "--split-exp" || strings.HasPrefix(v, "--split-exp=")):
			// yq -s EXPR writes one file per document, named by EXPR
			exp := strings.TrimPrefix(v, "--split-exp=")
			if exp == v && i+1 < len(args) {
				i++
				exp = args[i].val
			}
			f.ask = reason("ask.flag", "yq -s writes files named by an expression")
			fl.writeFact(pathRef{raw: exp}, idx)
			for _, l := range codeLiterals(exp, false) {
				fl.writeWord(word{val: l + ".yml"}, sc, idx)
			}
			splits = true
		case v == "--arg" || v == "--argjson" || v == "--slurpfile" || v == "--rawfile":
			if (v == "--slurpfile" || v == "--rawfile") && i+2 < len(args) {
				fl.readWord(args[i+2], sc, idx, false)
			}
			i += 2
		default:
			rest = append(rest, args[i])
		}
	}
	args = rest
	if yq && len(args) > 0 {
		// yq e|eval|ea|eval-all FILTER FILE...: the filter follows the subcommand
		switch args[0].val {
		case "e", "eval", "ea", "eval-all":
			args = args[1:]
		}
	}
	ops := operands(args, jqValueFlags)
	fromFile := hasFlag(args, "-f", "--from-file")
	var exprs []word // yq --expression EXPR: every operand is a file
	if yq {
		exprs = optionValues(args, 0, "--expression")
	}
	reads := false
	filter := func(w word) {
		unknown, envVar := scripts.JqUnknownCalls(w.val)
		reads = reads || w.dyn || len(unknown) > 0 || envVar
		if envVar || slices.ContainsFunc(unknown, func(c string) bool { return c == "env" || c == "strenv" || c == "envsubst" }) {
			f.human = reason("human.env-dump", lb+" filter reads the environment")
			taint = true
		}
		if slices.Contains(unknown, "eval") {
			// yq's eval() runs an expression the filter builds
			f.human = reason("human.eval-opaque", lb+" eval() of an expression built at run time")
		}
		// load("f"), load_props("f"), strload("f"): file reads by name
		for _, name := range scripts.JqLoads(w.val) {
			fl.readFact(fl.resolvePath(name, sc.cwd, false), idx, false)
		}
		if scripts.JqImports(w.val) {
			reads = true
			for _, p := range jqModulePaths(args, w.val) {
				fl.readFact(fl.resolvePath(p, sc.cwd, false), idx, false)
			}
		}
	}
	for _, w := range exprs {
		filter(w)
	}
	for n, i := range ops {
		switch {
		case n > 0 || fromFile || len(exprs) > 0:
			fl.readWord(args[i], sc, idx, false)
		case yq && !args[i].dyn && scripts.YqDataFile(args[i].val):
			// yq f.yml: a first operand that is an existing file is a
			// file, the filter "."; one that is not is an unknown
			// operator, which yq refuses
			fl.readWord(args[i], sc, idx, false)
		default:
			filter(args[i])
		}
	}
	if reads || fromFile {
		f.ask = reason("ask.flag", lb+" filter reads the environment or files")
	} else if yq && hasShort(args, "i") || hasFlag(args, "--inplace", "--in-place") {
		f.ask = reason("ask.flag", lb+" -i edits files in place")
		for _, i := range ops[min(1, len(ops)):] {
			fl.writeFact(fl.pathWord(args[i], sc, true), -1)
		}
	} else if !splits {
		f.safe = reason("gate.safe", lb+" only reads")
	}
	return taint
}

// jqValueFlags are the jq and yq flags that take a value (jq's --arg and
// kin take two words and are dropped before).
var jqValueFlags = map[string]bool{"--indent": true, "-L": true, "-o": true, "--output-format": true, "-p": true,
	"--input-format": true, "-I": true, "--expression": true, "--xml-attribute-prefix": true, "--xml-content-name": true,
	"--csv-separator": true, "--properties-separator": true}

// jqModulePaths are the files a jq filter's import/include directives
// load (scripts.JqModulePaths), with the -L directories as its library.
func jqModulePaths(args []word, filter string) []string {
	var dirs []string
	for _, w := range optionValues(args, 'L', "--library-path") {
		dirs = append(dirs, w.val)
	}
	return scripts.JqModulePaths(dirs, filter)
}
