// Command harness is `make bench`: it measures perm-peer side by side with
// bench/echopeer (the bare JSON-RPC floor) over the same framing — cold
// start, sequential fast-path latency, pipelined throughput, memory — and
// its sequential latency beside echopeer --commit-db (the floor that also
// commits one key durably per request), plus
// the cost of one durable bbolt commit on the same disk, the hook-per-call
// way (`perm-peer check` spawned per call), the gate's analysis rate and the
// per-turn user-rule build at 100k audit records, and prints one table with
// ratios to the floor and PASS/MISS against issue 7's targets. The table is
// the only thing written to stdout; progress goes to stderr.
package main
