#!/bin/sh
# record-oom-sigkill.sh: a recording survives its recorder.  `record -e oom
# -a` runs while oom-target is OOM-killed in a cgroup v1 with a 32 MiB
# limit; the kill reaches the file while the recorder still runs (records
# are written within a second: before, nothing until 1 MiB was buffered),
# then the recorder is SIGKILLed, and `report oom` of what it left shows
# that kill (the pids oom-target printed, the memcg, the constraint), after
# saying the recording ends early.  Skipped (77) without a cgroup v1 memory
# controller.  The cgroup is removed at exit.
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/system/record-kernel-lib.sh"
need_root

OT=$(target oom-target)
[ -x "$OT" ] || fail "no target at $OT"
oom_cg faultline-oom-sigkill

spawn rec "$FAULTLINE" record -e oom -a -o "$T/k.rec"
rec=$spawned
wait_ready "$T/rec.err" "faultline record"
timeout 60 sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$OT' --mode hog" >"$T/oom.truth" 2>&1 9>&-
trig=$(sed -n 's/.*trigger_pid=\([0-9]*\).*/\1/p' "$T/oom.truth")
vict=$(sed -n 's/.*victim_pid=\([0-9]*\).*/\1/p' "$T/oom.truth")
[ -n "$vict" ] || fail "no ground truth from oom-target: $(cat "$T/oom.truth")"
# The recorder still runs: the kill must reach the file by itself.
shows_kill() {
	"$FAULTLINE" report -i "$T/k.rec" oom --json 2>/dev/null | grep -q "\"victim_pid\":$vict,"
}
wait_until 10 shows_kill || fail "the OOM kill of $vict did not reach the file within 10 s"
kill -KILL "$rec"
wait_exit "$rec" "faultline record"
expect_eq "$rc" 137 "faultline record: status after SIGKILL"

run_fl report -i "$T/k.rec" oom --json
expect_eq "$rc" 0 "report oom of the SIGKILLed recording: status"
expect_json_lines "$T/out"
expect_line "^faultline report: warning: the recording ends early at [0-9.]+ s \([0-9]+ bytes of a record cut off\): no END record$" "$T/err"
head -n 1 "$T/out" >"$T/first"
expect_line '^\{"type":"truncated","ends_at_s":[0-9.]+,"cut_bytes":[0-9]+,' "$T/first"
python3 - "$T/out" "$trig" "$vict" "$CGNAME" <<'PY' || fail "report oom --json of the SIGKILLed recording"
import json, sys
rep = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
trig, vict, cg = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
r = [x for x in rep if x.get("victim_pid") == vict]
assert len(r) == 1, rep
r = r[0]
want = {"trigger_pid": trig, "trigger_comm": "oom-target", "victim_comm": "oom-hog",
        "constraint": "CONSTRAINT_MEMCG", "oom_memcg": cg, "task_memcg": cg}
for k, v in want.items():
    assert r.get(k) == v, (k, r.get(k), v)
print("oom: trigger %d, victim %d, %s, from a SIGKILLed recording" % (trig, vict, cg))
PY
pass_or_fail
