package gate

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/perm-peer/perm-peer/protocol"
)

func TestZZDebug(t *testing.T) {
	e := env(protocol.Policy{})
	for _, c := range strings.Split(os.Getenv("ZZ"), ";;") {
		v := Analyze(bash(c), e)
		fmt.Printf("%s => %s human=%v %v\n", c, v.Decision, v.HumanOnly, v.Reasons)
	}
}
