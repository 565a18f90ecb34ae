#!/bin/sh
# brk.sh (guest): `faultline brk` on brk-target: 5 calls of 8 KiB on the
# tracepoint rung, the requested breaks and the final break exact; then the
# libc uprobe rung (syscalls masked).
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
BT=$(target brk-target)
run_fl brk -c "$BT --count 5 --step 8192"
expect_eq "$rc" 0 "brk status"
expect_line "tracepoint syscalls:sys_enter_brk" "$T/err"
check_brk tracepoint
FAULTLINE_MASK='syscalls:*' run_fl brk --folded -c "$BT --libc"
expect_eq "$rc" 0 "brk libc rung status"
expect_line "falling back to uprobe libc brk" "$T/err"
expect_line ';grow_heap_by_sbrk;sbrk;brk 7$' "$T/out"
echo "RESULT brk uprobe: $(grep ';brk 7$' "$T/out" | sed 's/.*;//')"
pass_or_fail
