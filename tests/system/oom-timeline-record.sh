#!/bin/sh
# oom-timeline-record.sh: oom-timeline.sh's scenario recorded, then the
# precursor timeline from the recording.  oom-target waits at its --go
# FIFO in a cgroup v1 memcg limited to 64 MiB and a new cgroup v2 group
# (its PSI); `faultline record -e oom,reclaim -p PID` samples the /proc
# counters and that group's memory.pressure once a second into the file
# (faultline:memstat), with reclaim's vmscan events; the target writes
# 40 MiB of page cache, grows 1 MiB every 200 ms until the OOM killer
# takes it, and the recording ends with it.  `report -i FILE oom --json --timeline` must give:
#   the kill's exact pid and comm (trigger = victim = the target);
#   memcg reclaim and stall in the rows before the kill;
#   rows that are exactly the differences of the recorded samples (read
#   back with `report -i FILE script`), ending after the kill;
#   cgroup stall microseconds, some and full, adding up exactly to the
#   change of memory.pressure's totals the test reads before (a new
#   group: 0) and after the target's death.
# `report -i FILE timeline` must print the same precursors for the kill:
# its JSON object of type "precursors" with the victim's pid and comm and
# exactly oom's rows (t and every value) and first indicator, and in
# text exactly the block `report -i FILE oom --timeline` prints.
# (record-kernel-oom.sh has the rest of oom's record/report.)
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/system/oom-timeline-lib.sh"
. "$top_srcdir/tests/system/record-kernel-lib.sh"

need_root
OT=$(target oom-target)
[ -x "$OT" ] || fail "no oom-target at $OT"
oom_timeline_setup faultline-oom-timeline-rec
before=$(totals)
go_fifo go
spawn_at_fifo ot sh -c "echo \$\$ >'$CG1/cgroup.procs' && echo \$\$ >'$CG2/cgroup.procs' && exec '$OT' --mode self --cache-file '$CACHE' --cache-mib 40 --step-ms 200 --go '$fifo'"
ot=$spawned
rec_start tl oom,reclaim -p "$ot"
release "$fifo"
wait_exit "$ot" "oom-target"
expect_eq "$rc" 137 "oom-target exit status (SIGKILL by the OOM killer)"
rec_wait tl
after=$(totals)
echo "memory.pressure totals (some full): before $before, after $after"
vict=$(sed -n 's/^mode=self pid=\([0-9]*\).*/\1/p' "$T/ot.out")
[ "$vict" = "$ot" ] || fail "no ground truth from oom-target: $(cat "$T/ot.out" "$T/ot.err")"

report tl-oom -i "$T/tl.rec" oom --json --timeline --before 30
expect_json_lines "$T/tl-oom.out"
report tl-script -i "$T/tl.rec" script
grep -q 'faultline:memstat' "$T/tl-script.out" || fail "no faultline:memstat samples in the recording"
python3 "$top_srcdir/tests/system/oom-timeline-check.py" "$T/tl-oom.out" "$vict" $before $after "$T/tl-script.out" || fail "the timeline: see above"

# The same rows in report timeline, JSON and text.
report tl-tl -i "$T/tl.rec" timeline --json
expect_json_lines "$T/tl-tl.out"
python3 - "$T/tl-oom.out" "$T/tl-tl.out" "$vict" <<'PY' || fail "report timeline's precursors differ from oom --timeline's: see above"
import json, sys
oom = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
tl = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
pid = int(sys.argv[3])
k = [x for x in oom if x.get("victim_pid") == pid]
p = [x for x in tl if x.get("type") == "precursors"]
assert len(k) == 1 and len(p) == 1, (k, p)
k, p = k[0], p[0]
assert p["pid"] == pid and p["comm"] == "oom-target", p
assert len(p["rows"]) >= 5, p["rows"]
for a, b in zip(k["precursors"]["rows"], p["rows"]):
    print("oom t %+.3f timeline t %+.3f" % (a["t"], b["t"]))
assert p["rows"] == k["precursors"]["rows"], "rows"
assert p["first"] == k["precursors"]["first"] and p["before_s"] == 30, (p, k["precursors"])
print("timeline: %d precursor rows, the same as oom's; first %s" % (len(p["rows"]), p["first"]))
PY
report tl-oomtxt -i "$T/tl.rec" oom --timeline
report tl-tltxt -i "$T/tl.rec" timeline
block() { sed -n '/^  precursors, the /,/^  \(left its baseline first\|no indicator left\)/p' "$1"; }
block "$T/tl-oomtxt.out" >"$T/pre-oom"
block "$T/tl-tltxt.out" >"$T/pre-tl"
cat "$T/pre-tl"
[ "$(wc -l <"$T/pre-oom")" -ge 7 ] || fail "no precursor block in oom --timeline's text: $(cat "$T/tl-oomtxt.out")"
cmp -s "$T/pre-oom" "$T/pre-tl" || fail "report timeline's precursor block differs from oom --timeline's: $(diff "$T/pre-oom" "$T/pre-tl")"
grep -q "^OOM kill of PID $vict (\"oom-target\")" "$T/tl-tltxt.out" || fail "no kill of $vict in timeline's text"

pass_or_fail
