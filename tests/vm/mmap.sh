#!/bin/sh
# mmap.sh (guest): `faultline mmap` on mmap-target, whose every call it
# prints (mmap len= prot= flags= off= addr=, munmap addr= len=): each one
# must be a line of the report with that address and length, its flags and
# offset; on the tracepoint rung with raw syscalls (--raw), and on the libc
# uprobe rung (syscalls masked) with libc's mmap/munmap.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
MT=$(target mmap-target)
run_fl mmap -c "$MT --raw"
expect_eq "$rc" 0 "mmap tracepoint status"
expect_line 'with tracepoint syscalls:sys_\{enter,exit\}_\{mmap,munmap\}' "$T/err"
check_calls tracepoint
FAULTLINE_MASK='syscalls:*' run_fl mmap -c "$MT"
expect_eq "$rc" 0 "mmap uprobe status"
expect_line 'falling back to uprobe\+uretprobe libc mmap/munmap' "$T/err"
check_calls uprobe
pass_or_fail
