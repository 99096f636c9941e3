package jsonkey

import (
	"strings"
	"testing"
)

func TestFold(t *testing.T) {
	same := [][2]string{{"command", "COMMAND"}, {"Command", "cOmMaNd"}, {"kind", "\u212Aind"}, {"paths", "path\u017F"}}
	for _, p := range same {
		if Fold(p[0]) != Fold(p[1]) {
			t.Errorf("Fold(%q) != Fold(%q)", p[0], p[1])
		}
		if !strings.EqualFold(p[0], p[1]) {
			t.Errorf("test pair %q %q is not EqualFold", p[0], p[1])
		}
	}
	for _, p := range [][2]string{{"command", "commands"}, {"path", "pa th"}, {"a", "á"}} {
		if Fold(p[0]) == Fold(p[1]) {
			t.Errorf("Fold(%q) == Fold(%q)", p[0], p[1])
		}
	}
}
