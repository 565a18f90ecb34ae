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

need_root
OT=$(target oom-target)
[ -x "$OT" ] || fail "no oom-target at $OT"

run_fl oom --before 0
expect_eq "$rc" 2 "oom --before 0: exit status"
run_fl oom --timeline -G /nonexistent/cgroup 1
expect_eq "$rc" 1 "oom -G with no such cgroup: exit status"
expect_line "no cgroup '/nonexistent/cgroup'" "$T/err"

[ -r /proc/pressure/memory ] || skip "no /proc/pressure/memory (a kernel without PSI, or psi=0)"
[ -d /sys/kernel/tracing/events/vmscan/mm_vmscan_memcg_reclaim_begin ] ||
	skip "no vmscan:mm_vmscan_memcg_reclaim_begin tracepoint: no memcg reclaim to see"
MEMCG_ROOT=$(memcg_v1_root)
[ -n "$MEMCG_ROOT" ] || skip "no cgroup v1 memory controller to set a limit in"
V2_ROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
[ -n "$V2_ROOT" ] || skip "no cgroup2 mount: no per-cgroup PSI here"
block_backed_dir
CACHE=$block_dir/faultline-oom-timeline.$$.cache
CG1=$MEMCG_ROOT$(memcg_v1_own)/faultline-oom-timeline.$$
CG2=$V2_ROOT/faultline-oom-timeline.$$
mkdir "$CG1" || skip "cannot create a memory cgroup at $CG1"
mkdir "$CG2" || { rmdir "$CG1"; skip "cannot create a cgroup v2 group at $CG2"; }
trap 'st=$?; rm -f "$CACHE"; empty_cg "$CG1"; empty_cg "$CG2"; (exit $st); _fl_exit' EXIT
[ -r "$CG2/memory.pressure" ] || skip "$CG2 has no memory.pressure"
echo $((64 << 20)) >"$CG1/memory.limit_in_bytes" || skip "cannot set memory.limit_in_bytes"

totals() { awk '{ sub("total=", "", $5); printf "%s ", $5 }' "$CG2/memory.pressure"; }
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
wait "$fl"
rc=$?
expect_eq "$rc" 0 "faultline oom exit status"
expect_json_lines "$T/fl.out"
python3 - "$T/fl.out" "$vict" $before $after <<'PY' || fail "the timeline: see above"
import json, sys
kills = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pid = int(sys.argv[2])
b_some, b_full, a_some, a_full = map(int, sys.argv[3:7])
k = [x for x in kills if x["victim_pid"] == pid]
assert len(k) == 1, kills
k = k[0]
assert k["trigger_pid"] == pid and k["victim_comm"] == "oom-target" and k["trigger_comm"] == "oom-target", k
p = k["precursors"]
rows = p["rows"]
for r in rows:
    print("t %+7.2f  cg some %6d us  full %6d us  memcg reclaims %4d (%.1f ms)  avail %d kB" % (
        r["t"], r["cg_some_us"], r["cg_full_us"], r["memcg_reclaims"],
        r["memcg_reclaim_ns"] / 1e6, r["memavailable_kb"]))
print("first:", p["first"])
pre = [r for r in rows if r["t"] < 0]
assert sum(r["memcg_reclaims"] for r in pre) > 0, "no memcg reclaim before the kill"
assert sum(r["cg_some_us"] for r in pre) > 0, "no stall before the kill"
# Reclaim rising: none in the baseline rows (the cache is written, then
# the growth meets the limit only after them), then some.
assert all(r["memcg_reclaims"] == 0 for r in rows[:3]), rows[:3]
assert p["first"] and p["first"]["secs_before"] > 0, p["first"]
# The system-wide indicators move with the other tasks of this machine
# too: the first may be one of them, but never after the memcg's own.
own = [i for i, r in enumerate(rows) if r["memcg_reclaims"] or r["cg_some_us"]][0]
assert p["first"]["secs_before"] >= -rows[own]["t"] - 0.001, (p["first"], rows[own])
assert rows[-1]["t"] >= 0, "the last row ends before the kill"
some = sum(r["cg_some_us"] for r in rows)
full = sum(r["cg_full_us"] for r in rows)
print("rows: some %d us (kernel %d), full %d us (kernel %d)" % (some, a_some - b_some, full, a_full - b_full))
assert a_some > b_some
assert some == a_some - b_some and full == a_full - b_full
PY

pass_or_fail
