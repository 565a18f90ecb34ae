#!/bin/sh
# faults.sh (guest): `faultline faults` on fault-target, on the tracepoint
# rung (exceptions:page_fault_user) and the software-event rung, with the
# counts fault-target's scenario makes (99 minor faults in touch_big, 32 in
# touch_anon); and --by-alloc on both rungs, every allocation site of the
# target exact against its own account (check_by_alloc: allocations,
# bytes, class, the faults inside each allocator call as getrusage counted
# them, the toucher's, the child's copy-on-write, the totals), and its
# text report.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
FT=$(target fault-target)
for mask in "" exceptions:page_fault_user; do
	FAULTLINE_MASK=$mask run_fl faults -c "$FT"
	expect_eq "$rc" 0 "faults (mask '$mask') status"
	expect_line '^  touch_big\+0x[0-9a-f]+ \[fault-target\]$' "$T/out"
	expect_line '^    99 \(minor 99, major 0\)$' "$T/out"
	expect_line '^PID +COMM +FAULTS +MINOR +MAJOR$' "$T/out"
	FAULTLINE_MASK=$mask run_fl faults --folded -c "$FT"
	expect_line '^fault-target;.*main;run_fault_scenario;touch_anon 32$' "$T/out"
	echo "RESULT faults (mask '$mask'): $(grep 'touch_anon 32$' "$T/out" | sed 's/.*;//')"
done
expect_line 'falling back to software events page-faults' "$T/err"
for rung in tracepoint software; do
	mask=
	[ "$rung" = software ] && mask=exceptions:page_fault_user
	FAULTLINE_MASK=$mask run_fl faults --by-alloc --json -c "$FT"
	expect_eq "$rc" 0 "faults --by-alloc --json ($rung) status"
	case $rung in
	tracepoint) expect_line 'with tracepoint exceptions:page_fault_user' "$T/err" ;;
	software) expect_line 'falling back to software events page-faults' "$T/err" ;;
	esac
	check_by_alloc "$rung" "$rung"
done
run_fl faults --by-alloc -c "$FT"
expect_eq "$rc" 0 "faults --by-alloc status"
expect_line '^    fault-target \[[0-9]+\]  mmap, 1 allocation, 8,388,608 B \(8\.00 MiB\)$' "$T/out"
expect_line '^    100 faults, 100 pages \(minor 100, major 0; first touch 100, copy-on-write 0; 1 inside the allocator\)$' "$T/out"
expect_line '^    fault-target \[[0-9]+\]  mmap, made in the parent before fork$' "$T/out"
pass_or_fail
