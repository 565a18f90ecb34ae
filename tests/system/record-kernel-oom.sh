#!/bin/sh
# record-kernel-oom.sh: an OOM kill in a cgroup v1 with a 32 MiB limit,
# watched by a live `faultline oom --json` and recorded (-e oom) at once:
# the report gives the trigger and victim pids, the constraint, both memcg
# paths, pages and the victim's fields of the live --json line (the
# kernel's report is recorded with printk:console); loadavg is not
# recorded (null, and said so).  Skipped (77) without a cgroup v1 memory
# controller.  The cgroup is removed at exit.  (record-kernel.sh has the
# rest of record/report.)
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/system/record-kernel-lib.sh"
need_root

OT=$(target oom-target)
[ -x "$OT" ] || fail "no target at $OT"
oom_cg faultline-record-kernel
SWAP_KB=$(awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo)
PAGES=$(((32 * 1024 + SWAP_KB) / ($(getconf PAGESIZE) / 1024)))
spawn live-oom "$FAULTLINE" oom --json
loom=$spawned
wait_ready "$T/live-oom.err" "live oom"
rec_start oom oom
timeout 60 sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$OT' --mode hog" >"$T/oom.truth" 2>&1 9>&-
trig=$(sed -n 's/.*trigger_pid=\([0-9]*\).*/\1/p' "$T/oom.truth")
vict=$(sed -n 's/.*victim_pid=\([0-9]*\).*/\1/p' "$T/oom.truth")
[ -n "$vict" ] || fail "no ground truth from oom-target: $(cat "$T/oom.truth")"
wait_until "$FL_READY_TIMEOUT" grep -q "\"victim_pid\":$vict," "$T/live-oom.out" || fail "live oom: no kill of $vict"
# The live line comes from the kernel's report in /dev/kmsg.  printk:console
# fires in printk() itself (vprintk_store), before the record reaches
# /dev/kmsg: every line of that report is in the recording's ring by now,
# and the recording's final drain reads it.
kill -INT "$rec"
rec_wait oom INT
stop_live "$loom" oom live-oom
report oom -i "$T/oom.rec" oom --json
expect_json_lines "$T/oom.out"
expect_line "^faultline oom: a recording does not hold the load average or the victim's /proc entries: not shown$" "$T/oom.err"
python3 - "$T/oom.out" "$T/live-oom.out" "$trig" "$vict" "$V1OWN/faultline-record-kernel.$$" "$PAGES" <<'EOF' || fail "report oom --json"
import json, sys
rep, live = ([json.loads(l) for l in open(f) if l.strip()] for f in sys.argv[1:3])
trig, vict, cg, pages = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], int(sys.argv[6])
r = [x for x in rep if x["victim_pid"] == vict]
l = [x for x in live if x["victim_pid"] == vict]
assert len(r) == 1 and len(l) == 1, (rep, live)
r, l = r[0], l[0]
want = {"trigger_pid": trig, "trigger_comm": "oom-target", "victim_comm": "oom-hog",
        "constraint": "CONSTRAINT_MEMCG", "constraint_inferred": False, "oom_memcg": cg,
        "task_memcg": cg, "pages": pages, "pages_from": "memcg limit", "oom_score_adj": 1000,
        "uid": 0, "shmem_rss_kb": 0, "loadavg": None,
        "source": "tracepoint oom:mark_victim + kernel log report"}
for k, v in want.items():
    assert r.get(k) == v, (k, r.get(k), v)
# Everything else is the live line's (loadavg is read live, not recorded;
# the wall-clock time of a sample is each session's own conversion).
for k in set(r) | set(l):
    if k not in ("loadavg", "time", "timestamp"):
        assert r.get(k) == l.get(k), (k, r.get(k), l.get(k))
assert abs(r["timestamp"] - l["timestamp"]) < 0.01, (r["timestamp"], l["timestamp"])
print("oom: trigger %d, victim %d, %s, %d pages, as live" % (trig, vict, cg, pages))
EOF
report oom-text -i "$T/oom.rec" oom
expect_line "^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] Triggered by PID $trig \(\"oom-target\"\), OOM kill of PID $vict \(\"oom-hog\"\), $PAGES pages, loadavg: \?\$" "$T/oom-text.out"
expect_line "^  constraint=CONSTRAINT_MEMCG oom_memcg=$V1OWN/faultline-record-kernel.$$ task_memcg=$V1OWN/faultline-record-kernel.$$\$" "$T/oom-text.out"

pass_or_fail
