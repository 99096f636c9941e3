package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGoTestCounts: top-level tests are counted (subtests only through
// their parent), a package failing outside any test and a build failure
// count once each, and each package gets one line.
func TestGoTestCounts(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"m/perm-peer/gate"}`,
		`{"Action":"run","Package":"m/perm-peer/gate","Test":"TestA"}`,
		`{"Action":"pass","Package":"m/perm-peer/gate","Test":"TestA/sub"}`,
		`{"Action":"pass","Package":"m/perm-peer/gate","Test":"TestA"}`,
		`{"Action":"output","Package":"m/perm-peer/gate","Test":"TestB","Output":"boom\n"}`,
		`{"Action":"fail","Package":"m/perm-peer/gate","Test":"TestB/x"}`,
		`{"Action":"fail","Package":"m/perm-peer/gate","Test":"TestB"}`,
		`{"Action":"skip","Package":"m/perm-peer/gate","Test":"TestC"}`,
		`{"Action":"fail","Package":"m/perm-peer/gate","Elapsed":1.5}`,
		`{"Action":"start","Package":"m/perm-peer/store"}`,
		`{"Action":"output","Package":"m/perm-peer/store","Output":"panic in TestMain\n"}`,
		`{"Action":"run","Package":"m/perm-peer/store","Test":"TestSlow"}`,
		`{"Action":"output","Package":"m/perm-peer/store","Test":"TestSlow","Output":"panic: test timed out after 10m0s\n"}`,
		`{"Action":"fail","Package":"m/perm-peer/store","Elapsed":0.1}`,
		`{"Action":"build-fail","Package":"m/perm-peer/judge"}`,
		`{"Action":"skip","Package":"m/perm-peer/docs"}`,
		`not json: a build error line`,
	}, "\n")
	var out bytes.Buffer
	c := readGoTest(strings.NewReader(in), &out)
	if c.passed != 1 || c.failed != 3 {
		t.Fatalf("got %+v, want 1 passed (TestA; TestC was skipped) and 3 failed (TestB, store, judge)\n%s", c, out.String())
	}
	for _, want := range []string{"FAIL  gate", "1 passed, 1 failed (1.5s)", "        boom", "FAIL  store", "panic in TestMain", "TestSlow had not finished when the package failed", "panic: test timed out after 10m0s", "FAIL  judge (build failed)", "not json: a build error line"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "docs") {
		t.Fatalf("a package with no tests got a line:\n%s", out.String())
	}
}

func TestTAPAndSummary(t *testing.T) {
	var out bytes.Buffer
	if c := readTAP(strings.NewReader("ok 1 - a\nnot ok 2 - b\n1..2\n# tests 3\n# pass 1\n# fail 1\n# cancelled 1\n# skipped 0\n"), &out); c.passed != 1 || c.failed != 2 {
		t.Fatalf("tap %+v", c)
	}
	if c := readTAP(strings.NewReader("ok 1 - a\n"), &out); c.failed != 1 {
		t.Fatalf("a TAP stream with no summary: %+v", c)
	}
	if c := readSummary(strings.NewReader("x\n3 passed, 0 failed\nfalse allows: 0\n94 passed, 2 failed\n"), &out); c.passed != 94 || c.failed != 2 {
		t.Fatalf("summary %+v", c)
	}
	if c := readSummary(strings.NewReader("nothing\n"), &out); c.failed != 1 {
		t.Fatalf("no summary line: %+v", c)
	}
}

// TestRunAndTotal: a command's exit status counts when its output does
// not (a crash with no failed test is a failure), and total sums every
// stage into the one closing line, exit 1 on any failure.
func TestRunAndTotal(t *testing.T) {
	var out bytes.Buffer
	if c, err := run("exit", "fuzz", "gate:FuzzX", []string{"true"}, &out); err != nil || c.passed != 1 || c.failed != 0 {
		t.Fatalf("exit 0: %+v %v", c, err)
	}
	if c, _ := run("exit", "fuzz", "gate:FuzzY", []string{"false"}, &out); c.passed != 0 || c.failed != 1 || len(c.failures) != 1 || c.failures[0] != "gate:FuzzY" {
		t.Fatalf("exit 1: %+v", c)
	}
	if c, _ := run("summary", "corpus", "", []string{"sh", "-c", "echo '5 passed, 0 failed'; exit 3"}, &out); c.passed != 5 || c.failed != 1 {
		t.Fatalf("a summary of no failure but exit 3: %+v", c)
	}
	file := filepath.Join(t.TempDir(), "tally")
	for _, r := range []struct {
		stage string
		c     count
	}{{"go", count{passed: 10}}, {"fuzz", count{passed: 1}}, {"fuzz", count{failed: 1, failures: []string{"gate FuzzY\nexit status 1"}}}, {"corpus", count{passed: 5}}} {
		if err := record(file, r.stage, r.c); err != nil {
			t.Fatal(err)
		}
	}
	out.Reset()
	if code := total(file, []string{"go", "corpus"}, &out); code != 1 || !strings.HasSuffix(out.String(), "\n  failed: fuzz: gate FuzzY exit status 1\n16 passed, 1 failed\n") ||
		!strings.Contains(out.String(), "fuzz         1 passed, 1 failed") {
		t.Fatalf("total: %d\n%s", code, out.String())
	}
	out.Reset()
	if code := total(filepath.Join(t.TempDir(), "none"), []string{"go", "hosts"}, &out); code != 1 || !strings.HasSuffix(out.String(), "0 passed, 2 failed\n") || !strings.Contains(out.String(), "stage hosts recorded nothing") {
		t.Fatalf("no stage: %d %s", code, out.String())
	}
	ok := filepath.Join(t.TempDir(), "ok")
	_ = record(ok, "go", count{passed: 3})
	out.Reset()
	if code := total(ok, []string{"go"}, &out); code != 0 || !strings.HasSuffix(out.String(), "\n3 passed, 0 failed\n") {
		t.Fatalf("all passed: %d %s", code, out.String())
	}
	_ = os.Remove(ok)
}

// TestFailureNames: a failed node test is named with its error's first
// line (inline or block scalar), a subtest's line is not a second name,
// and a failed Go package names its failed tests.
func TestFailureNames(t *testing.T) {
	tap := strings.Join([]string{
		"# Subtest: session",
		"    not ok 1 - inner step",
		"not ok 1 - interactive Claude Code (default): adds no dialog",
		"  ---",
		"  duration_ms: 12",
		"  failureType: 'testCodeFailure'",
		"  error: |-",
		"    sessions did not finish: without at step 31, with at step 25",
		"  code: 'ERR_ASSERTION'",
		"  ...",
		"ok 2 - fine",
		"not ok 3 - Codex: blocks",
		"  ---",
		"  error: 'Expected values to be strictly equal'",
		"  ...",
		"# pass 1", "# fail 2",
	}, "\n")
	var out bytes.Buffer
	c := readTAP(strings.NewReader(tap), &out)
	want := []string{
		"interactive Claude Code (default): adds no dialog: sessions did not finish: without at step 31, with at step 25",
		"Codex: blocks: Expected values to be strictly equal",
	}
	if c.failed != 2 || strings.Join(c.failures, "|") != strings.Join(want, "|") {
		t.Fatalf("got %d failed, names %q", c.failed, c.failures)
	}
	gotest := strings.Join([]string{
		`{"Action":"run","Package":"m/perm-peer/peer","Test":"TestB"}`,
		`{"Action":"fail","Package":"m/perm-peer/peer","Test":"TestB"}`,
		`{"Action":"run","Package":"m/perm-peer/peer","Test":"TestHung"}`,
		`{"Action":"fail","Package":"m/perm-peer/peer","Elapsed":1}`,
		`{"Action":"build-fail","Package":"m/perm-peer/judge"}`,
	}, "\n")
	g := readGoTest(strings.NewReader(gotest), &out)
	if strings.Join(g.failures, "|") != "peer TestB|peer TestHung|judge (build failed)" {
		t.Fatalf("go test names %q", g.failures)
	}
}
