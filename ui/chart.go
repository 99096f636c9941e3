package ui

import (
	"fmt"
	"sort"
)

// The today view's timeline: one column per hour of the day, stacked by
// agent, drawn server-side as inline SVG (no script, no image file).

// chart geometry in SVG user units.
const (
	chartW      = 760
	chartH      = 170
	chartLeft   = 34 // room for the y labels
	chartBottom = 20 // room for the hour labels
	chartTop    = 8
)

// agentColors are distinct on white and for the common colour-blindnesses
// (Okabe–Ito); agents beyond them reuse the cycle.
var agentColors = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

// timeline is the chart as the template draws it.
type timeline struct {
	W, H   int
	Bars   []chartBar
	Ticks  []chartTick // hour labels under the columns
	YTicks []chartTick // count labels on the left
	Legend []legendItem
	Total  int
}

type chartBar struct {
	X, Y, W, H float64
	Fill       string
	Title      string // tooltip: "14:00–15:00 claude-code: 12"
}

type chartTick struct {
	X, Y  float64
	Label string
}

type legendItem struct {
	Agent string
	Fill  string
	Count int
}

// hourCount is how many decisions one agent had in one hour (0–23).
type hourCount struct {
	Hour  int
	Agent string
	N     int
}

// buildTimeline lays out counts. Agents are ordered by their total
// (largest first, then by name) so colours and stacking stay stable.
func buildTimeline(counts []hourCount) timeline {
	totals := map[string]int{}
	perHour := [24]int{}
	for _, c := range counts {
		if c.Hour < 0 || c.Hour > 23 || c.N <= 0 {
			continue
		}
		totals[c.Agent] += c.N
		perHour[c.Hour] += c.N
	}
	agents := make([]string, 0, len(totals))
	for a := range totals {
		agents = append(agents, a)
	}
	sort.Slice(agents, func(i, j int) bool {
		if totals[agents[i]] != totals[agents[j]] {
			return totals[agents[i]] > totals[agents[j]]
		}
		return agents[i] < agents[j]
	})
	color := map[string]string{}
	t := timeline{W: chartW, H: chartH}
	for i, a := range agents {
		color[a] = agentColors[i%len(agentColors)]
		t.Legend = append(t.Legend, legendItem{Agent: a, Fill: color[a], Count: totals[a]})
		t.Total += totals[a]
	}
	peak := 0
	for _, n := range perHour {
		peak = max(peak, n)
	}
	scale := niceCeil(peak)
	plotH := float64(chartH - chartBottom - chartTop)
	colW := float64(chartW-chartLeft) / 24
	base := float64(chartH - chartBottom)
	// Stack in legend order, bottom up.
	type cell struct {
		hour  int
		agent string
	}
	byCell := map[cell]int{}
	for _, c := range counts {
		if c.Hour >= 0 && c.Hour <= 23 && c.N > 0 {
			byCell[cell{c.Hour, c.Agent}] += c.N
		}
	}
	for h := 0; h < 24; h++ {
		x := float64(chartLeft) + float64(h)*colW
		y := base
		for _, a := range agents {
			n := byCell[cell{h, a}]
			if n == 0 {
				continue
			}
			hgt := plotH * float64(n) / float64(scale)
			y -= hgt
			t.Bars = append(t.Bars, chartBar{X: x + 2, Y: y, W: colW - 4, H: hgt, Fill: color[a],
				Title: fmt.Sprintf("%02d:00–%02d:00 %s: %d", h, (h+1)%24, a, n)})
		}
		if h%3 == 0 {
			t.Ticks = append(t.Ticks, chartTick{X: x + colW/2, Y: float64(chartH - 5), Label: fmt.Sprintf("%02d", h)})
		}
	}
	for _, v := range []int{0, scale / 2, scale} {
		t.YTicks = append(t.YTicks, chartTick{X: chartLeft - 4, Y: base - plotH*float64(v)/float64(scale) + 4, Label: fmt.Sprint(v)})
	}
	return t
}

// niceCeil rounds n up to 1, 2 or 5 times a power of ten (at least 2, so
// the half-way label is a whole number).
func niceCeil(n int) int {
	if n <= 2 {
		return 2
	}
	for p := 1; ; p *= 10 {
		for _, m := range []int{1, 2, 5} {
			if v := m * p; v >= n && v >= 2 {
				return v
			}
		}
	}
}
