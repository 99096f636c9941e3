// Package cpuclock reads the CPU time the process has used, for
// benchmarks on a shared machine: wall time there depends on the other
// load, CPU time much less.
package cpuclock
