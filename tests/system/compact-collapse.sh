#!/bin/sh
# faultline compact against thp-target, which fills 4 THP-aligned regions
# with small pages and collapses each with MADV_COLLAPSE (Linux 6.1+):
# each collapse is one huge_memory:mm_collapse_huge_page event, result
# succeeded, in the target's own task; the target's count of calls that
# returned 0, its AnonHugePages afterwards (8192 kB), and /proc/vmstat's
# thp_collapse_alloc delta (at least 4: khugepaged may collapse elsewhere)
# must agree.
. "$top_srcdir/tests/system/lib.sh"
need_root
TT=$(target thp-target)
[ -d "$(tracing_dir)/events/huge_memory/mm_collapse_huge_page" ] ||
	skip "no huge_memory:mm_collapse_huge_page tracepoint"
[ -e /sys/kernel/mm/transparent_hugepage/enabled ] || skip "no transparent huge pages"
grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled && skip "THP disabled ([never])"

before=$(awk '$1 == "thp_collapse_alloc" { print $2 }' /proc/vmstat)
run_fl compact --json -c "$TT --regions 4"
after=$(awk '$1 == "thp_collapse_alloc" { print $2 }' /proc/vmstat)
cp "$T/err" "$T/regions4.err"	# shown on a failure, with the target's errno
expect_eq "$rc" 0 "compact status"
grep -q '^collapse=unsupported' "$T/out" && skip "this kernel has no MADV_COLLAPSE (6.1+): run it in the 6.1 guest"
pid=$(sed -n 's/^pid=//p' "$T/out")
expect_eq "$(sed -n 's/^collapsed=//p' "$T/out")" 4 "the target's collapses"
expect_eq "$(sed -n 's/^anon_huge_kb=//p' "$T/out")" 8192 "the target's AnonHugePages"
expect_eq "$(grep -c "\"type\":\"collapse\",.*\"pid\":$pid,.*\"result\":\"succeeded\"" "$T/out")" 4 "collapse events"
expect_eq "$(grep -c '"type":"collapse"' "$T/out")" 4 "all collapse events"
expect_line '"type":"summary".*"collapses":4,"collapse_failed":0,.*"lost":0' "$T/out"
[ $((after - before)) -ge 4 ] || fail "thp_collapse_alloc grew by $((after - before)), want at least 4"

# Text and -s: a collapse line per region, the interval sums.
run_fl compact -c "$TT --regions 2"
expect_eq "$(grep -Ec '^thp-target +[0-9]+ +- +9 collapse +succeeded$' "$T/out")" 2 "collapse lines"
run_fl compact -s -c "$TT --regions 3"
expect_eq "$(awk '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] / { n += $5 } END { print n + 0 }' "$T/out")" 3 "-s collapses"
pass_or_fail
