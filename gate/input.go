package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/perm-peer/perm-peer/protocol"
	"github.com/perm-peer/perm-peer/redact"
)

// toolClass is what a tool does, from its name or its ACP kind.
type toolClass int

const (
	tUnknown toolClass = iota
	tShell
	tRead
	tWrite
	tDelete
	tMove
	tSearch
	tList
	tFetch
	tWebSearch
	tNoop
	tPatch
	tEditor
	tMCP
)

// toolClasses are the agent hosts' tool names, lower case, by class:
// Claude Code's Bash, Read, Grep, Glob, WebFetch; Codex's shell and
// apply_patch; Gemini CLI's run_shell_command, read_many_files; Cursor's
// run_terminal_cmd; Continue's create_new_file, file_glob_search; the
// editors' str_replace_based_edit_tool. A few are also programs' names
// (bash, cat, grep, ls, find, patch, exec): here they name the host's
// tool, whose input says what it does, never a program the shell runs.
var toolClasses = []struct {
	class toolClass
	names string
}{
	{tShell, "bash shell exec execute run_terminal_cmd terminal run_shell_command run_command local_shell shell_command execute_command run_terminal_command"},
	{tRead, "read read_file view view_file open_file readfile cat notebookread read_many_files"},
	{tWrite, "write write_file create create_file edit multiedit str_replace edit_file replace insert notebookedit writefile create_new_file edit_existing_file"},
	{tPatch, "apply_patch patch"},
	{tEditor, "str_replace_based_edit_tool str_replace_editor"},
	{tDelete, "delete delete_file remove remove_file"},
	{tMove, "move rename move_file"},
	{tSearch, "grep search codebase_search grep_search search_files ripgrep search_file_content"},
	{tList, "glob ls list list_dir list_directory find file_search find_files file_glob_search"},
	{tFetch, "webfetch fetch web_fetch fetch_url fetch_url_content"},
	{tWebSearch, "websearch web_search search_web"},
	// Claude Code's BashOutput and KillShell act only on the agent's own
	// background shell, whose command was judged when it started
	{tNoop, "bashoutput killshell killbash think todowrite todo_write todoread todo_read update_plan"},
}

// toolNames is toolClasses by name.
var toolNames = func() map[string]toolClass {
	m := map[string]toolClass{}
	for _, c := range toolClasses {
		for _, n := range strings.Fields(c.names) {
			if _, dup := m[n]; dup {
				panic("gate: toolClasses names " + n + " twice")
			}
			m[n] = c.class
		}
	}
	return m
}()

var kindClass = map[protocol.ToolKind]toolClass{
	protocol.KindRead: tRead, protocol.KindEdit: tWrite, protocol.KindDelete: tDelete, protocol.KindMove: tMove,
	protocol.KindSearch: tSearch, protocol.KindExecute: tShell, protocol.KindFetch: tFetch, protocol.KindThink: tNoop,
}

// pathKeys and destKeys are the keys of a tool's input that name its
// files, in the order paths reads them (uri: MCP resources, file:///…).
// They are compared after normKey: hosts spell them file_path, filePath,
// filepath (Continue) or File_Path (a Go struct decoder matches any case).
// Some are also programs' names (file, source): here they are JSON keys.
var pathKeys = strings.Fields(`path file_path file filename target_file notebook_path absolute_path
	relative_path relative_workspace_path target_directory directory dir_path dir source old_path from uri`)
var destKeys = []string{"destination", "new_path", "to", "target", "dest"}

// keyRank maps a normalized path key to its place in pathKeys (dest keys
// follow), so that paths come out in a stable order.
var keyRank = func() map[string]int {
	m := map[string]int{}
	for i, k := range append(append([]string{}, pathKeys...), destKeys...) {
		m[normKey(k)] = i
	}
	return m
}()

// normKey folds a key's case and drops _ and -: file_path, filePath,
// FILEPATH and file-path are one key.
func normKey(k string) string {
	b := make([]byte, 0, len(k))
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_' || c == '-':
			continue
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return string(b)
}

// keySet says which keys a paths call reads.
type keySet int

const (
	srcKeys keySet = 1 << iota
	dstKeys
)

func (s keySet) has(rank int) bool {
	if rank < len(pathKeys) {
		return s&srcKeys != 0
	}
	return s&dstKeys != 0
}

var contentKeys = []string{"content", "new_string", "new_str", "file_text", "newText", "new_text", "text", "code_edit", "insert_text"}

