#!/bin/sh
# uprobe-pmu.sh: leak, brk and mmap through the perf uprobe PMU, the rung
# left when tracefs is closed (lockdown=confidentiality; the guest checks
# that for real in tests/vm/lockdown.sh): probes by perf_event_open, their
# arguments from the sampled registers.  FAULTLINE_MASK=tracefs makes this
# host look locked down (no tracefs: no tracefs uprobes and no syscall
# tracepoints, so leak's own mmap/munmap/brk come from libc's wrappers);
# FAULTLINE_MASK=uprobes leaves the syscall tracepoints.  The figures are
# the targets' own, exactly as on the tracefs rung: leak-target's every
# site (DWARF and fp), its forked child's leak (a PMU uprobe cannot be
# inherited: fork would fail with EFAULT), brk-target's 5 breaks and final
# break, mmap-target's every call, and -p of a target beside a busy
# process born before the attach.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
[ -r /sys/bus/event_source/devices/uprobe/type ] || skip "no perf uprobe PMU (/sys/bus/event_source/devices/uprobe)"
LT=$(target leak-target)

FAULTLINE_MASK=tracefs
export FAULTLINE_MASK
run_fl features
for t in leak brk mmap; do
	expect_line "^$t +perf uprobe PMU " "$T/out"
done

pmu_tools "pmu, no tracefs"
run_fl leak -T 100 -c "$LT fork"
expect_eq "$rc" 0 "leak fork status (a fork that failed makes it 1)"
child=$(sed -n 's/^child_pid=//p' "$T/out")
expect_eq "$(grep -B1 '^		0x[0-9a-f]*	child_leak+' "$T/out" | awk 'NR == 1 { print $1, $4, $10 }')" \
	"72 3 $child" "the forked child's leak (bytes allocations pid)"

# -p beside a busy allocator that started after the target (so "born
# after the target" keeps it) but before the attach: the PMU uprobes are
# every process's, and the kernel's filter names the target's threads,
# so the other process's mallocs never take ring space.  Without that
# filter this lost about a thousand events to the churn's samples.
go_fifo pmu-p
spawn_at_fifo target "$LT" leaks --go "$fifo"
tpid=$spawned
spawn churn "$(target malloc-churn)" --count 2000000000
churn=$spawned
run_fl_go "$fifo" leak -T 100 -p "$tpid"
kill "$churn" 2>/dev/null; wait "$churn" 2>/dev/null
expect_eq "$rc" 0 "leak -p status"
cat "$T/target.out" >>"$T/out"
check_sites "pmu -p, a busy allocator beside"

# Syscall tracepoints present, tracefs uprobes masked.
FAULTLINE_MASK=uprobes
run_fl leak -T 100 -c "$LT leaks"
expect_eq "$rc" 0 "leak status"
check_sites "pmu, syscall tracepoints"
unset FAULTLINE_MASK
pass_or_fail
