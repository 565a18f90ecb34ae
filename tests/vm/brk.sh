#!/bin/sh
# brk.sh (guest): `faultline brk` on brk-target: 5 calls of 8 KiB on the
# tracepoint rung, the requested breaks and the final break exact; then the
# libc uprobe rung (syscalls masked).
. "$top_srcdir/tests/system/lib.sh"
need_root
BT=$(target brk-target)
truth() { sed -n "s/^$1=//p" "$T/out" | head -n 1; }
hex_add() { printf '0x%x\n' $(($1 + $2)); }
run_fl brk -c "$BT --count 5 --step 8192"
expect_eq "$rc" 0 "brk status"
pid=$(truth pid)
final=$(truth final_break)
expect_line "^    brk-target \[$pid\]$" "$T/out"
expect_line "^    5 calls, requested break $(hex_add "$(truth initial_break)" 8192) \.\. $final$" "$T/out"
expect_line "^$pid +brk-target +[0-9]+ 0x[0-9a-f]+ +$final " "$T/out"
expect_line "tracepoint syscalls:sys_enter_brk" "$T/err"
echo "RESULT brk tracepoint: $(grep '5 calls, requested' "$T/out")"
FAULTLINE_MASK='syscalls:*' run_fl brk --folded -c "$BT --libc"
expect_eq "$rc" 0 "brk libc rung status"
expect_line "falling back to uprobe libc brk" "$T/err"
expect_line ';grow_heap_by_sbrk;sbrk;brk 7$' "$T/out"
echo "RESULT brk uprobe: $(grep ';brk 7$' "$T/out" | sed 's/.*;//')"
pass_or_fail