// input turns the call into facts and returns the action text.
func (a *analyzer) input(call protocol.ToolCall) string {
	name := strings.ToLower(strings.TrimSpace(call.Tool))
	var in map[string]any
	var rawStr string
	if len(call.RawInput) > 0 && string(call.RawInput) != "null" {
		in = decodeObject(call.RawInput)
		switch {
		case in == nil:
			if err := json.Unmarshal(call.RawInput, &rawStr); err != nil {
				a.opaque("ask.bad-input", "rawInput is not JSON the gate can read", false)
				return name
			}
		}
	}
	class, known := toolNames[name]
	switch {
	case call.Kind == protocol.KindSwitchMode || name == "exitplanmode" || name == "exit_plan_mode":
		// leaving plan mode is the user's approval of the plan
		a.add(&rfact{kind: protocol.FactTool, tool: name, parent: -1,
			human: reason("human.mode-switch", "switching mode or approving a plan is the user's decision")})
		return "tool: " + name
	case name == "save_memory":
		// Gemini's save_memory appends to ~/.gemini/GEMINI.md, which every
		// later session reads as instructions
		a.add(&rfact{kind: protocol.FactTool, tool: name, parent: -1,
			human: reason("human.persistence-write", "saves a memory that future agent sessions read as instructions")})
		return "tool: " + name
	case name == "":
		class = kindClass[call.Kind]
		if class == tUnknown {
			a.add(&rfact{kind: protocol.FactTool, tool: string(call.Kind), parent: -1, ask: reason("ask.tool", "ACP kind "+string(call.Kind)+" needs a person")})
			// opencode asks kind "other", no tool name, {command, directories}:
			// a floor in it must hold without the person
			a.commandInInput(in, false)
			return "tool: " + string(call.Kind)
		}
	case strings.HasPrefix(name, "mcp__") || strings.HasPrefix(name, "mcp_"), !known:
		idx := a.add(&rfact{kind: protocol.FactTool, tool: name, parent: -1})
		if code, _ := in["code"].(string); strings.TrimSpace(code) != "" && runsCode(call.Tool) {
			// mcp__ide__executeCode: code the gate cannot analyse asks (a
			// Tool rule may clear that), and what inlineCode finds in it (a
			// secret read, a shell-out, a recursive delete) holds as for python -c
			lang := strings.ToLower(firstString(in, "language", "lang"))
			if lang == "" {
				lang = "python" // the IDE's Jupyter kernel
			}
			a.facts[idx].open = reason("ask.interpreter", call.Tool+" runs code the gate cannot analyse")
			a.noAlways = true
			a.inlineCode(a.facts[idx], idx, lang, code, &scope{cwd: a.env.Cwd})
		}
		a.kindFacts(call, in)
		if c := inferClass(call.Tool); c != tUnknown && len(a.paths(protocol.ToolCall{}, in, a.env.Cwd, srcKeys|dstKeys)) > 0 {
			// mcp__filesystem__write_file, insert_edit_into_file: the file
			// effects its name says, so a Tool(mcp__fs__*) rule or auto mode
			// cannot clear a write to .bashrc or .git/hooks (human-only wins)
			from := len(a.facts)
			a.classFacts(c, name, call, in, rawStr)
			if c == tWrite {
				// copy_file, symlink_file: the destination is written too
				for _, p := range a.paths(protocol.ToolCall{}, in, a.env.Cwd, dstKeys) {
					a.writeFact(p, -1)
				}
			}
			for _, f := range a.facts[from:] {
				if f.tool == "" {
					f.tool = name // the Tool rule covers what is not human-only
				}
			}
		}
		a.commandInInput(in, terminalTool(call.Tool))
		return "tool: " + name
	}
	action := a.classFacts(class, name, call, in, rawStr)
	if class != tShell && class != tEditor { // an editor tool's "command" is view, create, str_replace
		a.commandInInput(in, false)
	}
	// Tool(NAME) rules see every fact of a named tool
	for _, f := range a.facts {
		if f.tool == "" && name != "" {
			f.tool = name
		}
	}
	return action
}

// runsCode reports a tool name that says it runs what it is given.
func runsCode(tool string) bool {
	for _, w := range nameWords(tool) {
		switch w {
		case "execute", "exec", "run", "eval", "evaluate", "interpret":
			return true
		}
	}
	return false
}

// commandInInput analyses a shell command found in the input of a tool that
// is not a shell tool (an MCP "execute_command", a call whose kind says
// read or think): whatever the tool is, the gate must not let a floor or a
// secret read through because of its name. It only adds facts. Nested
// objects are read too: a task runner's {"task":{"command":"rm","args":[…]}}
// runs as surely as a top-level command. terminal says the tool types text
// into a running shell or process (interact_with_process, write_stdin), so
// its input/text/chars are commands as well.
func (a *analyzer) commandInInput(in map[string]any, terminal bool) {
	deep := a.nestedCommands(in, a.env.Cwd, terminal, 0, func(c inputCommand) {
		a.noAlways = true
		a.typedInput = c.typed
		a.shell(c.text, &scope{cwd: c.cwd})
		a.typedInput = false
	})
	if deep {
		// a command below the cap would run unread: a Tool rule or auto
		// mode must not clear it
		a.opaque("human.too-deep", "tool input nested too deeply for the gate to read", true)
	}
}

// maxInputDepth bounds the objects and arrays the gate walks into in a
// tool's input (commands, paths); no host nests them anywhere near it, and
// commandInInput makes a call with more below human-only.
const maxInputDepth = 32

// inputCommand is a command found in a tool's input: its text, where it
// runs, and whether it was typed into a process (analyzer.typedInput).
type inputCommand struct {
	text, cwd string
	typed     bool
}

// nestedCommands passes run the commands in v and below it, in order; it
// reports whether it stopped at maxInputDepth with more below.
func (pl *places) nestedCommands(v any, cwd string, terminal bool, depth int, run func(inputCommand)) (deep bool) {
	switch x := v.(type) {
	case map[string]any:
		if depth > maxInputDepth {
			return len(x) > 0
		}
		if c := firstString(x, cwdKeys...); c != "" {
			cwd = pl.resolvePath(c, cwd, false).abs
		}
		keys := []string{"command", "cmd", "script", "shell_command", "commandLine", "command_line"}
		if terminal {
			keys = append(keys, "input", "text", "chars", "keys", "data", "stdin")
		}
		for _, k := range keys {
			// an argv list runs as surely as a string: {"command":["rm","-rf","/"]}
			if c, ok := commandText(x, k); ok && strings.TrimSpace(c) != "" {
				// text typed into a process is as often a REPL's (print(1+1),
				// df.head()) as a shell's: what does not parse as shell asks
				// instead of being human-only
				typed := terminal && k != "command" && k != "cmd" && k != "script" && k != "shell_command" && k != "commandLine" && k != "command_line"
				run(inputCommand{text: c, cwd: cwd, typed: typed})
			}
		}
		for _, k := range sortedKeys(x) {
			deep = pl.nestedCommands(x[k], cwd, terminal, depth+1, run) || deep
		}
	case []any:
		if depth > maxInputDepth {
			return len(x) > 0
		}
		for _, e := range x {
			deep = pl.nestedCommands(e, cwd, terminal, depth+1, run) || deep
		}
	}
	return deep
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks) // facts in a stable order
	return ks
}

// nameWords splits a tool name into lower-case words: the part after an
// MCP server prefix, at _ - . and camelCase (insertEditIntoFile).
func nameWords(tool string) []string {
	if i := strings.LastIndex(tool, "__"); i >= 0 {
		tool = tool[i+2:]
	}
	var words []string
	var cur []rune
	prevLower := false
	for _, r := range tool {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ' || r == '/':
			if len(cur) > 0 {
				words = append(words, string(cur))
			}
			cur, prevLower = nil, false
			continue
		case r >= 'A' && r <= 'Z':
			if prevLower && len(cur) > 0 {
				words = append(words, string(cur))
				cur = nil
			}
			r += 'a' - 'A'
			prevLower = false
		default:
			prevLower = true
		}
		cur = append(cur, r)
	}
	if len(cur) > 0 {
		words = append(words, string(cur))
	}
	return words
}

