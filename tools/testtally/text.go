package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
)

var (
	tapCount  = regexp.MustCompile(`^# (pass|fail|cancelled) (\d+)$`)
	summaryRe = regexp.MustCompile(`^(\d+) passed, (\d+) failed$`)
)

// readTAP counts node's TAP summary (# pass, # fail, # cancelled, which
// is a failure). The runner's spec report goes to the terminal on stderr;
// the TAP stream is only counted. A stream with no summary is a failure.
func readTAP(r io.Reader, out io.Writer) count {
	var c count
	seen := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		m := tapCount.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		seen = true
		if m[1] == "pass" {
			c.passed += n
		} else {
			c.failed += n
		}
	}
	if !seen {
		fmt.Fprintln(out, "  FAIL  the test runner ended without a TAP summary")
		c.failed++
	}
	return c
}

// readSummary prints the command's output and counts its last
// "N passed, N failed" line; none is a failure.
func readSummary(r io.Reader, out io.Writer) count {
	var c count
	seen := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		fmt.Fprintln(out, sc.Text())
		if m := summaryRe.FindStringSubmatch(sc.Text()); m != nil {
			c.passed, _ = strconv.Atoi(m[1])
			c.failed, _ = strconv.Atoi(m[2])
			seen = true
		}
	}
	if !seen {
		fmt.Fprintln(out, `  FAIL  no "N passed, N failed" line`)
		c.failed++
	}
	return c
}
