#!/bin/sh
# features.sh (guest): what `faultline features` finds on Debian's 6.1.
. "$top_srcdir/tests/system/lib.sh"
need_root
run_fl features
expect_eq "$rc" 0 "features: exit"
for f in tracefs uprobes uretprobes kprobes kretprobes uprobe_pmu kprobe_pmu function_tracer; do
	expect_line "^$f +yes " "$T/out"
done
expect_line '^lockdown +none' "$T/out"
pass_or_fail