// inferClass reads the file effect of a tool the gate does not know by
// name from its words: a verb (write, edit, replace, delete, move, read,
// list, search) with a file object (file, notebook, directory, block).
// Writing verbs win over reading ones. tUnknown when the name says neither.
func inferClass(tool string) toolClass {
	words := nameWords(tool)
	if c, ok := toolNames[strings.Join(words, "_")]; ok && c != tShell && c != tNoop {
		return c // mcp__filesystem__write_file, mcp__fs__read_file
	}
	has := func(set ...string) bool {
		for _, w := range words {
			for _, s := range set {
				if w == s {
					return true
				}
			}
		}
		return false
	}
	if !has("file", "files", "notebook", "notebooks", "directory", "directories", "dir", "folder", "block", "cell", "cells", "path") {
		// write_text, save, put_content, overwrite with a path key still
		// write there: these verbs have no reading sense
		if has("write", "overwrite", "save", "append", "put", "store") {
			return tWrite
		}
		return tUnknown
	}
	switch {
	case has("delete", "remove", "rm", "unlink", "trash"):
		return tDelete
	case has("move", "rename", "mv"):
		return tMove
	case has("write", "edit", "create", "replace", "insert", "save", "append", "update", "modify", "overwrite", "patch", "put", "mkdir", "set", "new", "apply",
		"copy", "cp", "duplicate", "chmod", "chown", "symlink", "link", "upload", "store"):
		return tWrite
	case has("list", "ls", "tree"):
		return tList
	case has("search", "grep", "find", "glob"):
		return tSearch
	case has("read", "view", "get", "open", "cat", "show", "head", "tail", "info", "stat"):
		return tRead
	}
	return tUnknown
}

// terminalTool reports a tool whose name says it types into a terminal or
// a running process: what it sends runs as a command.
func terminalTool(tool string) bool {
	for _, w := range nameWords(tool) {
		switch w {
		case "terminal", "shell", "process", "console", "repl", "pty", "tmux", "stdin":
			return true
		}
	}
	return false
}

// kindFacts adds the file effects an unknown tool declares through its ACP
// kind, so floors and deny rules still see them; without a kind, the paths
// it names are read (a secret among them is human-only).
func (fl *factLog) kindFacts(call protocol.ToolCall, in map[string]any) {
	cwd := fl.env.Cwd
	if c := firstString(in, cwdKeys[:4]...); c != "" {
		cwd = fl.resolvePath(c, fl.env.Cwd, false).abs
	}
	fl.otherPaths(in, cwd, 0)
	if call.Kind == "" || kindClass[call.Kind] == tUnknown {
		for _, p := range fl.paths(call, in, cwd, srcKeys) {
			if fl.sensitive(p) {
				fl.readFact(p, -1, false)
			}
		}
	}
	switch kindClass[call.Kind] {
	case tRead, tSearch:
		for _, p := range fl.paths(call, in, cwd, srcKeys) {
			fl.readFact(p, -1, false)
		}
	case tWrite, tDelete, tMove:
		for _, p := range fl.paths(call, in, cwd, srcKeys|dstKeys) {
			fl.writeFact(p, -1)
		}
	}
}

func (a *analyzer) classFacts(class toolClass, name string, call protocol.ToolCall, in map[string]any, rawStr string) string {
	if name == "" {
		name = string(call.Kind)
	}
	sc := &scope{cwd: a.env.Cwd}
	keys := cwdKeys[:4] // for a file tool, "directory" or "dir" is what it works on
	if class == tShell {
		keys = cwdKeys
	}
	if c := firstString(in, keys...); c != "" {
		sc.cwd = a.resolvePath(c, a.env.Cwd, false).abs
	}
	if distinctValues(in, keys) > 1 {
		// two working directories: the gate cannot tell which one the host uses
		sc.cwd = ""
		a.opaque("human.bad-input", "the input names two working directories", true)
	}
	if class != tShell && class != tNoop && class != tWebSearch {
		other := in
		if class == tSearch {
			// a search's pattern is the text it looks for (Grep
			// "~/.ssh/id_rsa" in src), not a file it opens
			other = withoutKeys(in, "pattern", "regex", "query")
		}
		a.otherPaths(other, sc.cwd, 0)
	}
	t := toolFacts{a: a, class: class, name: name, call: call, in: in, rawStr: rawStr}
	switch class {
	case tShell:
		return t.shell(sc)
	case tRead, tSearch, tList:
		return t.read(sc)
	case tWrite, tEditor:
		return t.write(sc)
	case tPatch:
		return t.patch(sc)
	case tDelete:
		return t.delete(sc)
	case tMove:
		return t.move(sc)
	case tFetch:
		return t.fetch(sc)
	case tWebSearch:
		q := firstString(in, "query", "q")
		f := &rfact{kind: protocol.FactTool, tool: name, parent: -1, safe: reason("gate.safe", "web search sends only a query")}
		if redact.String(q) != q {
			// the query goes to the search provider, like a token in a URL
			f.safe, f.human = nil, reason("human.secret-url", "the search query carries what looks like a credential")
		}
		a.add(f)
		return name + ": " + clip(q, 200)
	case tNoop:
		a.add(&rfact{kind: protocol.FactTool, tool: name, parent: -1, safe: reason("gate.safe", "no side effects")})
		return name
	}
	a.add(&rfact{kind: protocol.FactTool, tool: name, parent: -1})
	return name
}

// toolFacts is one tool call classFacts reads: each class's facts come
// from one method, given the call's working directory (a parameter, so
// that it stays on the stack), which returns the action's text.
type toolFacts struct {
	a      *analyzer
	class  toolClass
	name   string
	call   protocol.ToolCall
	in     map[string]any
	rawStr string
}

