#!/bin/sh
# A drain kept from running loses nothing: each ring's watcher thread,
# pinned to the ring's CPU at a real-time priority above the drain's,
# pauses the target when the ring is half full, whatever keeps the drain
# away (on a busy host: a virtual CPU the hypervisor did not run for
# 20 ms; bench/busy-loss measured such gaps).
#
# Deterministic: the target (malloc-churn, 20,000 pairs, ~40,000 samples
# with 8 KiB stacks: ~20 rings' worth) is pinned to CPU 1, the drain
# thread (fl-drain) to CPU 0, where a SCHED_FIFO 50 busy loop keeps it
# from running at all.  Only CPU 1's watcher (fl-watch/1) can stop the
# target before its ring overflows: the test waits for the target's state
# to be T, then ends the busy loop; the drain copies the ring and lets the
# target go on.  Checked: 0 lost, the target's own counts exactly, at
# least one pause, the watchers' threads (one per CPU, SCHED_FIFO 2, the
# drain's 1).  Without the watchers the ring overflows: thousands lost.
. "$top_srcdir/tests/system/lib.sh"
need_root
MC=$(target malloc-churn)
N=20000
K=100
command -v chrt >/dev/null && command -v taskset >/dev/null || skip "needs chrt and taskset (util-linux)"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs: the drain kept off one, the target on another"
taskset -c 0,1 true 2>/dev/null || skip "CPUs 0 and 1 are not both ours to run on"

# thread FL NAME: the tid of faultline FL's thread named NAME.
thread() {
	grep -lx "$2" /proc/"$1"/task/*/comm 2>/dev/null | sed 's|^/proc/[0-9]*/task/\([0-9]*\)/comm$|\1|'
}
# policy TID: "POLICY RTPRIO" of a thread (fields 41 and 40 of stat).
policy() {
	sed 's/^[0-9]* (.*) //' "/proc/$FL/task/$1/stat" | awk '{ print $39, $38 }'
}
stopped() {
	[ "$(sed 's/^[0-9]* (.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" = T ]
}

go_fifo a
spawn fl "$FAULTLINE" leak --json -c "$MC --count $N --keep $K --go $fifo"
FL=$spawned
wait_until "$FL_READY_TIMEOUT" grep -q "^Executing '" "$T/fl.err" ||
	fail "faultline not tracing: $(tail -n 3 "$T/fl.err")"
tpid=$(pgrep -P "$FL" -x malloc-churn) || fail "no target under faultline"
drain=$(thread "$FL" fl-drain)
[ -n "$drain" ] || fail "no fl-drain thread in faultline $FL"
ncpu=$(ls /proc/"$FL"/task/*/comm | while read -r c; do cat "$c"; done | grep -c '^fl-watch/')
expect_eq "$ncpu" "$(getconf _NPROCESSORS_ONLN)" "one watcher thread per CPU"
for w in 0 1; do
	tid=$(thread "$FL" "fl-watch/$w")
	[ -n "$tid" ] || fail "no fl-watch/$w thread"
	expect_eq "$(policy "$tid")" "1 2" "fl-watch/$w: SCHED_FIFO 2"
	expect_eq "$(taskset -pc "$tid" | sed 's/.*: //')" "$w" "fl-watch/$w: pinned to CPU $w"
done
expect_eq "$(policy "$drain")" "1 1" "fl-drain: SCHED_FIFO 1"

taskset -pc 1 "$tpid" >/dev/null || fail "cannot pin the target to CPU 1"
taskset -pc 0 "$drain" >/dev/null || fail "cannot pin the drain to CPU 0"
# The busy loop, at a real-time priority above the drain's, on CPU 0: the
# drain cannot run until it ends (the kernel's RT throttling leaves its
# 5 % to the normal class, not to a lower real-time thread).
spawn hog chrt -f 50 taskset -c 0 sh -c 'while :; do :; done'
hog=$spawned
wait_until 10 sh -c "[ \"\$(sed 's/^[0-9]* (.*) //' /proc/$hog/stat | awk '{ print \$39 }')\" = 1 ]" ||
	fail "the busy loop is not real-time"
release "$fifo"
wait_until 30 stopped "$tpid" || fail "the target was never paused with the drain kept away"
kill "$hog"
wait "$hog" 2>/dev/null
wait_exit "$FL" "leak"
expect_eq "$rc" 0 "leak status"
set -- "$(leak_nums "$T/fl.out" lost allocs blocks bytes)"
expect_eq "$1" "0 $N $((N / K)) $(key_of "$T/fl.out" kept_bytes)" \
	"lost, allocations, blocks and bytes against the target's"
[ "$(summary_of "$T/fl.out" pauses)" -ge 1 ] || fail "no pause in the summary"
echo "RESULT drain-absent: $(summary_of "$T/fl.out" pauses) pauses, $(summary_of "$T/fl.out" paused_ms) ms"
pass_or_fail
