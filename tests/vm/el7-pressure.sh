#!/bin/sh
# el7-pressure.sh (guest, RHEL 7's 3.10): no PSI there.  `faultline
# pressure` says so in one line and still prints its /proc/meminfo and
# /proc/vmstat columns, each interval's MemAvailable the kernel's own.
. "$top_srcdir/tests/system/lib.sh"
need_root
[ -e /proc/pressure/memory ] && fail "/proc/pressure/memory exists: not the 3.10 this test is for"
run_fl pressure 1 2
expect_eq "$rc" 0 "pressure: exit status"
cat "$T/err" "$T/out"
expect_line 'PSI' "$T/err"
expect_eq "$(grep -c '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] ' "$T/out")" 2 "pressure: interval lines"
echo "RESULT pressure el7: $(head -n 1 "$T/err")"
pass_or_fail