// shell reads a shell call's commands, its env map and its stdin.
func (t *toolFacts) shell(sc *scope) string {
	a, name, call, in, rawStr := t.a, t.name, t.call, t.in, t.rawStr
	cmds, ok := commandsOf(in, rawStr)
	if !ok {
		a.opaque("ask.bad-input", "no command the gate can read in the call", false)
		return name
	}
	// an env map in the input (Codex-style exec) sets the command's
	// environment, like NAME=VALUE prefixes
	for _, k := range []string{"env", "environment", "envVars", "env_vars"} {
		if m, ok := in[k].(map[string]any); ok {
			names := make([]string, 0, len(m))
			for n := range m {
				names = append(names, n)
			}
			sort.Strings(names) // facts in a stable order
			for _, n := range names {
				val, isStr := m[n].(string)
				if riskyEnv(n, val, isStr) {
					a.add(&rfact{kind: protocol.FactEnv, detail: n + "=" + clip(val, 80), parent: -1,
						ask: reason("ask.env-prefix", n+" changes what the command runs")})
					a.envCommand(n, val, sc)
				}
			}
		} else if in[k] != nil {
			a.opaque("ask.bad-input", "an environment the gate cannot read", false)
		}
	}
	stdin := firstString(in, "input", "stdin")
	for _, c := range cmds {
		if stdin == "" {
			a.shell(c, sc.copy())
			continue
		}
		// {"command":"sh","input":"rm -rf ~"}: the text is the command's
		// stdin, which a shell or interpreter runs: fed as a here-doc to
		// the last command, and read as a script of its own when a
		// compound command could hand it to an earlier one, or when a
		// terminal tool may type it into the shell after the command
		a.noAlways = true
		a.shell(c+" <<'"+hereDelim(stdin)+"'\n"+stdin+"\n"+hereDelim(stdin), sc.copy())
		if terminalTool(call.Tool) || strings.ContainsAny(c, ";&|\n(){}`$") {
			a.shell(stdin, sc.copy())
		}
	}
	return "bash: " + clip(strings.TrimSpace(strings.Join(cmds, " ; ")), 300)
}

// read reads a read, search or listing of files.
func (t *toolFacts) read(sc *scope) string {
	a, class, name, call, in := t.a, t.class, t.name, t.call, t.in
	ps := a.paths(call, in, sc.cwd, srcKeys)
	if class == tRead && manyFiles(in) {
		// read_many_files: each include glob is a read of its own, like paths
		for _, g := range stringsOf(in["include"]) {
			ps = append(ps, a.resolvePath(g, sc.cwd, false))
		}
	}
	if len(ps) == 0 && (class != tRead || manyFiles(in)) {
		ps = []pathRef{a.resolvePath(".", sc.cwd, false)}
	}
	if len(ps) == 0 {
		// the host reads some file the gate did not find: it may be a secret
		a.opaque("human.bad-input", "a read without a path the gate can read", true)
		return name
	}
	for _, p := range ps {
		toolRead(a, p, class, manyFiles(in))
	}
	if class == tSearch || manyFiles(in) {
		// what the directories hold on disk decides (searchscope.go)
		toolScopeFacts(a, class == tRead, in, ps)
	}
	// a glob pattern can leave the search path: /home/u/.ssh/*, ../../**
	base := a.env.Cwd
	if len(ps) > 0 && ps[0].known {
		base = ps[0].abs
	}
	for _, k := range []string{"pattern", "glob", "include", "includes", "include_pattern", "file_pattern", "filePattern", "includePattern"} {
		for _, g := range stringsOf(in[k]) {
			if d := globDir(g); d != "" && (class == tList || k != "pattern") {
				a.readFact(a.resolvePath(d, base, false), -1, class == tList)
			}
		}
	}
	if class == tSearch || manyFiles(in) {
		// a search or read restricted to secrets reads them: grep with
		// glob ".env", read_many_files {"include": ["**/.env"]} (an
		// exclude is ignored: it cannot make a read safer than the gate sees)
		for _, k := range []string{"glob", "include", "includes", "include_pattern", "file_pattern", "filePattern", "includePattern", "type"} {
			for _, g := range stringsOf(in[k]) {
				if !aimsAtSecret(strings.ToLower(filepath.Base(g))) {
					continue // src/**, *.json: the walk of the directory decides
				}
				a.add(&rfact{kind: protocol.FactRead, path: pathRef{raw: g}, parent: -1, human: reason("human.sensitive-read", "searches inside sensitive files")})
			}
		}
	}
	return name + ": " + displayPaths(ps)
}

// write reads a file write or an editor's call.
func (t *toolFacts) write(sc *scope) string {
	a, class, name, call, in, rawStr := t.a, t.class, t.name, t.call, t.in, t.rawStr
	if class == tEditor {
		if c, _ := in["command"].(string); c == "view" {
			return a.classFacts(tRead, name, call, in, rawStr)
		}
	}
	ps := a.paths(call, in, sc.cwd, srcKeys)
	if len(ps) == 0 {
		// the host writes some file the gate did not find: it may be a secret
		a.opaque("human.bad-input", "a write without a path the gate can read", true)
		return name
	}
	for _, p := range ps {
		i := a.writeFact(p, -1)
		news, olds := contentTexts(in), oldTexts(in)
		if i >= 0 && isPackageJSON(p) && (touchesScripts(news) && !(len(olds) == 0 && dataOnlyRewrite(p.real, news)) || editsScripts(p.real, olds, news)) {
			scriptsWrite(a.facts[i])
		}
	}
	return name + ": " + displayPaths(ps)
}

// patch reads a patch's files.
func (t *toolFacts) patch(sc *scope) string {
	a, name, in, rawStr := t.a, t.name, t.in, t.rawStr
	ps := a.patchPaths(patchText(in, rawStr), sc, -1)
	if len(ps) == 0 {
		a.opaque("ask.bad-input", "a patch whose files the gate cannot find", false)
		return name
	}
	return name + ": " + displayPaths(ps)
}

// delete reads a file delete.
func (t *toolFacts) delete(sc *scope) string {
	a, name, call, in := t.a, t.name, t.call, t.in
	ps := a.paths(call, in, sc.cwd, srcKeys)
	if len(ps) == 0 {
		// the host deletes some file the gate did not find: it may be a secret
		a.opaque("human.bad-input", "a delete without a path the gate can read", true)
		return name
	}
	for _, p := range ps {
		a.deleteWord(word{val: p.raw}, sc, -1, rmRecursive)
	}
	return name + ": " + displayPaths(ps)
}

