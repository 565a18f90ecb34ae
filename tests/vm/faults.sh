#!/bin/sh
# faults.sh (guest): `faultline faults` on fault-target, on the tracepoint
# rung (exceptions:page_fault_user) and the software-event rung, with the
# counts fault-target's scenario makes (99 minor faults in touch_big, 32 in
# touch_anon), and --by-alloc.
. "$top_srcdir/tests/system/lib.sh"
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
run_fl faults --by-alloc -c "$FT"
expect_eq "$rc" 0 "faults --by-alloc status"
expect_line '^    fault-target \[[0-9]+\]  mmap, 1 allocation, 8388608 bytes$' "$T/out"
expect_line '^    100 faults, 100 pages \(minor 100, major 0; first touch 100, copy-on-write 0; 1 inside the allocator\)$' "$T/out"
expect_line '^    fault-target \[[0-9]+\]  mmap, made in the parent before fork$' "$T/out"
pass_or_fail
