#!/bin/sh
# el7-ffaults.sh (guest, RHEL 7's 3.10): `faultline ffaults` on the rung
# 3.10 has: no filemap:mm_filemap_fault tracepoint, so every user fault
# (exceptions:page_fault_user, then the page-faults software event with
# tracepoints masked) looked up in the process's file mappings.
# fault-target maps its 16-page file (in /tmp, tmpfs) and reads one byte of
# each page.  3.10 has no fault-around (3.15+), so each page is one minor
# fault (tmpfs: never a major one): the file's row is exactly 16 faults, 0
# major, the target's own file_pages.
. "$top_srcdir/tests/system/lib.sh"
need_root
FT=$(target fault-target)
[ -d "$(tracing_dir)/events/filemap/mm_filemap_fault" ] && skip "this kernel has filemap:mm_filemap_fault: not the 3.10 rung"
for mask in "" exceptions:page_fault_user; do
	FAULTLINE_MASK=$mask run_fl ffaults -c "$FT"
	expect_eq "$rc" 0 "ffaults (mask '$mask') status"
	cat "$T/err"
	expect_line 'falling back to every user fault' "$T/err"
	expect_line 'mm_filemap_fault' "$T/err"
	pages=$(sed -n 's/^file_pages=//p' "$T/out" | head -n 1)
	expect_eq "$pages" 16 "the target's file pages"
	expect_line "^ +$pages +0 +/tmp/faultline-fault-target\.[A-Za-z0-9]+\$" "$T/out"
	expect_line '^[0-9,]+ samples, lost 0 events' "$T/out"
	echo "RESULT ffaults el7 (mask '$mask'): $(grep 'faultline-fault-target\.' "$T/out" | grep -v '=' | head -n 1) (truth: file_pages $pages)"
done
pass_or_fail
