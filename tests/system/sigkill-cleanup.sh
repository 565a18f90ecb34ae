#!/bin/sh
# SIGKILL is the one exit that cannot clean up: the probes stay, a new
# faultline warns about them, and `faultline cleanup` removes exactly those
# (never the group of a live faultline).
. "$top_srcdir/tests/system/lib.sh"
need_root
TD=$(tracing_dir) || skip "no tracefs"

group_present() { grep -q ":faultline_$1/" "$TD/uprobe_events"; }

# Uprobes only exist on the fallback rung: force it.
export FAULTLINE_MASK='syscalls:*'
# Groups that faultline processes outside this test left (another run, a
# killed session) are counted in the warning too, and cleaned with ours.
others=$("$FAULTLINE" cleanup -n | grep -c '^would remove ')
spawn victim "$FAULTLINE" mmap -a 60
victim=$spawned
# Its ready line comes once every probe is made: then count them.
wait_ready "$T/victim.err" victim
n=$(grep -c ":faultline_$victim/" "$TD/uprobe_events")
expect_eq "$n" 4 "probes of the victim (mmap/munmap entry and return)"

kill -KILL "$victim"
wait_exit "$victim" victim
group_present "$victim" || fail "SIGKILL left nothing behind: the test proves nothing"

# A live faultline beside it must survive the cleanup.
spawn live "$FAULTLINE" mmap -a 60
live=$spawned
wait_ready "$T/live.err" live
group_present "$live" || fail "live faultline never created its probes"
expect_line "warning: $((others + 1)) probe group\(s\) left by faultline processes that died" "$T/live.err"

run_fl cleanup -n
expect_eq "$rc" 0 "cleanup -n status"
expect_line "^would remove faultline_$victim: 4 probes of dead faultline process $victim$" "$T/out"
group_present "$victim" || fail "cleanup -n removed probes"

run_fl cleanup
expect_eq "$rc" 0 "cleanup status"
expect_line "^removed faultline_$victim: 4 probes of dead faultline process $victim$" "$T/out"
expect_no_line "faultline_$live" "$T/out"
group_present "$victim" && fail "cleanup left the dead process's probes"
group_present "$live" || fail "cleanup removed the probes of a live faultline"

run_fl cleanup
expect_line "^no stale faultline probes$" "$T/out"

kill -TERM "$live"
wait_exit "$live" live
expect_stopped TERM mmap "$T/live.err" "the live faultline"
group_present "$live" && fail "SIGTERM left the live faultline's probes"
pass_or_fail
