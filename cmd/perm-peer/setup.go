package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/perm-peer/perm-peer/jsonedit"
	"github.com/perm-peer/perm-peer/peer/hook"
)

const setupUsage = `Usage: perm-peer setup claude-code|codex|gemini|cursor [--project DIR | --user] [--dry-run] [--remove]
       perm-peer setup zed    print Zed's agent_servers entries for the ACP proxy

A project install (the default: the git top-level of the working directory)
goes to the host's per-machine settings file where it has one (Claude Code:
.claude/settings.local.json); --user installs for every project. --remove
takes out exactly what setup added.
`

// setupRun is one `perm-peer setup HOST` invocation.
type setupRun struct {
	s       hostSetup
	exe     string
	project string // the project root; "" with --user
	file    string // the settings file
	dryRun  bool
	out     io.Writer

	final   *jsonedit.Doc // the settings as written (install)
	removed []ourHook     // the hooks taken out (remove)
	notes   []string      // what else was done or is needed, printed last
}

func (c *setupRun) note(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

func runSetup(args []string) int {
	fs := flag.NewFlagSet("setup", flag.ContinueOnError)
	project := fs.String("project", "", "install into this project (default: the git top-level of the working directory)")
	user := fs.Bool("user", false, "install into the user's settings (every project)")
	dryRun := fs.Bool("dry-run", false, "print what would change, write nothing")
	remove := fs.Bool("remove", false, "remove perm-peer's hooks (what setup added)")
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprint(os.Stderr, setupUsage+"\n")
		fs.PrintDefaults()
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fs.Usage()
		return exitUsage
	}
	name := args[0]
	pos, err := parseInterspersed(fs, args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if len(pos) > 0 {
		fmt.Fprintf(os.Stderr, "perm-peer setup: unexpected argument %q\n", pos[0])
		return exitUsage
	}
	exe, err := executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer setup: %v\n", err)
		return exitFailed
	}
	if name == "zed" {
		return printZed(os.Stdout, exe)
	}
	s, ok := setups[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "perm-peer setup: unknown host %q (claude-code, codex, gemini, cursor or zed)\n", name)
		return exitUsage
	}
	if *user && *project != "" {
		fmt.Fprintln(os.Stderr, "perm-peer setup: --project and --user exclude each other")
		return exitUsage
	}
	// What setup did is printed once every write is done, so that a reader
	// that goes away early (| head) cannot stop it half way.
	var report bytes.Buffer
	defer func() { _, _ = os.Stdout.Write(report.Bytes()) }()
	c := &setupRun{s: s, exe: exe, dryRun: *dryRun, out: &report}
	if err := c.locate(*project, *user); err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer setup: %v\n", err)
		return exitFailed
	}
	if *remove {
		err = c.remove()
	} else {
		err = c.install()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer setup: %v\n", err)
		return exitFailed
	}
	for _, n := range c.notes {
		fmt.Fprintln(c.out, n)
	}
	return exitOK
}

// executable is the running perm-peer's absolute path: the hooks run it
// without depending on PATH.
func executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the perm-peer executable: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Abs(exe)
}

// locate sets the project and the settings file setup edits. A --project
// that does not exist is refused: a typo would install the hooks in a new
// empty directory and leave the real project unguarded.
func (c *setupRun) locate(project string, user bool) error {
	if user {
		f, err := c.s.userFile()
		if err != nil {
			return fmt.Errorf("find %s's user settings: %w", c.s.label, err)
		}
		c.file = f
		return nil
	}
	root, err := projectDir(project)
	if err != nil {
		return err
	}
	c.project, c.file = root, filepath.Join(root, c.s.projectFile)
	return nil
}

// projectDir is --project, which must be an existing directory, else the
// project of the working directory.
func projectDir(flagValue string) (string, error) {
	root, err := projectRoot(flagValue)
	if err != nil {
		return "", err
	}
	if flagValue == "" {
		return hook.ProjectOf(root)
	}
	fi, err := os.Stat(root)
	if errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("project directory %s does not exist; nothing was changed", root)
	}
	if err != nil {
		return "", fmt.Errorf("project %s: %w", root, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("project %s is not a directory; nothing was changed", root)
	}
	return root, nil
}

