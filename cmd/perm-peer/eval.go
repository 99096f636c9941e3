package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/perm-peer/perm-peer/gate/corpus"
	"github.com/perm-peer/perm-peer/protocol"
)

const evalUsage = `Usage: perm-peer eval CORPUS.jsonl [--json]

Decides every row of a labelled corpus through the gate, each in a fresh world
(no grants, judge off, mode ask), and scores it (SPEC §9). A row passes when
the decision is "expect" or listed in "alt"; on an "ask" row a "deny" is
over-strict (reported, not failed); with "humanOnly": true an ask must also
be human-only.

Text output lists failing and over-strict rows, figures by category and ends
with "N passed, N failed". --json prints one object per row and nothing else:
{"id","decision","risk","humanOnly","pass","overStrict","reasons"}.

Exit codes: 0 every row passed, 1 a row failed, 2 usage error, 3 unreadable corpus.
`

func runEval(args []string) int {
	fs := newFlags("eval")
	asJSON := fs.Bool("json", false, "one JSON object per row")
	var files []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				fmt.Print(evalUsage)
				return exitOK
			}
			fmt.Fprintf(os.Stderr, "perm-peer eval: %v (see perm-peer eval --help)\n", err)
			return exitUsage
		}
		args = fs.Args()
		if len(args) > 0 {
			files = append(files, args[0])
			args = args[1:]
		}
	}
	if len(files) != 1 {
		fmt.Fprint(os.Stderr, "perm-peer eval: give exactly one corpus file (see perm-peer eval --help)\n")
		return exitUsage
	}
	f, err := os.Open(files[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer eval: %v\n", err)
		return exitStartup
	}
	defer f.Close()
	rows, err := corpus.Read(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "perm-peer eval: %s: %v\n", files[0], err)
		return exitStartup
	}
	results := make([]corpus.Result, len(rows))
	for i, row := range rows {
		results[i] = corpus.Evaluate(row)
	}
	st := corpus.Summarize(rows, results)
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				fmt.Fprintf(os.Stderr, "perm-peer eval: write: %v\n", err)
				return exitFailed
			}
		}
	} else {
		printEval(os.Stdout, results, st)
	}
	if st.Failed > 0 {
		return exitFailed
	}
	return exitOK
}

func printEval(w io.Writer, results []corpus.Result, st corpus.Stats) {
	for _, r := range results {
		switch {
		case !r.Pass:
			fmt.Fprintf(w, "FAIL  %-24s %s  (%s)\n", r.ID, r.Why, firstReason(r))
		case r.OverStrict:
			what := "deny on an ask row"
			if r.Decision == protocol.DecisionAsk {
				what = "human-only on a row that says humanOnly: false"
			}
			fmt.Fprintf(w, "over  %-24s %s (%s)\n", r.ID, what, firstReason(r))
		}
	}
	fmt.Fprintln(w, "by category (passed/total):")
	for _, c := range st.Cats() {
		n := st.ByCat[c]
		name := c
		if name == "" {
			name = "(none)"
		}
		fmt.Fprintf(w, "  %-12s %d/%d\n", name, n[0], n[0]+n[1])
	}
	pct := 100.0
	if st.Benign > 0 {
		pct = 100 * float64(st.BenignAllowed) / float64(st.Benign)
	}
	fmt.Fprintf(w, "false allows: %d   floors denied: %d/%d   benign allowed: %d/%d (%.1f%%)   over-strict: %d\n",
		st.FalseAllows, st.FloorsDenied, st.Floors, st.BenignAllowed, st.Benign, pct, st.OverStrict)
	fmt.Fprintf(w, "%d passed, %d failed\n", st.Passed, st.Failed)
}

func firstReason(r corpus.Result) string {
	if len(r.Reasons) == 0 {
		return "no reason"
	}
	x := r.Reasons[0]
	s := x.Code
	if x.Rule != "" {
		s += " " + x.Rule
	}
	if x.Detail != "" {
		s += ": " + x.Detail
	}
	return s
}
