// Package jsonkey says when two JSON object keys are the same key to some
// decoder. encoding/json matches a key to a struct field case-insensitively
// (Unicode simple folding: K, k and the Kelvin sign K alike), other parsers
// compare exactly, and on a repeated key they disagree on which copy wins;
// perm-peer refuses what any of them could read differently from the gate.
package jsonkey

import (
	"strings"
	"unicode"
)

// Fold maps every rune of s to the least rune of its case-folding orbit:
// two keys are equal under strings.EqualFold exactly when their folds are
// equal, so a map of folds finds the keys encoding/json would merge.
func Fold(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}