// move reads a move: its sources are deleted, its targets written.
func (t *toolFacts) move(sc *scope) string {
	a, name, call, in := t.a, t.name, t.call, t.in
	src := a.paths(call, in, sc.cwd, srcKeys)
	dst := a.paths(protocol.ToolCall{}, in, sc.cwd, dstKeys)
	for _, p := range src {
		a.deleteWord(word{val: p.raw}, sc, -1, rmRecursive)
	}
	for _, p := range dst {
		a.writeFact(p, -1)
	}
	if len(src)+len(dst) == 0 {
		a.opaque("ask.bad-input", "a move without paths", false)
	}
	return name + ": " + displayPaths(append(src, dst...))
}

// fetch reads a web fetch's URLs.
func (t *toolFacts) fetch(sc *scope) string {
	a, name, in := t.a, t.name, t.in
	var urls []string
	// Gemini's web_fetch takes a prompt: every http(s) URL in it is fetched
	for _, u := range promptURLs().FindAllString(firstString(in, "prompt"), 64) {
		u = strings.TrimRight(u, ".,;:!?)]}'\"")
		urls = append(urls, u)
		a.fetchFact(u, sc)
	}
	for _, k := range []string{"url", "uri", "href", "urls"} {
		vals := []any{in[k]}
		if list, ok := in[k].([]any); ok {
			vals = list // fetch_webpage {"urls":[…]}: every one is fetched
		}
		for _, v := range vals {
			if u, ok := v.(string); ok && u != "" {
				urls = append(urls, u)
				a.fetchFact(u, sc)
			}
		}
	}
	if len(urls) == 0 {
		a.opaque("ask.bad-input", "a fetch without a URL", false)
		return name
	}
	return name + ": " + clip(strings.Join(urls, ", "), 300)
}

func (fl *factLog) fetchFact(raw string, sc *scope) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		fl.add(&rfact{kind: protocol.FactNetwork, host: raw, parent: -1, ask: reason("ask.network", "a URL the gate cannot parse")})
		return
	}
	if strings.EqualFold(u.Scheme, "file") {
		p, _ := uriPath(raw)
		fl.readFact(fl.resolvePath(p, sc.cwd, false), -1, false)
		return
	}
	if u.Hostname() == "" {
		fl.add(&rfact{kind: protocol.FactNetwork, host: raw, parent: -1, ask: reason("ask.network", "a URL without a host")})
		return
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	f := &rfact{kind: protocol.FactNetwork, host: strings.ToLower(u.Hostname()), port: port, parent: -1}
	if redact.String(raw) != raw {
		// a token in the URL goes to that host: no domain rule was given for that
		f.human = reason("human.secret-url", "the URL carries what looks like a credential")
	}
	fl.add(f)
}

// cloudMetadata makes a request to a cloud instance metadata service a
// sensitive read, by whatever tool: it answers with the machine's
// credentials (SPEC §5.5), so auto mode must not clear it as network.
func (fl *factLog) cloudMetadata() {
	for _, f := range fl.facts {
		if f.kind == protocol.FactNetwork && f.floor == nil && f.human == nil && metadataHost(f.host) {
			f.human = reason("human.sensitive-read", "asks a cloud metadata service for the machine's credentials")
		}
	}
}

// metadataHosts are the metadata services' names (lower case).
var metadataHosts = map[string]bool{"metadata.google.internal": true, "metadata": true, "metadata.goog": true,
	"instance-data": true, "instance-data.ec2.internal": true, "metadata.azure.internal": true, "metadata.tencentyun.com": true}

// metadataHost reports a metadata service in any spelling: its name, the
// link-local range 169.254.0.0/16 (AWS, GCP, Azure, ECS 169.254.170.2),
// Alibaba's 100.100.100.200 and AWS's fd00:ec2::254, written as dotted,
// decimal (2852039166), hex or octal IPv4 or as IPv6.
func metadataHost(h string) bool {
	h = strings.TrimSuffix(strings.Trim(strings.ToLower(h), "[]"), ".")
	if h == "" {
		return false
	}
	if metadataHosts[h] {
		return true
	}
	var ip net.IP
	if v4, ok := looseIPv4(h); ok {
		ip = v4
	} else if ip = net.ParseIP(h); ip == nil {
		return false
	}
	if v4 := ip.To4(); v4 != nil {
		return v4[0] == 169 && v4[1] == 254 || v4.Equal(net.IPv4(100, 100, 100, 200))
	}
	return ip.Equal(net.ParseIP("fd00:ec2::254"))
}

// looseIPv4 parses an IPv4 address as inet_aton does, which curl and
// most resolvers follow: 1 to 4 parts, each decimal, 0x hex or 0 octal,
// the last filling the remaining bytes (2852039166, 0xa9.0xfe.43518).
func looseIPv4(h string) (net.IP, bool) {
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return nil, false
	}
	var vals []uint64
	for _, p := range parts {
		base := 10
		switch {
		case strings.HasPrefix(p, "0x"):
			p, base = p[2:], 16
		case len(p) > 1 && p[0] == '0':
			p, base = p[1:], 8
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil {
			return nil, false
		}
		vals = append(vals, v)
	}
	n := uint64(0)
	for i, v := range vals {
		if i < len(vals)-1 {
			if v > 255 {
				return nil, false
			}
			n |= v << (8 * (3 - i))
			continue
		}
		if v >= 1<<(8*(4-i)) {
			return nil, false
		}
		n |= v
	}
	return net.IPv4(byte(n>>24), byte(n>>16), byte(n>>8), byte(n)), true
}

// commandsOf reads command/cmd/script as a string or an argv array. Every
// key present is returned: a host that runs "cmd" must not be judged on a
// harmless "command" next to it. ok is false when a value is unreadable.
func commandsOf(in map[string]any, rawStr string) ([]string, bool) {
	if in == nil {
		return []string{rawStr}, rawStr != ""
	}
	var out []string
	for _, k := range []string{"command", "cmd", "script"} {
		if _, present := in[k]; !present {
			continue
		}
		c, ok := commandText(in, k)
		if !ok {
			return nil, false
		}
		out = append(out, c)
	}
	return out, len(out) > 0
}

