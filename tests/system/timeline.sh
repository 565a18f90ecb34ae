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
# (The OOM kill's timeline needs a cgroup v1 memory controller: it is
# timeline-oom.sh, skipped where there is none.)
# tracefs is left without faultline probes (lib.sh checks at exit).
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.
. "$top_srcdir/tests/system/lib.sh"
need_root
LT=$(target leak-target)

# 1. leak-target, one recording of leak and faults.
run_fl record -e leak,faults -o "$T/leak.rec" -c "$LT leaks"
expect_eq "$rc" 0 "record leak-target status"
expect_line '^faultline record: [0-9,]+ samples \(0 lost\)' "$T/err"
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

pass_or_fail
