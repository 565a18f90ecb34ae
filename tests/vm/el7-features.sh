#!/bin/sh
# el7-features.sh (guest, RHEL 7's 3.10): what `faultline features` finds
# there (README of ../shared/kernels/el7: tracing under debugfs only, uprobe
# and kprobe events without dynamic_events or error_log, Red Hat's backport
# of the kprobe and uprobe perf PMUs, no PSI) and the rung each tool takes.
. "$top_srcdir/tests/system/lib.sh"
need_root
run_fl features
expect_eq "$rc" 0 "features: exit"
D=/sys/kernel/debug/tracing
expect_line "^tracefs +yes +tracing dir at $D\$" "$T/out"
expect_line "^tracefs dir +$D\$" "$T/out"
for f in uprobes uretprobes kprobes kretprobes uprobe_pmu kprobe_pmu perf_events \
	syscall_tracepoints event_filters; do
	expect_line "^$f +yes " "$T/out"
done
for f in dynamic_events error_log event_triggers; do
	expect_line "^$f +no " "$T/out"
done
expect_line '^lockdown +absent$' "$T/out"
# perf_event_attr: Red Hat's backports but PERF_FORMAT_LOST (6.0), as a
# test program opening each bit found here (el7-perf-caps.sh goes on).
expect_line '^perf_event_attr +takes dummy sample_identifier mmap2 comm_exec use_clockid; lacks format_lost \(Linux 6\.0\)$' "$T/out"
rung() { awk -v t="$1" '$1 == t && (t != "leak" || $2 != "-k") { sub("^" t " +", ""); print; exit }' "$T/out"; }
check_rung() { # TOOL EXPECTED_PREFIX
	case $(rung "$1") in
	"$2"*) echo "ok: $1 on $2" ;;
	*) fail "$1: rung '$(rung "$1")', expected '$2'" ;;
	esac
}
check_rung leak "uprobes+uretprobes on the allocator, syscall tracepoints"
check_rung faults "tracepoint exceptions:page_fault_user"
check_rung brk "tracepoint syscalls:sys_enter_brk"
check_rung mmap "tracepoint syscalls:sys_{enter,exit}_{mmap,munmap}"
# 3.10's oom events have no mark_victim; its kmalloc is no folio kernel.
check_rung oom "kprobe oom_kill_process"
expect_line 'tracepoint oom:mark_victim absent' "$T/out"
check_rung cache "kprobes mark_page_accessed, add_to_page_cache_lru, account_page_dirtied, mark_buffer_dirty"
check_rung swapin "kprobe swap_readpage"
check_rung reclaim "tracepoints vmscan:"
check_rung pressure "/proc/meminfo and /proc/vmstat only"
check_rung ffaults "every user fault"
echo "RESULT features el7: $(grep -c ' yes ' "$T/out") features yes, tracing at $D"
pass_or_fail
