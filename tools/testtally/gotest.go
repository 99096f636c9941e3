package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// testEvent is one line of `go test -json` (cmd/test2json).
type testEvent struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

// pkgState is what one package has reported so far.
type pkgState struct {
	passed, failed int
	failedTests    map[string]bool
	unfinished     map[string]bool     // started, no result yet (a timeout or a crash ends them)
	output         map[string][]string // test ("" for the package) → its last output lines
}

// heartbeat is how often a line says what is still running, so that a
// long race-enabled package never leaves the screen silent.
var heartbeat = 60 * time.Second

// readGoTest counts top-level tests (a subtest's failure fails its
// parent), prints one line per package as it ends, with the output of
// each failed test, and a line every heartbeat for packages still running.
func readGoTest(r io.Reader, out io.Writer) count {
	var mu sync.Mutex
	pkgs := map[string]*pkgState{}
	running := map[string]time.Time{}
	var c count
	done := make(chan struct{})
	defer close(done)
	go func() {
		t := time.NewTicker(heartbeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				mu.Lock()
				var names []string
				for p, since := range running {
					names = append(names, fmt.Sprintf("%s (%s, %d passed so far)", short(p), time.Since(since).Round(time.Second), pkgs[p].passed))
				}
				sort.Strings(names)
				if len(names) > 0 {
					fmt.Fprintf(out, "  ...   still running: %s\n", strings.Join(names, ", "))
				}
				mu.Unlock()
			}
		}
	}()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e testEvent
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Package == "" {
			fmt.Fprintln(out, sc.Text()) // build output and the like
			continue
		}
		mu.Lock()
		p := pkgs[e.Package]
		if p == nil {
			p = &pkgState{failedTests: map[string]bool{}, unfinished: map[string]bool{}, output: map[string][]string{}}
			pkgs[e.Package] = p
		}
		top := e.Test != "" && !strings.Contains(e.Test, "/")
		switch {
		case e.Action == "start":
			running[e.Package] = time.Now()
		case e.Action == "run" && top:
			p.unfinished[e.Test] = true
		case e.Action == "output":
			key := e.Test
			if i := strings.Index(key, "/"); i >= 0 {
				key = key[:i]
			}
			if p.output[key] = append(p.output[key], e.Output); len(p.output[key]) > 200 {
				p.output[key] = p.output[key][1:] // the end of a long output says most
			}
		case e.Action == "pass" && top:
			p.passed++ // a skipped test is not counted as passed
			delete(p.unfinished, e.Test)
		case e.Action == "skip" && top:
			delete(p.unfinished, e.Test)
		case e.Action == "fail" && top:
			p.failed++
			p.failedTests[e.Test] = true
			delete(p.unfinished, e.Test)
		case e.Test == "" && (e.Action == "pass" || e.Action == "skip" || e.Action == "fail"):
			delete(running, e.Package)
			c.passed += p.passed
			c.failed += p.failed
			if e.Action == "fail" && p.failed == 0 {
				c.failed++ // a package that fails outside any test (TestMain, a crash, the -timeout)
				p.failedTests[""] = true
			}
			if e.Action == "fail" {
				for t := range p.unfinished { // what was running when it died
					p.failedTests[t] = true
				}
				c.failures = append(c.failures, failedNames(e.Package, p)...)
			}
			reportPackage(out, e, p)
		case e.Action == "build-fail":
			c.failed++
			c.failures = append(c.failures, short(e.Package)+" (build failed)")
			fmt.Fprintf(out, "  FAIL  %s (build failed)\n", short(e.Package))
		}
		mu.Unlock()
	}
	return c
}

func reportPackage(out io.Writer, e testEvent, p *pkgState) {
	if e.Action == "skip" && p.passed == 0 && p.failed == 0 {
		return // no test files
	}
	status := "ok  "
	if len(p.failedTests) > 0 {
		status = "FAIL"
	}
	fmt.Fprintf(out, "  %s  %-28s %d passed, %d failed (%.1fs)\n", status, short(e.Package), p.passed, p.failed, e.Elapsed)
	var names []string
	for t := range p.failedTests {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		if p.unfinished[t] {
			fmt.Fprintf(out, "        %s had not finished when the package failed:\n", t)
		}
		for _, l := range p.output[t] {
			fmt.Fprint(out, "        "+l)
		}
	}
}

// failedNames names a failed package's failed tests ("gate TestX"), the
// package alone when it failed outside any test.
func failedNames(pkg string, p *pkgState) []string {
	var names []string
	for t := range p.failedTests {
		names = append(names, strings.TrimSpace(short(pkg)+" "+t))
	}
	sort.Strings(names)
	return names
}

// short drops the module path from a package name.
func short(pkg string) string {
	if i := strings.LastIndex(pkg, "/perm-peer/"); i >= 0 {
		return pkg[i+len("/perm-peer/"):]
	}
	return pkg
}
