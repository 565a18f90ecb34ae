#!/bin/sh
# cache-tracepoint.sh (guest): cache's tracepoint rung.  It needs
# filemap:mm_filemap_get_pages (6.11+); on 6.1 it cannot run, and this test
# skips with the reason `features` gives, after checking that this is the
# reason (and that, with kprobes masked, the ladder goes past it to /proc).
. "$top_srcdir/tests/system/lib.sh"
need_root
FAULTLINE_MASK=kprobes run_fl features
line=$(grep -F 'tracepoints filemap:mm_filemap_get_pages, filemap:mm_filemap_add_to_page_cache' "$T/out" | head -n 1)
case $line in
*"tracepoint filemap:mm_filemap_get_pages absent (no events/filemap/mm_filemap_get_pages/format in"*)
	expect_line '^cache +/proc/vmstat pgpgin' "$T/out" ;;
*) fail "features does not refuse the tracepoint rung for mm_filemap_get_pages: '$line'" ;;
esac
[ "$_fl_failed" -eq 0 ] || pass_or_fail
skip "cache's tracepoint rung cannot run on $(uname -r): tracepoint filemap:mm_filemap_get_pages absent (6.11+)"
