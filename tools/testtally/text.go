package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

var (
	tapCount  = regexp.MustCompile(`^# (pass|fail|cancelled) (\d+)$`)
	tapNotOK  = regexp.MustCompile(`^not ok \d+ - (.*)$`)
	tapError  = regexp.MustCompile(`^\s+error: (.*)$`)
	summaryRe = regexp.MustCompile(`^(\d+) passed, (\d+) failed$`)
)

// readTAP counts node's TAP summary (# pass, # fail, # cancelled, which
// is a failure) and names each failed top-level test with the first line
// of its error. The runner's spec report goes to the terminal on stderr;
// the TAP stream is only counted. A stream with no summary is a failure.
func readTAP(r io.Reader, out io.Writer) count {
	var c count
	seen := false
	failing := -1      // index in c.failures of the test whose YAML block is being read
	blockNext := false // the error is a block scalar: its text is on the next line
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := tapNotOK.FindStringSubmatch(line); m != nil {
			c.failures = append(c.failures, m[1])
			failing, blockNext = len(c.failures)-1, false
			continue
		}
		if failing >= 0 && blockNext {
			c.failures[failing] += ": " + strings.TrimSpace(line)
			failing, blockNext = -1, false
			continue
		}
		if m := tapError.FindStringSubmatch(line); m != nil && failing >= 0 {
			if v := strings.TrimSpace(m[1]); strings.HasPrefix(v, "|") || strings.HasPrefix(v, ">") {
				blockNext = true
			} else {
				c.failures[failing] += ": " + strings.Trim(v, "'\"")
				failing = -1
			}
			continue
		}
		m := tapCount.FindStringSubmatch(line)
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
