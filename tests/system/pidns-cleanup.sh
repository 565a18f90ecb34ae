#!/bin/sh
# pidns-cleanup.sh: a probe group's owner is judged in its own PID
# namespace.  A faultline in a container (unshare -fp --mount-proc, the
# host's tracefs) is pid 1 there: its group is faultline_1_<pidns inode>,
# never taken for the host's pid 1.  From the host, `cleanup` leaves it
# while it runs and removes it once it is SIGKILLed; from inside another
# container, the host's live group cannot be judged and is left alone.
# Skipped (77) without unshare.
. "$top_srcdir/tests/system/lib.sh"
need_root
TD=$(tracing_dir) || skip "no tracefs"
command -v unshare >/dev/null 2>&1 || skip "no unshare (util-linux)"
unshare -fp --mount-proc true 2>/dev/null || skip "unshare -fp --mount-proc refused here"

# Uprobes only exist on the fallback rung: force it.
export FAULTLINE_MASK='syscalls:*'
groups() { sed -n 's|^[^ :]*:\(faultline_[0-9_]*\)/.*|\1|p' "$TD/uprobe_events" | sort -u; }
in_ns() { unshare -fp --mount-proc "$FAULTLINE" "$@"; }

spawn host "$FAULTLINE" mmap -a 60
host=$spawned
wait_ready "$T/host.err" "host faultline"
spawn ct unshare -fp --mount-proc "$FAULTLINE" mmap -a 60
ct=$spawned
wait_ready "$T/ct.err" "container faultline"
inner=$(tr -d ' ' <"/proc/$ct/task/$ct/children")
ns=$(readlink "/proc/$inner/ns/pid" | sed -n 's/^pid:\[\([0-9]*\)\]$/\1/p')
[ -n "$ns" ] || fail "no pid namespace of the container's faultline ($inner)"
groups >"$T/groups"
expect_line "^faultline_${host}\$" "$T/groups"
expect_line "^faultline_1_${ns}\$" "$T/groups"

# Both alive: neither view finds anything stale.
run_fl cleanup -n
expect_eq "$rc" 0 "host cleanup -n: status"
expect_no_line "faultline_1_$ns|faultline_$host" "$T/out"
in_ns cleanup -n >"$T/ct-view" 2>&1 || fail "container cleanup -n: status $?"
expect_no_line "faultline_1_$ns|faultline_$host" "$T/ct-view"

# The container's faultline SIGKILLed: its namespace is gone with it.
kill -KILL "$inner"
wait_exit "$ct" "container faultline"
in_ns cleanup >"$T/ct-view" 2>&1 || fail "container cleanup: status $?"
expect_no_line "faultline_$host" "$T/ct-view"
groups >"$T/groups"
expect_line "^faultline_${host}\$" "$T/groups"
run_fl cleanup
expect_eq "$rc" 0 "host cleanup: status"
expect_line "^removed faultline_1_$ns: 4 probes of dead faultline process 1\$" "$T/out"
expect_no_line "faultline_$host" "$T/out"
groups >"$T/groups"
expect_no_line "^faultline_1_$ns\$" "$T/groups"
expect_line "^faultline_${host}\$" "$T/groups"

kill -INT "$host"
wait_exit "$host" "host faultline"
expect_stopped INT mmap "$T/host.err" "host faultline"
pass_or_fail
