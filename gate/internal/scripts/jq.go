package scripts

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// jq and yq filters are a language of their own (SPEC §5.1): a filter is
// known-safe only when every function it calls is a pure builtin below or
// one it defines itself. A builtin missing here (yq's load_props, strload,
// eval; jq's input_filename, get_search_list; whatever a new release adds)
// makes the call ask instead of passing unseen.

// jqRE is a regular expression compiled when first used.
func jqRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// jqLoadRe finds yq's builtins that load a file named in the filter;
// yqFileName a yq first operand that names a data file; jqImportRe
// jq's import and include directives, jqSearchRe their search paths.
var (
	yqFileName = jqRE(`^[\w./-]+\.(?i:ya?ml|json|xml|toml|properties|csv|tsv|hcl|ini|tf)$`)
	jqLoadRe   = jqRE(`\b(?:load|load_str|strload|load_props|load_xml|load_base64|load_yaml)\(\s*"([^"]+)"`)
	jqImportRe = jqRE(`\b(?:import|include)\s+"([^"]*)"`)
	jqSearchRe = jqRE(`\bsearch\s*:\s*"([^"]*)"`)
)

// YqDataFile says a yq first operand names a data file (f.yml, x.json):
// yq reads it as a file, with the filter ".".
func YqDataFile(name string) bool { return yqFileName().MatchString(name) }

// JqLoads are the files a yq filter loads by name: load("f"),
// load_props("f"), strload("f") and their kin.
func JqLoads(filter string) []string {
	var names []string
	for _, m := range jqLoadRe().FindAllStringSubmatch(filter, -1) {
		names = append(names, m[1])
	}
	return names
}

// JqImports says a jq filter imports or includes a module.
func JqImports(filter string) bool { return jqImportRe().MatchString(filter) }

// JqModulePaths are the files a jq filter's import/include directives
// load: NAME.jq and NAME.json (import "x" as $d prints a JSON file) in
// each library directory (jq -L), a {search: DIR} of the directive, or
// jq's default ~/.jq.
func JqModulePaths(libs []string, filter string) (paths []string) {
	dirs := append([]string(nil), libs...)
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

// JqUnknownCalls returns the names a jq or yq filter calls that are
// neither pure builtins nor defined in the filter, and whether it reads
// $ENV. Object keys ({name, version}, {a: 1}), fields (.env) and
// variables ($x) are not calls; code inside string interpolation is.
func JqUnknownCalls(filter string) (unknown []string, envVar bool) {
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
				u, e := JqUnknownCalls(code)
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

// jqWordByte says c may be part of a jq name.
func jqWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
