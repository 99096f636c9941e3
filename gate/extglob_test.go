package gate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestExtglob(t *testing.T) {
	for in, want := range map[string]string{".@(e)nv": ".*nv", "!(src)": "*", "a/+(x|y(z))b": "a/*b", "*.go": "*.go", "@(unclosed": "@(unclosed"} {
		got, _ := loosenExtglob(in)
		assert.Equal(t, want, got, in)
	}
	assert.Equal(t, []string{".env"}, extglobNames("+(.e)nv"))
	assert.Equal(t, []string{".env", ".env.local"}, extglobNames(".env@(|.local)"))
	assert.Equal(t, []string{".env", ".ev", "env", "ev"}, extglobNames("?(.)e?(n)v"))
	assert.Nil(t, extglobNames("!(src)"))
	assert.Equal(t, []string{"@(x"}, extglobNames("@(x"))
}
