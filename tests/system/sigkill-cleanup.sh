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

# A live faultline under another name is alive too: one run through a
# symlink (its comm is the link's name, its executable the same file) and
# a copy named faultline-copy (an install under another name, as the RHEL
# 7 guest's faultline-el7): cleanup -n names neither.
ln -s "$FAULTLINE_BIN" "$T/fl" && cp "$FAULTLINE_BIN" "$T/faultline-copy" ||
	fail "cannot make the renamed faultlines"
for name in fl faultline-copy; do
	spawn "$name" "$T/$name" mmap -a 60
	eval "pid_$(echo "$name" | tr -c 'a-z\n' _)=\$spawned"
	wait_ready "$T/$name.err" "$name"
	group_present "$spawned" || fail "$name never created its probes"
done
run_fl cleanup -n
expect_eq "$rc" 0 "cleanup -n beside renamed faultlines: status"
for p in "$pid_fl" "$pid_faultline_copy" "$live"; do
	expect_no_line "faultline_$p:" "$T/out"
done
for p in "$pid_fl" "$pid_faultline_copy"; do
	kill -TERM "$p"
	wait_exit "$p" "renamed faultline $p"
	group_present "$p" && fail "SIGTERM left the probes of renamed faultline $p"
done

kill -TERM "$live"
wait_exit "$live" live
expect_stopped TERM mmap "$T/live.err" "the live faultline"
group_present "$live" && fail "SIGTERM left the live faultline's probes"
pass_or_fail
