package scripts

import (
	"regexp"
	"strings"
	"sync"
)

// Sqlite reads sqlite3 input (SQL and dot-commands): .shell and .system
// run commands; .read, .import, .open and .restore read files; .output,
// .once, .save, .backup, .log and .trace write them; any of the first
// ones given |CMD (and .dump's) runs CMD.
//
//	Sqlite(".shell id")          → [Run id]
//	Sqlite(".once out.csv\nSELECT 1;") → [Write out.csv]
func Sqlite(text string) []Step {
	var steps []Step
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, ".") {
			continue
		}
		cmd, rest, _ := strings.Cut(line[1:], " ")
		rest = strings.TrimSpace(rest)
		fs := strings.Fields(rest)
		piped, isPipe := strings.CutPrefix(rest, "|")
		switch cmd {
		case "shell", "system":
			steps = append(steps, Step{Run, rest})
		case "read", "import", "open", "restore":
			if isPipe {
				steps = append(steps, Step{Run, piped})
			} else if len(fs) > 0 {
				steps = append(steps, Step{Read, strings.Trim(fs[0], `'"`)})
			}
		case "output", "once", "save", "backup", "dump":
			if isPipe {
				steps = append(steps, Step{Run, piped})
			} else if len(fs) > 0 && cmd != "dump" {
				steps = append(steps, Step{Write, strings.Trim(fs[len(fs)-1], `'"`)})
			}
		case "log", "trace":
			// .log FILE and .trace [OPTIONS] FILE write their log to FILE
			// (off, stdout and stderr are no file)
			if f := sqliteLogFile(fs); f != "" {
				steps = append(steps, Step{Write, f})
			}
		}
	}
	return steps
}

// sqliteLogFile is the file .log or .trace writes, given the words after
// it: the last one that is not an option, "" for none or off, stdout,
// stderr.
func sqliteLogFile(fs []string) string {
	if len(fs) == 0 || strings.HasPrefix(fs[len(fs)-1], "-") {
		return ""
	}
	switch f := strings.Trim(fs[len(fs)-1], `'"`); f {
	case "off", "stdout", "stderr":
		return ""
	default:
		return f
	}
}

// dbRE is a regular expression compiled when first used.
func dbRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// dbMetaRe is a psql or mysql backslash command and the rest of its line;
// dbWordRe a mysql client command written as a word at a statement start.
var (
	dbMetaRe    = dbRE(`\\(!|[a-zA-Z_.]+)[ \t]*([^\n]*)`)
	dbWordRe    = dbRE(`(?im)(?:^|;)[ \t]*(system|pager|tee|source)[ \t]+([^\n]*)`)
	dbProgramRe = dbRE(`(?i)\bprogram\s+'((?:[^']|'')*)'`)
	dbCopyRe    = dbRE(`(?i)\\copy\b[^\n]*?\b(from|to)\s+'((?:[^']|'')*)'`)
)

// DB reads psql or mysql client input: \! CMD and system CMD run a
// command; \o |CMD, \g |CMD, \P CMD and pager CMD pipe output to one;
// COPY … PROGRAM 'CMD' runs one; \o, \w, \T and tee FILE write; \i, \.,
// source FILE and \copy … FROM 'FILE' read (\copy … TO 'FILE' writes).
// The backslash commands come first, then the words, then PROGRAM and
// \copy, each in the order written.
//
//	DB(`\! id`)                          → [Run id]
//	DB(`\copy t TO '/tmp/x.csv' csv`)    → [Write /tmp/x.csv]
func DB(text string) []Step {
	var steps []Step
	for _, m := range dbMetaRe().FindAllStringSubmatch(text, 64) {
		steps = dbCommand(steps, m[1], m[2])
	}
	for _, m := range dbWordRe().FindAllStringSubmatch(text, 64) {
		steps = dbCommand(steps, strings.ToLower(m[1]), m[2])
	}
	for _, m := range dbProgramRe().FindAllStringSubmatch(text, 16) {
		steps = append(steps, Step{Run, strings.ReplaceAll(m[1], "''", "'")})
	}
	for _, m := range dbCopyRe().FindAllStringSubmatch(text, 16) {
		s := Step{Write, strings.ReplaceAll(m[2], "''", "'")}
		if strings.EqualFold(m[1], "from") {
			s.Kind = Read
		}
		steps = append(steps, s)
	}
	return steps
}

// dbCommand appends what client command cmd, with the rest of its line,
// does.
func dbCommand(steps []Step, cmd, rest string) []Step {
	file := ""
	if fs := strings.Fields(rest); len(fs) > 0 {
		file = strings.Trim(fs[0], `'"`)
	}
	switch cmd {
	case "!", "system", "P", "pager":
		return append(steps, Step{Run, rest})
	case "o", "out", "g", "gx", "w", "write", "T", "tee":
		if r, ok := strings.CutPrefix(rest, "|"); ok {
			return append(steps, Step{Run, r})
		} else if file != "" {
			return append(steps, Step{Write, file})
		}
	case "i", "include", "ir", "include_relative", ".", "source":
		if file != "" {
			return append(steps, Step{Read, file})
		}
	}
	return steps
}
