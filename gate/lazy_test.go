package gate

import (
	"regexp"
	"testing"
)

// TestPatternsCompile compiles every pattern the gate builds on first use
// (lazyRE): a bad one must fail here, not in the first call that needs it.
func TestPatternsCompile(t *testing.T) {
	for i, re := range []func() *regexp.Regexp{
		chmodFlagMode,
		fdRepl,
		findRepl,
		gitCommandKey,
		gitIncludeKey,
		gitSecretKey,
		inlineDeleteArg,
		inlineEnvDump,
		inlineEnvVar,
		inlineEval,
		inlineHome,
		inlineList,
		inlineNetwork,
		inlineRecursiveDelete,
		inlineShellOut,
		inlineWrite,
		lessHarmless,
		parallelRepl,
		revShellExecRe,
		revShellRe,
		ruleHost,
		ruleRe,
		scriptLike,
		secretSearch,
		tclExec,
		templateFields,
		toolNameRe,
		uploadField,
		userinfoURL,
		anyInterface,
	} {
		if re() == nil {
			t.Errorf("pattern %d is nil", i)
		}
	}
}