// open reads and parses a settings file of this host.
func (c *setupRun) open(path string) (*settingsFile, *jsonedit.Doc, error) {
	f, err := readSettings(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%v; nothing was changed", err)
	}
	doc, err := jsonedit.Parse(f.data, c.s.comments)
	if err != nil {
		return nil, nil, fmt.Errorf("%s is not a JSON object setup can edit (%v); fix it or add the hooks by hand; nothing was changed", f.where(), err)
	}
	return f, doc, nil
}

func (c *setupRun) install() error {
	f, doc, err := c.open(c.file)
	if err != nil {
		return err
	}
	changes, warnings, err := c.s.install(doc, c.exe)
	if err != nil {
		return fmt.Errorf("%s: %v; nothing was changed", f.where(), err)
	}
	// Read the legacy file before writing anything: a file setup cannot
	// read stops the install whole.
	var legacy *settingsFile
	var legacyDoc *jsonedit.Doc
	if c.project != "" && c.s.legacyProjectFile != "" {
		if legacy, legacyDoc, err = c.open(filepath.Join(c.project, c.s.legacyProjectFile)); err != nil {
			return err
		}
	}
	if err := c.commit(f, doc, changes, false); err != nil {
		return err
	}
	for _, w := range warnings {
		c.note("warning: %s", w)
	}
	if legacy != nil {
		if moved, empty := c.s.uninstall(legacyDoc); len(moved) > 0 {
			if err := c.commit(legacy, legacyDoc, moved, empty); err != nil {
				return err
			}
			c.note("moved perm-peer's hooks out of %s, a file teams commit, into %s", legacy.path, c.file)
		}
	}
	if c.project != "" && c.s.sharedProject {
		c.note("note: %s is read from the project, where teams commit settings, and it runs this machine's %s: "+
			"a clone elsewhere runs without perm-peer. Keep it out of git (.git/info/exclude) or use --user.", c.file, c.exe)
	}
	if c.final, err = jsonedit.Parse(mustBytes(doc), c.s.comments); err != nil {
		return fmt.Errorf("re-read %s: %w", c.file, err)
	}
	if c.s.afterInstall != nil {
		return c.s.afterInstall(c)
	}
	return nil
}

func mustBytes(doc *jsonedit.Doc) []byte {
	b, _ := doc.Bytes()
	return b
}

// commit writes doc to f and prints what changed.
func (c *setupRun) commit(f *settingsFile, doc *jsonedit.Doc, changes []string, deleteFile bool) error {
	if len(changes) == 0 {
		fmt.Fprintf(c.out, "%s already runs perm-peer's hooks: nothing changed\n", f.where())
		return nil
	}
	if err := f.writable(); err != nil {
		return fmt.Errorf("%v; nothing was changed", err)
	}
	verb := "changed"
	if c.dryRun {
		verb = "would change"
	}
	fmt.Fprintf(c.out, "%s %s settings %s:\n", verb, c.s.label, f.where())
	for _, ch := range changes {
		fmt.Fprintln(c.out, "  "+ch)
	}
	if c.dryRun {
		return nil
	}
	if deleteFile && f.info != nil {
		fmt.Fprintf(c.out, "  nothing else was in it: removed %s\n", f.where())
		return f.remove()
	}
	out, err := doc.Bytes()
	if err != nil {
		return err
	}
	return f.write(out)
}

func (c *setupRun) remove() error {
	f, doc, err := c.open(c.file)
	if err != nil {
		return err
	}
	for _, hs := range c.s.findOurs(doc.Root().Get("hooks")) {
		c.removed = append(c.removed, hs...)
	}
	changes, empty := c.s.uninstall(doc)
	if len(changes) == 0 {
		fmt.Fprintf(c.out, "%s has no perm-peer hooks: nothing changed\n", f.where())
	} else if err := c.commit(f, doc, changes, empty); err != nil {
		return err
	}
	if c.project != "" && c.s.legacyProjectFile != "" {
		lf, ldoc, err := c.open(filepath.Join(c.project, c.s.legacyProjectFile))
		if err != nil {
			return err
		}
		if changes, empty := c.s.uninstall(ldoc); len(changes) > 0 {
			if err := c.commit(lf, ldoc, changes, empty); err != nil {
				return err
			}
		}
	}
	if c.s.afterRemove != nil && len(c.removed) > 0 {
		return c.s.afterRemove(c)
	}
	return nil
}
