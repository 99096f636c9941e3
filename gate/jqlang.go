package gate

import (
	"path"
	"slices"
	"strings"
)

// jq and yq filters are a language of their own (SPEC §5.1): a filter is
// known-safe only when every function it calls is a pure builtin below or
// one it defines itself. A builtin missing here (yq's load_props, strload,
// eval; jq's input_filename, get_search_list; whatever a new release adds)
// makes the call ask instead of passing unseen.

// jq analyses jq, gojq and yq: the filter by jqUnknownCalls, the files it
// loads, reads or edits; taint when it prints the environment.
func (a *analyzer) jq(f *rfact, idx int, lb string, args []word, sc *scope) (taint bool) {
	yq := lb == "yq"
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
			a.writeFact(pathRef{raw: exp}, idx)
			for _, l := range codeLiterals(exp, false) {
				a.writeWord(word{val: l + ".yml"}, sc, idx)
			}
			splits = true
		case v == "--arg" || v == "--argjson" || v == "--slurpfile" || v == "--rawfile":
			if (v == "--slurpfile" || v == "--rawfile") && i+2 < len(args) {
				a.readWord(args[i+2], sc, idx, false)
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
		unknown, envVar := jqUnknownCalls(w.val)
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
		for _, m := range jqLoadRe().FindAllStringSubmatch(w.val, -1) {
			a.readFact(a.resolvePath(m[1], sc.cwd, false), idx, false)
		}
		if jqImportRe().MatchString(w.val) {
			reads = true
			for _, p := range jqModulePaths(args, w.val) {
				a.readFact(a.resolvePath(p, sc.cwd, false), idx, false)
			}
		}
	}
	for _, w := range exprs {
		filter(w)
	}
	for n, i := range ops {
		switch {
		case n > 0 || fromFile || len(exprs) > 0:
			a.readWord(args[i], sc, idx, false)
		case yq && !args[i].dyn && yqFileName().MatchString(args[i].val):
			// yq f.yml: a first operand that is an existing file is a
			// file, the filter "."; one that is not is an unknown
			// operator, which yq refuses
			a.readWord(args[i], sc, idx, false)
		default:
			filter(args[i])
		}
	}
	if reads || fromFile {
		f.ask = reason("ask.flag", lb+" filter reads the environment or files")
	} else if yq && hasShort(args, "i") || hasFlag(args, "--inplace", "--in-place") {
		f.ask = reason("ask.flag", lb+" -i edits files in place")
		for _, i := range ops[min(1, len(ops)):] {
			a.writeFact(a.pathWord(args[i], sc, true), -1)
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

// jqLoadRe finds yq's builtins that load a file named in the filter;
// yqFileName a yq first operand that names a data file.
var (
	yqFileName = lazyRE(`^[\w./-]+\.(?i:ya?ml|json|xml|toml|properties|csv|tsv|hcl|ini|tf)$`)
	jqLoadRe   = lazyRE(`\b(?:load|load_str|strload|load_props|load_xml|load_base64|load_yaml)\(\s*"([^"]+)"`)
	jqImportRe = lazyRE(`\b(?:import|include)\s+"([^"]*)"`)
	jqSearchRe = lazyRE(`\bsearch\s*:\s*"([^"]*)"`)
)

// jqModulePaths are the files a jq filter's import/include directives
// load: NAME.jq and NAME.json (import "x" as $d prints a JSON file) in
// each -L directory, a {search: DIR} of the directive, or jq's default
// ~/.jq.
func jqModulePaths(args []word, filter string) (paths []string) {
	var dirs []string
	for _, w := range optionValues(args, 'L', "--library-path") {
		dirs = append(dirs, w.val)
	}
	for _, m := range jqSearchRe().FindAllStringSubmatch(filter, 8) {
		dirs = append(dirs, m[1])
	}
	if len(dirs) == 0 {
		dirs = []string{"~/.jq"}
	}
	for _, m := range jqImportRe().FindAllStringSubmatch(filter, 8) {
		for _, d := range dirs[:min(len(dirs), 8)] {
			for _, ext := range []string{".jq", ".json"} {
				paths = append(paths, d+"/"+m[1]+ext, d+"/"+m[1]+"/"+path.Base(m[1])+ext)
			}
		}
	}
	return paths
}

// jqPure are the jq (1.7) and yq (v4) builtins and keywords that compute
// on their input alone: no environment, no files, no evaluation of a
// string. $__loc__ is the filter's own position.
var jqPure = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		if then elif else end as def reduce foreach try catch label break and or not
		true false null __loc__ import include
		length utf8bytelength keys keys_unsorted values has in inside map map_values path paths leaf_paths
		pick del delpaths getpath setpath to_entries from_entries with_entries select empty error halt halt_error
		recurse recurse_down add any all flatten range floor ceil round sqrt pow log log2 log10 exp exp2 exp10
		fabs abs trunc significand frexp modf ldexp logb gamma lgamma tgamma nearbyint rint drem scalb scalbln cbrt
		sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh fmin fmax fma fmod hypot
		infinite nan isinfinite isnan isnormal isvalid type tostring tonumber tojson fromjson toarray
		ascii ascii_downcase ascii_upcase implode explode ltrimstr rtrimstr trimstr trim ltrim rtrim
		startswith endswith test match capture scan split splits sub gsub join contains indices index rindex
		sort sort_by group_by min max min_by max_by unique unique_by reverse combinations walk transpose
		first last nth until while repeat limit skip isempty input inputs debug stderr input_line_number
		tostream fromstream truncate_stream getpath objects iterables booleans numbers strings nulls arrays
		scalars finites normals todate fromdate now mktime gmtime localtime strftime strptime strflocaltime
		date dateadd datesub todateiso8601 fromdateiso8601 dateiso8601 splits tojson ascii getpath
		INDEX IN GROUP_BY UNIQUE_BY ANY ALL have_literal_numbers have_decnum abs toarray getpath
		key parent parents kind tag style anchor alias explode line column document_index di file_index fi
		filename headComment lineComment footComment head_comment line_comment foot_comment split_doc splitDoc
		to_yaml to_json to_props to_xml to_csv to_tsv to_string to_number from_yaml from_json from_props
		from_xml from_csv from_tsv from_base64 to_base64 sort_keys omit any_c all_c upcase downcase
		shuffle entries array_to_map pivot is_key format_datetime with_dtf from_unix to_unix tz
		collect count ireduce union with`) {
		m[w] = true
	}
	return m
}()

// jqFormats are the @name string formats, all pure.
var jqFormats = map[string]bool{"@text": true, "@json": true, "@html": true, "@uri": true, "@urid": true, "@csv": true, "@tsv": true,
	"@sh": true, "@base64": true, "@base64d": true, "@base32": true, "@base32d": true, "@yaml": true, "@props": true, "@xml": true}

// jqUnknownCalls returns the names a jq or yq filter calls that are
// neither pure builtins nor defined in the filter, and whether it reads
// $ENV. Object keys ({name, version}, {a: 1}), fields (.env) and
// variables ($x) are not calls; code inside string interpolation is.
func jqUnknownCalls(filter string) (unknown []string, envVar bool) {
	defined := map[string]bool{}
	var calls []string
	var stack []byte  // open brackets: { [ (
	prev := byte('(') // the last significant character before a word
	s := filter
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		case c == '"':
			i = jqSkipString(s, i+1, func(code string) {
				u, e := jqUnknownCalls(code)
				calls, envVar = append(calls, u...), envVar || e
			})
			prev = '"'
			continue
		case c == '$' || c == '.' || c == '@':
			j := i + 1
			for j < len(s) && jqWordByte(s[j]) {
				j++
			}
			switch w := s[i+1 : j]; {
			case c == '$' && w == "ENV":
				envVar = true
			case c == '@' && w != "" && !jqFormats["@"+w]:
				calls = append(calls, "@"+w)
			}
			prev, i = 'w', max(j, i+1)
			continue
		case c >= '0' && c <= '9':
			for i < len(s) && (jqWordByte(s[i]) || s[i] == '.') {
				i++ // a number: 1, 1.5, 1e5
			}
			prev = 'w'
			continue
		case jqWordByte(c):
			j := i
			for j < len(s) && (jqWordByte(s[j]) || s[j] == ':' && j+1 < len(s) && s[j+1] == ':') {
				if s[j] == ':' {
					j++
				}
				j++
			}
			w := s[i:j]
			k := j
			for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
				k++
			}
			inObject := len(stack) > 0 && stack[len(stack)-1] == '{'
			isKey := inObject && (prev == '{' || prev == ',') && k < len(s) && (s[k] == ':' || s[k] == ',' || s[k] == '}')
			switch {
			case isKey:
			case w == "def":
				// def NAME(PARAMS): the name and its filter parameters
				// are the filter's own
				n := k
				for n < len(s) && jqWordByte(s[n]) {
					n++
				}
				defined[s[k:n]] = true
				if n < len(s) && s[n] == '(' {
					end := strings.IndexByte(s[n:], ')')
					if end > 0 {
						for _, p := range strings.FieldsFunc(s[n+1:n+end], func(r rune) bool { return r == ';' || r == ' ' || r == '$' }) {
							defined[p] = true
						}
					}
				}
			default:
				calls = append(calls, w)
			}
			prev, i = 'w', j
			continue
		case c == '{' || c == '[' || c == '(':
			stack = append(stack, c)
		case c == '}' || c == ']' || c == ')':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			prev = c
		}
		i++
	}
	for _, c := range calls {
		if strings.HasPrefix(c, "@") || !jqPure[c] && !defined[c] {
			unknown = append(unknown, c)
		}
	}
	return unknown, envVar
}

// jqSkipString skips a string literal from just after its quote and hands
// each \(…) interpolation to code; it returns the index after the string.
func jqSkipString(s string, i int, code func(string)) int {
	for i < len(s) {
		switch s[i] {
		case '"':
			return i + 1
		case '\\':
			if i+1 < len(s) && s[i+1] == '(' {
				depth, j := 1, i+2
				for j < len(s) && depth > 0 {
					switch s[j] {
					case '(':
						depth++
					case ')':
						depth--
					case '"':
						j = jqSkipString(s, j+1, func(string) {}) - 1
					}
					j++
				}
				code(s[i+2 : max(i+2, j-1)])
				i = j
				continue
			}
			i += 2
			continue
		}
		i++
	}
	return i
}

func jqWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
