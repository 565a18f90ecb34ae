#!/bin/sh
# compact.sh (guest): `faultline compact` on a second kernel: thp-target's
# MADV_COLLAPSE calls (6.1+) are each one collapse line of its pid,
# succeeded, as many as the calls that returned 0 (under THP "madvise", so
# that khugepaged leaves the regions alone); and a compact_memory write by
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
	# Under THP "always" thp-target must MADV_HUGEPAGE its regions, which
	# lets khugepaged collapse one before the call scans it: the call
	# then succeeds without a collapse event (seen in CI).  Under
	# "madvise" khugepaged never scans them and only MADV_COLLAPSE (which
	# ignores the sysfs setting) collapses them.  This guest is ours.
	thp=/sys/kernel/mm/transparent_hugepage/enabled
	was=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' "$thp")
	echo madvise >"$thp" || fail "cannot set THP to madvise"
	run_fl compact -c "$TT --regions 4"
	echo "$was" >"$thp" || fail "cannot set THP back to $was"
	expect_eq "$rc" 0 "compact collapse status"
	if grep -q '^collapse=unsupported' "$T/out"; then
		echo "RESULT compact collapse: no MADV_COLLAPSE on this kernel"
	else
		pid=$(sed -n 's/^pid=//p' "$T/out")
		expect_eq "$(sed -n 's/^collapsed=//p' "$T/out")" 4 "the target's collapses"
		expect_eq "$(grep -Ec "^thp-target +$pid +- +9 collapse +succeeded\$" "$T/out")" 4 "collapse lines"
		echo "RESULT compact collapse: 4 MADV_COLLAPSE calls, $(grep -c ' collapse ' "$T/out") collapse lines, AnonHugePages $(sed -n 's/^anon_huge_kb=//p' "$T/out") kB"
	fi
fi
pass_or_fail
