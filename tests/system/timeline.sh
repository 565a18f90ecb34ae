#!/bin/sh
# faultline report -i FILE timeline, on recordings of targets whose memory
# is known:
# 1. leak-target (leaks): the last row of its pid has exactly the bytes
#    it says it leaked, plus the 4 DTV blocks its warm-up threads leave in
#    glibc's stack cache (leak-target.c), which `report leak` shows through
#    warm_up_threads; the faults column adds up to what `report faults`
#    gives the process; rows are in time order, the exit in the last;
#    sources not recorded (reclaim, OOM) are named once and shown as "-";
#    -p, --interval and bad input.
# 2. oom-target (self) killed in a memory cgroup (v1, 32 MiB, made here
#    and removed at exit, as oom.sh makes it): the OOM kill is in the row
#    of the kill's time, with the exit; the top allocation site at the
#    kill is grab (its 1 MiB mmaps), with as many MiB as regions, one per
#    256 pages grab touched (the last one partly); the fault site with the
#    most faults before the kill is grab's.
# tracefs is left without faultline probes (lib.sh checks at exit).
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.
. "$top_srcdir/tests/system/lib.sh"
need_root
LT=$(target leak-target)
OT=$(target oom-target)

# 1. leak-target, one recording of leak and faults.
run_fl record -e leak,faults -o "$T/leak.rec" -c "$LT leaks"
expect_eq "$rc" 0 "record leak-target status"
expect_line '^faultline record: [0-9]+ samples \(0 lost\)' "$T/err"
cp "$T/out" "$T/leak.truth"
pid=$(sed -n 's/^pid=//p' "$T/leak.truth")
[ -n "$pid" ] || fail "no pid in leak-target's truth"
run_fl report -i "$T/leak.rec" leak --json
cp "$T/out" "$T/leak.json"
run_fl report -i "$T/leak.rec" faults --json
cp "$T/out" "$T/faults.json"
run_fl report -i "$T/leak.rec" timeline --json --interval 0.01
expect_eq "$rc" 0 "timeline --json status"
expect_json_lines "$T/out"
cp "$T/out" "$T/tl.json"
python3 - "$T/tl.json" "$T/leak.truth" "$T/leak.json" "$T/faults.json" "$pid" <<'PY' || fail "leak-target timeline"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
truth = dict(l.strip().split("=", 1) for l in open(sys.argv[2]) if l.startswith("outstanding_"))
leak = [json.loads(l) for l in open(sys.argv[3]) if l.startswith("{")]
faults = [json.loads(l) for l in open(sys.argv[4]) if l.startswith("{")]
pid = int(sys.argv[5])
errs = []
head = rows[0]
if head.get("type") != "timeline" or sorted(head["not_recorded"]) != ["oom", "reclaim"]:
    errs.append("header: %s" % head)
mine = [r for r in rows if r.get("type") == "row" and r["pid"] == pid]
if not mine:
    sys.exit("no rows of pid %d" % pid)
times = [r["time"] for r in mine]
if times != sorted(set(times)):
    errs.append("rows not in time order: %s" % times)
warm = [s for s in leak if s.get("type") == "stack" and s["pid"] == pid and
        any(f["sym"].startswith("warm_up_threads+") for f in s["stack"])]
warm_bytes = sum(s["bytes"] for s in warm)
if sum(s["allocations"] for s in warm) != 4:
    errs.append("warm-up blocks: %s" % warm)
want = int(truth["outstanding_bytes"]) + warm_bytes
summary = [s for s in leak if s.get("type") == "leak_summary"][0]
last = mine[-1]
if last["outstanding_bytes"] != want or summary["outstanding_bytes"] != want:
    errs.append("last row %d bytes, leak %d, truth %s + warm-up %d" %
                (last["outstanding_bytes"], summary["outstanding_bytes"],
                 truth["outstanding_bytes"], warm_bytes))
if not last["exit"] or any(r["exit"] for r in mine[:-1]):
    errs.append("exit not in the last row only")
