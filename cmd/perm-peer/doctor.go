package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/perm-peer/perm-peer/jsonedit"
	"github.com/perm-peer/perm-peer/store"
)

const doctorUsage = `Usage: perm-peer doctor [--project DIR]

One line for each host (installed? the binary its hooks run exists? will
the host run them?) and one for the project's audit DB (chain verified).
Exit 1 when any line is a problem or no host runs perm-peer.`

// runDoctor checks every host's installs of perm-peer's hooks (the user's
// and the project's) and the project's audit chain.
func runDoctor(args []string) int {
	fs := newFlags("doctor")
	project := fs.String("project", "", "the project (default: the git top-level of the working directory)")
	dbFlag := fs.String("db", "", "audit database path (default: the project's)")
	if _, code, ok := parseCommand(fs, args, doctorUsage, noOperands); !ok {
		return code
	}
	root, err := projectDir(*project)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer doctor: %v\n", err)
		return exitFailed
	}
	problems, installed := 0, 0
	for _, name := range setupOrder {
		ok, found, line := doctorHost(setups[name], root)
		fmt.Printf("%-8s %-12s %s\n", mark(ok, found), name, line)
		if !ok {
			problems++
		}
		if found && ok {
			installed++
		}
	}
	ok, line := doctorAudit(*dbFlag, root)
	fmt.Printf("%-8s %-12s %s\n", mark(ok, true), "audit", line)
	if !ok {
		problems++
	}
	if installed == 0 {
		fmt.Println("no host runs perm-peer: install it with perm-peer setup HOST")
		return exitFailed
	}
	if problems > 0 {
		return exitFailed
	}
	return exitOK
}

func mark(ok, found bool) string {
	switch {
	case !ok:
		return "PROBLEM"
	case !found:
		return "-"
	}
	return "ok"
}

// doctorHost checks the host's user and project installs; ok is false
// when one of them is broken.
func doctorHost(s hostSetup, project string) (ok, found bool, line string) {
	type install struct{ file, project string }
	var installs []install
	if f, err := s.userFile(); err == nil {
		installs = append(installs, install{f, ""})
	} else {
		return false, false, err.Error()
	}
	installs = append(installs, install{filepath.Join(project, s.projectFile), project})
	if s.legacyProjectFile != "" {
		installs = append(installs, install{filepath.Join(project, s.legacyProjectFile), project})
	}
	var lines []string
	ok = true
	for _, in := range installs {
		c := &setupRun{s: s, project: in.project, file: in.file}
		problems, n := c.diagnose()
		if n == 0 && len(problems) == 0 {
			continue
		}
		found = true
		if len(problems) > 0 {
			ok = false
			lines = append(lines, in.file+": "+strings.Join(problems, "; "))
			continue
		}
		lines = append(lines, fmt.Sprintf("%s: %d hooks, will run", in.file, n))
	}
	if !found {
		return true, false, "not installed"
	}
	return ok, true, strings.Join(lines, " | ")
}

// diagnose reads this install's file: how many of perm-peer's hooks it
// holds and what keeps them from running.
func (c *setupRun) diagnose() (problems []string, n int) {
	f, err := readSettings(c.file)
	if err != nil {
		return []string{err.Error()}, 0
	}
	if f.info == nil {
		return nil, 0
	}
	doc, err := jsonedit.Parse(f.data, c.s.comments)
	if err != nil {
		return []string{"not JSON the host reads: " + err.Error()}, 0
	}
	c.final = doc
	found := c.s.findOurs(doc.Root().Get("hooks"))
	if len(found) == 0 {
		return nil, 0
	}
	var missing []string
	for _, ev := range c.s.events {
		if len(found[ev]) == 0 {
			missing = append(missing, ev)
		}
		for _, h := range found[ev] {
			n++
			if p := binaryProblem(h.exe()); p != "" {
				problems = append(problems, ev+": "+p)
			}
		}
	}
	if len(missing) > 0 {
		problems = append(problems, "no perm-peer hook for "+strings.Join(missing, ", ")+" (run setup again)")
	}
	if c.project != "" && c.s.legacyProjectFile != "" && filepath.Base(c.file) == filepath.Base(c.s.legacyProjectFile) {
		problems = append(problems, "in a file teams commit, with this machine's path (run setup again to move it)")
	}
	if c.s.doctorRun != nil {
		problems = append(problems, c.s.doctorRun(c)...)
	}
	return dedupe(problems), n
}

// binaryProblem says why exe cannot run ("" when it can): the hosts treat
// a missing hook command as a non-blocking error and run the tool.
func binaryProblem(exe string) string {
	if !filepath.IsAbs(exe) {
		return "runs " + exe + ", found through PATH (setup writes an absolute path)"
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "runs " + exe + ", which does not exist: the host runs every tool unguarded"
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return "runs " + exe + ", which is not executable: the host runs every tool unguarded"
	}
	return ""
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// doctorAudit verifies the project's audit chain.
func doctorAudit(dbFlag, project string) (bool, string) {
	path, err := dbPath(dbFlag, project)
	if err != nil {
		return false, err.Error()
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return true, path + ": no records yet"
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		return false, err.Error()
	}
	defer db.Close()
	n, err := db.VerifyAudit()
	if err != nil {
		return false, fmt.Sprintf("%s: %d good records, then: %v", path, n, err)
	}
	return true, fmt.Sprintf("%s: %d records, chain ok", path, n)
}
