package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/perm-peer/perm-peer/review"
)

const policyUsage = `usage:
  perm-peer policy lint [FILE] [--project DIR] [--json]
  perm-peer policy test [FILE] [--project DIR] [--json]

lint checks your policy (FILE instead of it, e.g. a candidate) and the
project's .perm-peer/policy.json: that they load, unknown tools, rules that
can never match or that a hard floor, a deny rule or a call only a person
may approve makes useless, duplicates, rules another one already covers, a
project file that tries to loosen, and failing examples.
test runs the files' "examples" ({"call": "npm test", "want": "allow"}, ...)
and prints each with what decided it. See docs/POLICY.md.

Exit codes: 0 clean (lint: warnings only with --strict off), 1 a problem
was found, 2 usage.`

func runPolicy(args []string) int {
	if len(args) == 0 || (args[0] != "lint" && args[0] != "test") {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Println(policyUsage)
			return exitOK
		}
		fmt.Fprintln(os.Stderr, policyUsage)
		return exitUsage
	}
	sub := args[0]
	fs := newFlags("policy " + sub)
	project := fs.String("project", "", "project (any directory inside it; default the working directory)")
	asJSON := fs.Bool("json", false, "print the results as JSON")
	strict := fs.Bool("strict", false, "lint: warnings fail too")
	pos, code, ok := parseCommand(fs, args[1:], policyUsage, atMostOne)
	if !ok {
		return code
	}
	file := ""
	if len(pos) == 1 {
		file = pos[0]
	}
	r, err := newReviewer(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer policy %s: %v\n", sub, err)
		return exitStartup
	}
	dir, err := projectRoot(*project)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer policy %s: %v\n", sub, err)
		return exitStartup
	}
	p, err := r.ProjectOf(dir)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer policy %s: %v\n", sub, err)
		return exitStartup
	}
	if sub == "lint" {
		return lintPolicy(r, p, *asJSON, *strict)
	}
	return testPolicy(r, p, *asJSON)
}

func lintPolicy(r *review.Reviewer, p review.Project, asJSON, strict bool) int {
	fs, err := r.Lint(p)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer policy lint: %v\n", err)
		return exitStartup
	}
	code := exitOK
	for _, f := range fs {
		if f.Severity == "error" || strict {
			code = exitFailed
		}
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		if fs == nil {
			fs = []review.Finding{}
		}
		_ = enc.Encode(fs)
		return code
	}
	for _, f := range fs {
		where := f.File
		if f.Line > 0 {
			where = fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		if where != "" {
			where += ": "
		}
		fmt.Printf("%s%s: %s\n", where, f.Severity, f.Message)
	}
	if len(fs) == 0 {
		fmt.Printf("%s and %s: no problems\n", r.UserPolicy(), review.ProjectPolicyPath(p.Root))
	}
	return code
}

func testPolicy(r *review.Reviewer, p review.Project, asJSON bool) int {
	rs, err := r.Examples(p)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer policy test: %v\n", err)
		return exitStartup
	}
	failed := 0
	for _, x := range rs {
		if !x.OK {
			failed++
		}
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(rs)
	} else {
		for _, x := range rs {
			mark := "ok  "
			if !x.OK {
				mark = "FAIL"
			}
			what := x.Example.Call
			if what == "" {
				what = x.Example.Tool + " " + x.Example.Path + x.Example.URL
			}
			fmt.Printf("%s %s:%d  %-40s want %-5s got %-5s (%s)\n", mark, x.File, x.Line, what, x.Example.Want, x.Got, x.Why)
		}
		if len(rs) == 0 {
			fmt.Println("no examples: add \"examples\": [{\"call\": \"npm test\", \"want\": \"allow\"}] to a policy file (docs/POLICY.md)")
		} else {
			fmt.Printf("%d examples, %d failed\n", len(rs), failed)
		}
	}
	if failed > 0 {
		return exitFailed
	}
	return exitOK
}