proc = [p for p in faults if p.get("type") == "process" and p["pid"] == pid]
if len(proc) != 1 or sum(r["faults"] for r in mine) != proc[0]["faults"]:
    errs.append("faults: timeline %d, faults %s" % (sum(r["faults"] for r in mine), proc))
if sum(r["major"] for r in mine) != proc[0]["major"]:
    errs.append("major: timeline %d, faults %d" % (sum(r["major"] for r in mine), proc[0]["major"]))
for r in mine:
    if r["reclaim_ms"] is not None or r["oom_kill"] or r["touched_kb"] > 4 * r["faults"]:
        errs.append("row: %s" % r)
if not any(r["touched_kb"] for r in mine):
    errs.append("no page touched")
if errs:
    sys.exit("; ".join(errs))
print("leak-target: %d rows, last %d bytes (truth %s + warm-up %d), %d faults" %
      (len(mine), last["outstanding_bytes"], truth["outstanding_bytes"], warm_bytes,
       proc[0]["faults"]))
PY

# Text: the header line, the table, "-" for what was not recorded.
run_fl report -i "$T/leak.rec" timeline -p "$pid"
expect_eq "$rc" 0 "timeline -p status"
expect_eq "$(grep -c '^Not recorded: ' "$T/out")" 1 "text: header lines"
expect_line '^Not recorded: reclaim \(.*\), OOM kills \(oom:mark_victim\); shown as -$' "$T/out"
expect_line "^PID $pid \(\"leak-target\"\)\$" "$T/out"
expect_line '^ +TIME\(s\) +OUTSTANDING\(B\) +TOUCHED\(KiB\) +FAULTS +MAJOR +RECLAIM\(ms\) +SWAPINS +EVENTS$' "$T/out"
expect_line "^ +0 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +- +[0-9]+  exit\$" "$T/out"
expect_eq "$(grep -c '^PID ' "$T/out")" 1 "text -p: processes"

# Bad input: one line, status 2 (usage) or 1 (no such process, no file).
for args in "--interval 0" "--interval x" "--before -1" "-p 0" "-p abc" "-T 0" "extra" "--nope"; do
	run_fl report -i "$T/leak.rec" timeline $args
	expect_eq "$rc" 2 "timeline $args: status"
	expect_eq "$(wc -l <"$T/err")" 1 "timeline $args: stderr lines"
done
run_fl report -i "$T/leak.rec" timeline -p 999999999
expect_eq "$rc" 1 "timeline -p (absent): status"
expect_line '^faultline report timeline: PID 999999999 has no events in the recording ' "$T/err"
run_fl report -i "$T/nonexistent.rec" timeline
expect_eq "$rc" 1 "timeline of a missing file: status"
expect_eq "$(wc -l <"$T/err")" 1 "timeline of a missing file: stderr lines"

# 2. An OOM kill in a memory cgroup with a low limit.
MEMCG_ROOT=$(memcg_v1_root)
[ -n "$MEMCG_ROOT" ] || { echo "timeline.sh: OOM part skipped: no cgroup v1 memory controller"; pass_or_fail; }
OWN=$(memcg_v1_own)
CG=$MEMCG_ROOT${OWN%/}/faultline-timeline.$$
mkdir "$CG" || { echo "timeline.sh: OOM part skipped: cannot create a memory cgroup at $CG"; pass_or_fail; }
cleanup_cg() { empty_cg "$CG"; }
trap 'st=$?; cleanup_cg; (exit $st); _fl_exit' EXIT
echo $((32 << 20)) >"$CG/memory.limit_in_bytes" || { echo "timeline.sh: OOM part skipped: cannot set memory.limit_in_bytes"; pass_or_fail; }

