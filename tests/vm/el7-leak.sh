#!/bin/sh
# el7-leak.sh (guest, RHEL 7's 3.10): `faultline leak` on leak-target,
# through debugfs's uprobe_events (3.10 has no dynamic_events and no x
# fetch types): with -c, DWARF and frame-pointer stacks, and attached with
# -p (the target waits on a FIFO until faultline traces); every site's
# bytes and allocations exact, as the target prints them; -s 64 sampled in
# the kernel.  Then the perf
# uprobe PMU rung that Red Hat backported (tracefs masked), the same truth.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
LT=$(target leak-target)

leak_c_both uprobe_events "^Executing '.*leak-target leaks' and tracing allocations with uprobes\+uretprobes on the allocator, syscall tracepoints"

go_fifo leaks
spawn_at_fifo target "$LT" leaks --go "$fifo"
run_fl_go "$fifo" leak -T 100 -p "$spawned"
expect_eq "$rc" 0 "leak -p status"
wait_exit "$spawned" "leak-target"
cat "$T/target.out" >>"$T/out"
check_sites "-p"
assert_no_stale_probes

# -s 64: 3.10's uprobes read the chunk header ($retval deref) and the
# address bits (b6@7/64), and filter in the kernel.
leak_sample kernel

FAULTLINE_MASK=tracefs
export FAULTLINE_MASK
leak_c_both "uprobe PMU" '^faultline leak: falling back to perf uprobe PMU on the allocator'
unset FAULTLINE_MASK
pass_or_fail
