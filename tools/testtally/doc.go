// Command testtally runs one stage of `make test` and keeps its count, so
// that the run ends with one line over every stage: `N passed, N failed`.
//
//	testtally -file F gotest  STAGE -- go test -json ...   one line per package as it ends
//	testtally -file F tap     STAGE -- node --test ...     counts the TAP summary on stdout
//	testtally -file F summary STAGE -- perm-peer eval ...  counts the last "N passed, N failed" line
//	testtally -file F exit    STAGE NAME -- CMD ...        one check: passed when CMD exits 0
//	testtally -file F total   STAGE...                     every stage's count, then the one line
//
// Each stage appends "STAGE<TAB>PASSED<TAB>FAILED" to F. A command that
// exits non-zero with no failure counted (a crash, a build error, a runner
// that died before its summary) counts as one failure: nothing fails
// silently; nor does a stage that recorded nothing. total exits 1 when
// anything failed.
package main