// hereDelim is a here-doc delimiter that is no line of text.
func hereDelim(text string) string {
	d := "PERM_PEER_STDIN"
	for strings.Contains(text, d) {
		d += "_"
	}
	return d
}

// commandText reads in[k] as a shell command: a string (with an "args"
// list appended) or an argv list, each word quoted. ok is false when the
// value is neither.
func commandText(in map[string]any, k string) (string, bool) {
	words := func(v []any) ([]string, bool) {
		parts := make([]string, 0, len(v))
		for _, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, false
			}
			parts = append(parts, shellQuote(s))
		}
		return parts, true
	}
	switch v := in[k].(type) {
	case string:
		// {"command":"git","args":["push","-f"]} runs the args too
		if args, ok := in["args"].([]any); ok {
			parts, ok := words(args)
			if !ok {
				return "", false
			}
			v = strings.Join(append([]string{v}, parts...), " ")
		}
		return v, true
	case []any:
		parts, ok := words(v)
		if !ok || len(parts) == 0 {
			return "", false
		}
		return strings.Join(parts, " "), true
	}
	return "", false
}

// shellQuote quotes one argv word so the parser sees it as one literal.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// cwdKeys are the keys hosts use for a command's working directory.
var cwdKeys = []string{"cwd", "workdir", "working_directory", "workingDirectory", "working_dir", "cd", "directory", "dir", "dir_path"}

// distinctValues counts the different string values in in under keys.
func distinctValues(in map[string]any, keys []string) int {
	seen := map[string]bool{}
	for _, k := range keys {
		if s, ok := in[k].(string); ok && s != "" {
			seen[s] = true
		}
	}
	return len(seen)
}

func firstString(in map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := in[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// paths collects the files a tool call names: argument keys, a paths
// array, multiedit edits and ACP locations.
func (fl *factLog) paths(call protocol.ToolCall, in map[string]any, cwd string, keys keySet) []pathRef {
	type kv struct {
		rank int
		val  string
	}
	var named []kv
	for k, v := range in {
		s, ok := v.(string)
		if !ok || s == "" {
			continue
		}
		if r, ok := keyRank[normKey(k)]; ok && keys.has(r) {
			if p, isPath := uriPath(s); isPath {
				named = append(named, kv{r, p})
			}
		}
	}
	sort.Slice(named, func(i, j int) bool {
		return named[i].rank < named[j].rank || named[i].rank == named[j].rank && named[i].val < named[j].val
	})
	raw := make([]string, 0, len(named))
	for _, x := range named {
		raw = append(raw, x.val)
	}
	for _, k := range []string{"paths", "target_directories", "targetDirectories", "directories", "files"} {
		if list, ok := in[k].([]any); ok {
			for _, x := range list {
				if s, ok := x.(string); ok && s != "" {
					raw = append(raw, s)
				}
			}
		}
	}
	// path keys in nested objects: {"edits":[{"file_path":…}]},
	// {"changes":[{"path":…}]}, {"options":{"target_file":…}}: a host that
	// writes each of them must not be judged on the top-level one alone
	for _, k := range sortedKeys(in) {
		raw = nestedPaths(in[k], keys, raw, 0)
	}
	for _, l := range call.Locations {
		if l.Path != "" {
			raw = append(raw, l.Path)
		}
	}
	seen := map[string]bool{}
	var out []pathRef
	for _, r := range raw {
		if seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, fl.resolve(r, cwd, true, true))
	}
	return out
}

// nestedPaths appends the path-key values found in v, an object or array
// below the top level of a tool's input.
func nestedPaths(v any, keys keySet, out []string, depth int) []string {
	if depth > maxInputDepth { // commandInInput makes what lies below human-only
		return out
	}
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			out = nestedPaths(e, keys, out, depth+1)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			if s, ok := x[k].(string); ok && s != "" {
				if r, ok := keyRank[normKey(k)]; ok && keys.has(r) {
					if p, isPath := uriPath(s); isPath {
						out = append(out, p)
					}
				}
				continue
			}
			out = nestedPaths(x[k], keys, out, depth+1)
		}
	}
	return out
}

// uriPath turns a file: URI into its path (file:///etc/x, file:.env);
// a value with another scheme (https://…) names no local file. Plain
// paths come back as they are.
func uriPath(s string) (string, bool) {
	i := strings.Index(s, ":")
	if i < 2 || strings.ContainsAny(s[:i], "/\\.~ ") {
		return s, true // no scheme (C:\x is a drive, not a scheme)
	}
	if !strings.EqualFold(s[:i], "file") {
		if strings.HasPrefix(s[i:], "://") {
			return "", false
		}
		return s, true
	}
	u, err := url.Parse(s)
	if err != nil {
		return s[i+1:], true
	}
	p := u.Path
	if p == "" {
		// file:.env and file:../x are opaque: url.Parse leaves Path empty
		if p, err = url.PathUnescape(u.Opaque); err != nil {
			p = u.Opaque
		}
	}
	if p == "" {
		p = "."
	}
	return p, true
}

// promptURLs finds the http(s) URLs in a fetch tool's prompt.
var promptURLs = lazyRE(`(?i)https?://[^\s<>"'\x60]+`)

