#!/bin/sh
# compact.sh (guest): `faultline compact` on a second kernel: thp-target's
# MADV_COLLAPSE calls (6.1+) are each one collapse line of its pid,
# succeeded (or page_pmd_mapped: khugepaged was first), as many as the
# calls that returned 0; and a compact_memory write by
# the -c command is one manual run per populated zone.
. "$top_srcdir/tests/system/lib.sh"
need_root
TT=$(target thp-target)
[ -d "$(tracing_dir)/events/compaction/mm_compaction_begin" ] || skip "no compaction tracepoints"
[ -w /proc/sys/vm/compact_memory ] || skip "no /proc/sys/vm/compact_memory"
zones=$(awk '$1 == "present" && $2 > 0 { n++ } END { print n + 0 }' /proc/zoneinfo)
run_fl compact -c "sh -c 'echo 1 >/proc/sys/vm/compact_memory'"
expect_eq "$rc" 0 "compact status"
expect_eq "$(grep -Ec '^sh +[0-9]+ +[0-9]+\.[0-9][0-9] +-1 manual +[a-z_]+$' "$T/out")" "$zones" "manual runs"
echo "RESULT compact manual: $zones populated zones, $(grep -c ' manual ' "$T/out") manual runs"
if [ -d "$(tracing_dir)/events/huge_memory/mm_collapse_huge_page" ] &&
	[ -e /sys/kernel/mm/transparent_hugepage/enabled ] &&
	! grep -q '\[never\]' /sys/kernel/mm/transparent_hugepage/enabled; then
	run_fl compact -c "$TT --regions 4"
	expect_eq "$rc" 0 "compact collapse status"
	if grep -q '^collapse=unsupported' "$T/out"; then
		echo "RESULT compact collapse: no MADV_COLLAPSE on this kernel"
	else
		pid=$(sed -n 's/^pid=//p' "$T/out")
		expect_eq "$(sed -n 's/^collapsed=//p' "$T/out")" 4 "the target's collapses"
		# Under THP "always" khugepaged may collapse a region first: the
		# call then finds it PMD-mapped, which MADV_COLLAPSE counts a
		# success and the kernel reports as page_pmd_mapped (seen once).
		expect_eq "$(grep -Ec "^thp-target +$pid +- +9 collapse +(succeeded|page_pmd_mapped)\$" "$T/out")" 4 "collapse lines"
		echo "RESULT compact collapse: 4 MADV_COLLAPSE calls, $(grep -c ' collapse ' "$T/out") collapse lines, AnonHugePages $(sed -n 's/^anon_huge_kb=//p' "$T/out") kB"
	fi
fi
pass_or_fail
