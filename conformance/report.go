package conformance

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the vector × framing table, then each failure with its
// reason and the peer's stderr tail, then "N passed, N failed".
func (r Report) WriteTable(w io.Writer) error {
	type row struct {
		name  string
		cells map[Framing]*Result
	}
	var rows []*row
	index := map[string]*row{}
	for i := range r.Results {
		res := &r.Results[i]
		rw := index[res.Vector]
		if rw == nil {
			rw = &row{name: res.Vector, cells: map[Framing]*Result{}}
			index[res.Vector] = rw
			rows = append(rows, rw)
		}
		rw.cells[res.Framing] = res
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "VECTOR\t%s\t%s\n", strings.ToUpper(string(LSP)), strings.ToUpper(string(NDJSON)))
	for _, rw := range rows {
		fmt.Fprintf(tw, "%s", rw.name)
		for _, fr := range AllFramings {
			cell := "-"
			if res := rw.cells[fr]; res != nil {
				cell = "PASS"
				if !res.Pass {
					cell = "FAIL"
				}
			}
			fmt.Fprintf(tw, "\t%s", cell)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, res := range r.Results {
		if res.Pass {
			continue
		}
		fmt.Fprintf(w, "\nFAIL %s [%s]: %s\n  %s\n", res.Vector, res.Framing, res.Description, res.Failure)
		if res.Stderr != "" {
			fmt.Fprintf(w, "  peer stderr (tail):\n    %s\n", strings.ReplaceAll(res.Stderr, "\n", "\n    "))
		}
	}
	_, err := fmt.Fprintf(w, "\n%d passed, %d failed\n", r.Passed, r.Failed)
	return err
}

// WriteJSON prints the report as one JSON object.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