# The target moves itself into the cgroup, then becomes oom-target: the
# recorded command's pid is the victim's.  Exact figures need every
# fault: 8000 in a fraction of a second, hence the small stack copy (grab
# is two frames deep), which keeps the ASan build's reader from losing any.
run_fl record -e leak,faults,oom --call-graph dwarf,2048 -o "$T/oom.rec" -c "sh -c 'echo \$\$ >$CG/cgroup.procs && exec $OT --mode self'"
cp "$T/out" "$T/oom.truth"
cp "$T/err" "$T/oom-record.err"
expect_eq "$rc" 0 "record oom-target status"
expect_line '^faultline record: [0-9]+ samples \(0 lost\)' "$T/err"
vict=$(sed -n 's/^mode=self pid=\([0-9]*\).*/\1/p' "$T/oom.truth")
[ -n "$vict" ] || { fail "no truth from oom-target: $(cat "$T/oom.truth")"; pass_or_fail; }
grep -q '^not_killed=1' "$T/oom.truth" && fail "oom-target was not killed"
run_fl report -i "$T/oom.rec" timeline --json --interval 0.05 --before 30 -p "$vict"
expect_eq "$rc" 0 "oom timeline status"
expect_json_lines "$T/out"
cp "$T/out" "$T/oom.json"
python3 - "$T/oom.json" "$vict" <<'PY' || fail "oom-target timeline"
import json, math, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pid = int(sys.argv[2])
errs = []
rows = [o for o in objs if o.get("type") == "row"]
allocs = [o for o in objs if o.get("type") == "alloc_site"]
faults = [o for o in objs if o.get("type") == "fault_site"]
if objs[0]["not_recorded"] != ["reclaim"]:
    errs.append("header: %s" % objs[0])
if {r["pid"] for r in rows} != {pid}:
    errs.append("rows of other processes: %s" % {r["pid"] for r in rows})
kills = [r for r in rows if r["oom_kill"]]
if len(kills) != 1 or not allocs or not faults:
    sys.exit("kills %s, %d alloc sites, %d fault sites" % (kills, len(allocs), len(faults)))
k, t = kills[0], allocs[0]["kill_time"]
if not (k["time"] <= t < k["time"] + 0.05 + 1e-9) or k["trigger_pid"] != pid:
    errs.append("kill at %.6f s in the row of %.2f s: %s" % (t, k["time"], k))
if k is not rows[-1] or not k["exit"]:
    errs.append("the kill's row is not the last, with the exit: %s" % rows[-1])
names = lambda site: [f["sym"].split("+")[0] for f in site["stack"]]
top, ftop = allocs[0], faults[0]
if "grab" not in names(top)[:2] or "main" not in names(top):
    errs.append("top allocation site: %s" % names(top))
if names(ftop)[0] != "grab":
    errs.append("top fault site: %s" % names(ftop))
pages = ftop["touched_kb"] // 4
if ftop["faults"] != pages:
    errs.append("grab: %d faults, %d pages touched" % (ftop["faults"], pages))
mib = top["bytes"] >> 20
if top["bytes"] != top["allocations"] << 20 or top["allocations"] != math.ceil(pages / 256) \
        or not 24 <= mib <= 40:
    errs.append("top site %d bytes in %d allocations; grab touched %d pages" %
                (top["bytes"], top["allocations"], pages))
if sum(r["touched_kb"] for r in rows) < ftop["touched_kb"]:
    errs.append("rows touched less than grab")
if errs:
    sys.exit("; ".join(errs))
print("oom-target: killed at %.3f s, %d MiB in %d mmaps from grab, %d pages touched by grab" %
      (t, mib, top["allocations"], pages))
PY
run_fl report -i "$T/oom.rec" timeline -p "$vict"
expect_line "^ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +- +[0-9]+  oom-kill,exit\$" "$T/out"
expect_line "^OOM kill of PID $vict \(\"oom-target\"\) at [0-9.]+ s\$" "$T/out"
expect_line '^	[0-9]+ bytes in [0-9]+ allocations from stack$' "$T/out"
expect_line '^		0x[0-9a-f]+	grab\+0x[0-9a-f]+ \[oom-target\]$' "$T/out"
expect_line '^  Top [0-9]+ fault sites in the 2 s before the kill:$' "$T/out"
assert_no_stale_probes
pass_or_fail
