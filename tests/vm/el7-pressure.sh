#!/bin/sh
# el7-pressure.sh (guest, RHEL 7's 3.10): no PSI there, and `faultline
# pressure` runs on its last rung, "nopsi" (/proc/meminfo and /proc/vmstat
# only): features shows that rung chosen, and a run says in one line that
# PSI is absent, its PSI columns "-" (JSON null), no memcg reclaim column
# (the vmscan tracepoints are the PSI rung's), and no OOM column (3.10's
# vmstat has no oom_kill).  Its values against the kernel's: pressure
# --json runs while reclaim-target, in a v1 memory cgroup limited to 4
# MiB with a zram swap (as el7-swapin.sh), pushes its 2000 pages to swap
# and reads them back (vm.page-cluster 0: one read, one major fault a
# page); the test reads /proc/vmstat before starting faultline and after
# stopping it (SIGINT: the interval in progress is printed then), and the
# intervals' swap-ins, swap-outs, major faults, direct reclaims and
# compaction stalls add up to exactly the vmstat deltas (nothing else
# swaps or reclaims in this guest); the swap-ins and major faults to the
# target's own count of the pages it read back (its getrusage), the
# swap-outs at least the pages it found in swap.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-swapin.sh"
need_root
[ -e /proc/pressure/memory ] && fail "/proc/pressure/memory exists: not the 3.10 this test is for"
RT=$(target reclaim-target)

"$FAULTLINE" features >"$T/features" 2>&1
expect_line '^pressure +/proc/meminfo and /proc/vmstat only \(loses: no PSI' "$T/features"

run_fl pressure 1 2
expect_eq "$rc" 0 "pressure: exit status"
cat "$T/err" "$T/out"
expect_eq "$(grep -c . "$T/err")" 2 "pressure: stderr lines (the fallback, the Tracing line)"
expect_line '^faultline pressure: falling back to /proc/meminfo and /proc/vmstat only \(/proc/pressure/memory unreadable' "$T/err"
expect_line '^TIME +SOME10 +FULL10 +SOME_MS +FULL_MS +AVAIL_MB +MAJFLT +SWPIN +SWPOUT +DIRECT +DIR_MS +MEMCG +MCG_MS +COMPACT +OOM$' "$T/out"
# Each interval: PSI "-", counts, DIR_MS, MEMCG and MCG_MS "-", OOM "-".
expect_eq "$(grep -cE '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] +- +- +- +- +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +- +- +- +[0-9]+ +-$' "$T/out")" 2 "pressure: interval lines"

zram_swap_cg faultline-pressure
echo $((4 << 20)) >"$CG/memory.limit_in_bytes" || fail "cannot limit $CG"

# vmstat NAME: the counter (allocstall: the sum of allocstall*, as 4.10+
# splits it by zone).
vmstat() { awk -v k="$1" '$1 == k || (k == "allocstall" && $1 ~ /^allocstall/) { s += $2 } END { print s + 0 }' /proc/vmstat; }
COUNTERS="pswpin pswpout pgmajfault allocstall compact_stall"
for c in $COUNTERS; do eval "b_$c=\$(vmstat $c)"; done
spawn pressure "$FAULTLINE" pressure --json 1
fl=$spawned
wait_ready "$T/pressure.err" "faultline pressure"
go_fifo swap
spawn_at_fifo swap sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$RT' --pageout 2000 --mlock --go '$fifo'"
tpid=$spawned
echo -1 >"$CG/memory.limit_in_bytes" || fail "cannot lift the limit of $CG"
release "$fifo"
wait_exit "$tpid" "reclaim-target"
expect_eq "$rc" 0 "reclaim-target status"
kill -INT "$fl"
rc=0
wait "$fl" || rc=$?
expect_stopped INT pressure "$T/pressure.err" "faultline pressure --json"
for c in $COUNTERS; do eval "d_$c=\$((\$(vmstat $c) - b_$c))"; done
cat "$T/pressure.out" "$T/swap.out"
# (expect_json_lines needs python3, which the guest lacks.)
expect_eq "$(grep -v -c '^{.*}$' "$T/pressure.out")" 0 "pressure --json: lines that are not one object"

# sum KEY: the intervals' KEY added up; "null" when one has it null.
sum() { sed -nE "s/.*\"$1\":([0-9]+|null)[,}].*/\1/p" "$T/pressure.out" |
	awk '$1 == "null" { n = 1 } { s += $1 } END { print n ? "null" : s + 0 }'; }
n=$(grep -c '"type":"interval"' "$T/pressure.out")
[ "$n" -ge 1 ] || fail "no interval printed"
expect_eq "$(sum psi)" null "psi (no PSI on 3.10)"
expect_eq "$(sum memcg_reclaims)" null "memcg_reclaims (none on the nopsi rung)"
expect_eq "$(sum oom_kills)" null "oom_kills (3.10's vmstat has no oom_kill)"
grep -q '^oom_kill ' /proc/vmstat && fail "/proc/vmstat has oom_kill: this test expects 3.10's"
expect_eq "$(sum pswpin)" "$d_pswpin" "swap-ins against /proc/vmstat pswpin"
expect_eq "$(sum pswpout)" "$d_pswpout" "swap-outs against /proc/vmstat pswpout"
expect_eq "$(sum major_faults)" "$d_pgmajfault" "major faults against /proc/vmstat pgmajfault"
expect_eq "$(sum direct_reclaims)" "$d_allocstall" "direct reclaims against /proc/vmstat allocstall"
expect_eq "$(sum compact_stalls)" "$d_compact_stall" "compaction stalls against /proc/vmstat compact_stall"
so=$(sed -n 's/^swapped_out=//p' "$T/swap.out")
si=$(sed -n 's/^swapped_in=//p' "$T/swap.out")
mf=$(sed -n 's/^majflt=//p' "$T/swap.out")
[ "${so:-0}" -gt 0 ] || fail "no page of the target went to swap"
expect_eq "$si" "$so" "pages swapped back in"
expect_eq "$(sum pswpin)" "$si" "swap-ins against the target's pages read back"
expect_eq "$(sum major_faults)" "$mf" "major faults against the target's getrusage"
[ "$(sum pswpout)" -ge "$so" ] || fail "swap-outs $(sum pswpout) below the $so pages the target found in swap"
echo "RESULT pressure el7: rung nopsi; $n intervals: swap-ins $(sum pswpin), swap-outs $(sum pswpout), major faults $(sum major_faults), direct reclaims $(sum direct_reclaims), compaction stalls $(sum compact_stalls); vmstat deltas $d_pswpin $d_pswpout $d_pgmajfault $d_allocstall $d_compact_stall; target: $so out, $si in, majflt $mf"
pass_or_fail
