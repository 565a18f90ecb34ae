#!/bin/sh
# oom-timeline.sh: faultline oom --timeline, the precursors of a real OOM
# kill.  oom-target runs in a cgroup v1 memcg limited to 64 MiB (and a
# cgroup v2 group, for its PSI): it writes 40 MiB of clean page cache,
# then grows its anonymous memory 1 MiB every 200 ms, so memcg reclaim
# takes the cache for seconds before the limit can only be met by a kill,
# after about 5 quiet seconds (the baseline: the timeline's first rows).
#
# Checks, against the target's own account and the kernel's counters read
# by the test: the kill's exact pid and comm (trigger = victim = the
# target); memcg reclaim and stall in the rows before the kill; an
# indicator named as the first to leave its baseline, before the kill;
# and the rows' cgroup stall microseconds, some and full, add up exactly
# to the change of memory.pressure's totals between the test's read
# before the run (a new group: 0) and after the target's death.
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/system/oom-timeline-lib.sh"

need_root
OT=$(target oom-target)
[ -x "$OT" ] || fail "no oom-target at $OT"

run_fl oom --before 0
expect_eq "$rc" 2 "oom --before 0: exit status"
run_fl oom --timeline -G /nonexistent/cgroup 1
expect_eq "$rc" 1 "oom -G with no such cgroup: exit status"
expect_line "no cgroup '/nonexistent/cgroup'" "$T/err"

oom_timeline_setup faultline-oom-timeline
before=$(totals)
spawn fl "$FAULTLINE" oom --json --timeline --before 30 -G "$CG2" 120
fl=$spawned
wait_ready "$T/fl.err" "oom --timeline"
timeout 60 sh -c "echo \$\$ >'$CG1/cgroup.procs' && echo \$\$ >'$CG2/cgroup.procs' && exec '$OT' --mode self --cache-file '$CACHE' --cache-mib 40 --step-ms 200" \
	>"$T/ot.truth" 2>"$T/ot.err" 9>&-
otrc=$?
after=$(totals)
echo "memory.pressure totals (some full): before $before, after $after"
expect_eq "$otrc" 137 "oom-target exit status (SIGKILL by the OOM killer)"
vict=$(sed -n 's/^mode=self pid=\([0-9]*\).*/\1/p' "$T/ot.truth")
[ -n "$vict" ] || fail "no ground truth from oom-target: $(cat "$T/ot.truth" "$T/ot.err")"
wait_until "$FL_READY_TIMEOUT" grep -q "\"victim_pid\":$vict," "$T/fl.out" ||
	fail "no kill of PID $vict reported"
kill -INT "$fl"
rc=0
wait "$fl" || rc=$?
expect_stopped INT oom "$T/fl.err" "faultline oom"
expect_json_lines "$T/fl.out"
python3 "$top_srcdir/tests/system/oom-timeline-check.py" "$T/fl.out" "$vict" $before $after || fail "the timeline: see above"

pass_or_fail