// stringsOf is a string value, or the strings of a list value.
func stringsOf(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// withoutKeys is a shallow copy of in without keys.
func withoutKeys(in map[string]any, keys ...string) map[string]any {
	out := make(map[string]any, len(in))
	for k, v := range in {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// otherPaths reads string values under keys the gate does not know that
// look like paths (/…, ~/…, file:…, ../…): the host may open any of them,
// so a secret among them is a sensitive read whatever the tool is. It
// reads in and, below it, nested objects and arrays ({"urls":[…]},
// {"edits":[{"file_path":…}]}, {"args":{"path":…}}) from depth on: a value
// the host opens is one whatever its depth. Known path keys are skipped
// only at the top, where paths reads them.
func (fl *factLog) otherPaths(in map[string]any, cwd string, depth int) {
	if depth > maxInputDepth { // commandInInput makes what lies below human-only
		return
	}
	for _, k := range sortedKeys(in) {
		v := in[k]
		if depth == 0 {
			if _, known := keyRank[normKey(k)]; known {
				continue // read by paths
			}
		}
		var strs []string
		switch x := v.(type) {
		case string:
			strs = []string{x}
		case map[string]any:
			fl.otherPaths(x, cwd, depth+1)
		case []any:
			for _, e := range x {
				switch y := e.(type) {
				case string:
					strs = append(strs, y)
				case map[string]any:
					fl.otherPaths(y, cwd, depth+1)
				}
			}
		}
		for _, s := range strs {
			fl.otherPath(s, cwd)
		}
	}
}

// otherPath reads one string value that may name a file or a URL.
func (fl *factLog) otherPath(s, cwd string) {
	if len(s) > 4096 || strings.ContainsAny(s, "\n\x00") {
		return
	}
	if u, err := url.Parse(s); err == nil && (u.Scheme == "http" || u.Scheme == "https") && metadataHost(u.Hostname()) {
		// an MCP fetch tool allowed by name must not fetch credentials
		fl.add(&rfact{kind: protocol.FactNetwork, host: strings.ToLower(u.Hostname()), parent: -1})
		return
	}
	if !(strings.HasPrefix(s, "/") || strings.HasPrefix(s, "~") || strings.HasPrefix(s, "../") || strings.HasPrefix(strings.ToLower(s), "file:")) {
		return
	}
	p, isPath := uriPath(s)
	if !isPath {
		return
	}
	if r := fl.resolve(p, cwd, true, true); fl.sensitive(r) {
		fl.readFact(r, -1, false)
	}
}

// patchText is the patch of an apply_patch input: every key a host may
// read it from, not only the first.
func patchText(in map[string]any, rawStr string) string {
	if in == nil {
		return rawStr
	}
	var parts []string
	for _, k := range []string{"input", "patch", "patchText", "patch_text", "diff", "content"} {
		if s, ok := in[k].(string); ok {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// patchPaths finds the files a patch text touches and adds their write
// (or delete) facts, under fact parent (-1: the call itself).
func (fl *factLog) patchPaths(text string, sc *scope, parent int) []pathRef {
	var out []pathRef
	// the hunk lines of a package.json being changed, to check its scripts
	var pkg []int // its write facts (--- and +++ name it twice)
	var pkgPath string
	var news, olds []string
	endPkg := func() {
		if len(pkg) > 0 && (touchesScripts(news) || editsScripts(pkgPath, olds, news)) {
			for _, i := range pkg {
				scriptsWrite(fl.facts[i])
			}
		}
		pkg, pkgPath, news, olds = nil, "", nil, nil
	}
	defer endPkg()
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if len(pkg) > 0 && !strings.HasPrefix(line, "+++ ") && !strings.HasPrefix(line, "--- ") {
			switch {
			case strings.HasPrefix(line, "+"):
				news = append(news, line[1:])
			case strings.HasPrefix(line, "-"):
				olds = append(olds, line[1:])
			}
		}
		var p string
		del := false
		hdr := line
		if t := strings.TrimLeft(line, " \t"); strings.HasPrefix(t, "*** ") {
			hdr = t // Codex trims its envelope lines: "  *** Update File: .env" writes .env
		}
		for _, pre := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ", "+++ ", "--- ",
			"rename to ", "rename from ", "copy to ", "copy from "} {
			if strings.HasPrefix(hdr, pre) {
				p = strings.TrimSpace(strings.TrimPrefix(hdr, pre))
				del = pre == "*** Delete File: "
			}
		}
		if p == "" || p == "/dev/null" {
			continue
		}
		if strings.HasPrefix(line, "+++ ") || strings.HasPrefix(line, "--- ") {
			if p[0] == '"' {
				// git quotes a name with unusual characters, C-style
				if end := strings.LastIndexByte(p, '"'); end > 0 {
					if u, err := strconv.Unquote(p[:end+1]); err == nil {
						p = u
					} else {
						p = p[1:end]
					}
				}
			} else {
				p = strings.Fields(p)[0]
			}
			p = strings.TrimPrefix(strings.TrimPrefix(p, "a/"), "b/")
		}
		r := fl.resolvePath(p, sc.cwd, true)
		if del {
			fl.deleteWord(word{val: p}, sc, parent, rmRecursive)
		} else if i := fl.writeFact(r, parent); i >= 0 && isPackageJSON(r) {
			if r.real != pkgPath {
				endPkg()
				pkgPath = r.real
			}
			pkg = append(pkg, i)
		} else if strings.HasPrefix(line, "*** ") || strings.HasPrefix(line, "+++ ") {
			endPkg() // the next file's hunks
		}
		out = append(out, r)
	}
	return out
}

// patchInput reads the patches a git apply or patch call applies, where
// the gate can see them: files written earlier in this command (cat >
// h.patch <<EOF … git apply h.patch) or its stdin, a here-document or
// printf's output (with no patch file, or "-"). The files they name are
// its writes. It reports whether it saw every patch the call applies.
func (a *analyzer) patchInput(files []word, sc *scope, idx int) (all bool) {
	stdin, all := len(files) == 0, true
	for _, w := range files {
		if w.val == "-" {
			stdin = true
		} else if text, ok := a.written[a.resolvePath(w.val, sc.cwd, false).abs]; ok && !w.dyn {
			a.patchPaths(text, sc, idx)
		} else {
			all = false
		}
	}
	if in := a.stdin; stdin && in != nil {
		a.stdin = nil
		a.patchPaths(in.text, sc, idx)
		all = all && in.known
	} else if stdin {
		all = false
	}
	return all
}

// isPackageJSON reports a package.json: its scripts run on npm test,
// npm install and more.
func isPackageJSON(r pathRef) bool {
	return strings.EqualFold(filepath.Base(r.abs), "package.json") || !r.known && strings.EqualFold(filepath.Base(r.raw), "package.json")
}

// scriptsWrite makes write fact f a persistence write of package.json
// scripts (unless something stronger already holds).
func scriptsWrite(f *rfact) {
	if f.floor == nil && f.human == nil {
		f.human = reason("human.persistence-write", "changes package.json scripts")
	}
}

// contentTexts are the new texts an edit tool's input writes.
func contentTexts(in map[string]any) []string {
	var texts []string
	for _, k := range contentKeys {
		if s, ok := in[k].(string); ok {
			texts = append(texts, s)
		}
	}
	if edits, ok := in["edits"].([]any); ok {
		for _, e := range edits {
			if m, ok := e.(map[string]any); ok {
				texts = append(texts, firstString(m, contentKeys...))
			}
		}
	}
	return texts
}

// touchesScripts reports new text that mentions package.json scripts or
// lifecycle hooks (or none known).
func touchesScripts(texts []string) bool {
	if len(texts) == 0 {
		return true
	}
	for _, t := range texts {
		// hook managers run their commands from package.json too
		for _, k := range []string{`"scripts"`, "install", "prepare", "prepublish", "postpack", "prepack",
			`"simple-git-hooks"`, `"husky"`, `"gitHooks"`, `"git-hooks"`, `"lint-staged"`, `"pre-commit"`, `"pre-push"`} {
			if strings.Contains(t, k) {
				return true
			}
		}
	}
	return false
}

// globDir is the directory part of a glob pattern before its first glob
// element, when the pattern is absolute, starts at home or climbs with ..;
// "" for patterns that stay below the search path.
func globDir(g string) string {
	if !(strings.HasPrefix(g, "/") || strings.HasPrefix(g, "~") || strings.Contains(g, "..")) {
		return ""
	}
	parts := strings.Split(g, "/")
	var keep []string
	for _, p := range parts {
		if hasGlob(p) || strings.ContainsAny(p, "{}") {
			break
		}
		keep = append(keep, p)
	}
	d := strings.Join(keep, "/")
	if d == "" && strings.HasPrefix(g, "/") {
		d = "/"
	}
	return d
}

// oldTexts are the texts an edit tool's input replaces.
func oldTexts(in map[string]any) []string {
	var olds []string
	for _, k := range []string{"old_string", "old_str", "oldText", "old_text"} {
		if s, ok := in[k].(string); ok && s != "" {
			olds = append(olds, s)
		}
	}
	if edits, ok := in["edits"].([]any); ok {
		for _, e := range edits {
			if m, ok := e.(map[string]any); ok {
				if s := firstString(m, "old_string", "old_str", "oldText", "old_text"); s != "" {
					olds = append(olds, s)
				}
			}
		}
	}
	return olds
}

// editsScripts reports an edit whose old text lies inside the "scripts"
// object of the package.json on disk ("test": "jest" → "test": "curl…|sh"
// names no lifecycle hook). A file that cannot be read or parsed counts.
func editsScripts(path string, olds, news []string) bool {
	if len(olds) == 0 {
		return false
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		// the edit finds nothing to replace here, unless the file appears
		// first: then judge the new text alone ("lodash": "4.17" is a
		// version, "test": "curl x|sh" a command)
		return scriptLike().MatchString(strings.Join(news, "\n"))
	}
	if err != nil || len(data) > 4<<20 {
		return true
	}
	start, end, ok := scriptsSpan(data)
	if !ok {
		return true
	}
	for _, o := range olds {
		// any occurrence the edit could replace that overlaps the scripts
		for off := 0; ; {
			i := bytes.Index(data[off:], []byte(o))
			if i < 0 {
				break
			}
			i += off
			if i < end && i+len(o) > start {
				return true
			}
			off = i + 1
		}
	}
	return false
}

// pkgDataKeys are package.json members that hold data, not commands npm,
// git or a hook manager runs (husky, simple-git-hooks, config and scripts
// are not among them).
var pkgDataKeys = map[string]bool{"name": true, "version": true, "description": true, "keywords": true,
	"license": true, "author": true, "contributors": true, "private": true, "type": true, "main": true,
	"module": true, "types": true, "typings": true, "exports": true, "files": true, "repository": true,
	"homepage": true, "bugs": true, "engines": true, "dependencies": true, "devDependencies": true,
	"peerDependencies": true, "optionalDependencies": true, "peerDependenciesMeta": true, "sideEffects": true}

// dataOnlyRewrite reports a whole-file write of an existing package.json
// that changes only data members (a dependency added, the version bumped):
// it keeps the scripts as they are, where the text alone names "scripts".
func dataOnlyRewrite(path string, news []string) bool {
	if len(news) != 1 {
		return false
	}
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 4<<20 {
		return false
	}
	var old, cur map[string]any
	if json.Unmarshal(data, &old) != nil || json.Unmarshal([]byte(news[0]), &cur) != nil || old == nil || cur == nil {
		return false
	}
	for _, m := range []map[string]any{old, cur} {
		for k := range m {
			if !pkgDataKeys[k] && !reflect.DeepEqual(old[k], cur[k]) {
				return false
			}
		}
	}
	return true
}

// scriptLike is a JSON member whose value reads as a shell command: a space
// or a shell metacharacter, where a dependency's value is a version; a path
// ("test": "./x.sh") or a JSON escape ("node\u0020x.js" is a space) too.
var scriptLike = lazyRE(`"[^"]+"\s*:\s*"[^"]*[ |;&$<>/\\` + "`" + `][^"]*"`)

// scriptsSpan finds the byte range of the top-level "scripts" value of a
// package.json; ok is false when the file is not a JSON object. A file
// without scripts has an empty span.
func scriptsSpan(data []byte) (int, int, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, false
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		start := int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, 0, false
		}
		if k == "scripts" {
			return start, int(dec.InputOffset()), true
		}
	}
	return 0, 0, true
}

func displayPaths(ps []pathRef) string {
	var parts []string
	for i, p := range ps {
		if i == 5 {
			parts = append(parts, "…")
			break
		}
		if p.abs != "" {
			parts = append(parts, p.abs)
		} else {
			parts = append(parts, p.raw)
		}
	}
	return strings.Join(parts, ", ")
}

// decodeObject decodes a JSON object; nil for anything but one object
// (trailing data included). A repeated key is not its concern: analyze
// makes it human-only first (duplicateKey).
func decodeObject(raw json.RawMessage) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}
