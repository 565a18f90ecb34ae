#!/bin/sh
# features.sh (guest): what `faultline features` finds on Debian's 6.1, and
# the rung each tool takes there (the full output is in the log, printed by
# tests/vm/init before the tests).
. "$top_srcdir/tests/system/lib.sh"
need_root
run_fl features
expect_eq "$rc" 0 "features: exit"
for f in tracefs uprobes uretprobes kprobes kretprobes uprobe_pmu kprobe_pmu \
	syscall_tracepoints function_tracer; do
	expect_line "^$f +yes " "$T/out"
done
expect_line '^lockdown +none$' "$T/out"
rung() { awk -v t="$1" '$1 == t && (t != "leak" || $2 != "-k") { sub("^" t " +", ""); print; exit }' "$T/out"; }
check_rung() { # TOOL EXPECTED_PREFIX
	case $(rung "$1") in
	"$2"*) echo "ok: $1 on $2" ;;
	*) fail "$1: rung '$(rung "$1")', expected '$2'" ;;
	esac
}
check_rung cache "kprobes folio_mark_accessed, filemap_add_folio, __folio_mark_dirty, mark_buffer_dirty"
check_rung cachetop "kprobes folio_mark_accessed, filemap_add_folio, __folio_mark_dirty, mark_buffer_dirty"
check_rung oom "tracepoint oom:mark_victim"
check_rung hfaults "kprobes hugetlb_fault, do_huge_pmd_anonymous_page"
check_rung swapin "kprobe swap_readpage"
check_rung leak "uprobes+uretprobes on the allocator, syscall tracepoints"
check_rung faults "tracepoint exceptions:page_fault_user"
check_rung brk "tracepoint syscalls:sys_enter_brk"
check_rung mmap "tracepoint syscalls:sys_{enter,exit}_{mmap,munmap}"
check_rung reclaim "tracepoints vmscan:"
# 6.1 has no filemap:mm_filemap_fault (ffaults) and no mm_filemap_get_pages
# (cache's tracepoint rung, 6.11+).
check_rung ffaults "every user fault"
expect_line 'tracepoint filemap:mm_filemap_get_pages absent' "$T/out"
pass_or_fail
