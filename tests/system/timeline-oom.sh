#!/bin/sh
# faultline report -i FILE timeline of oom-target (self) killed in a memory
# cgroup (v1, 32 MiB, made here and removed at exit, as oom.sh makes it):
# the OOM kill is in the row of the kill's time, with the exit; the top
# allocation site at the kill is grab (its 1 MiB mmaps), with as many MiB
# as regions, one per 256 pages grab touched (the last one partly); the
# fault site with the most faults before the kill is grab's.  Skipped (77)
# where no cgroup v1 memory controller is mounted or its cgroup cannot be
# made.  (timeline.sh has the rest of timeline.)
# tracefs is left without faultline probes (lib.sh checks at exit).
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.
. "$top_srcdir/tests/system/lib.sh"
need_root
OT=$(target oom-target)

MEMCG_ROOT=$(memcg_v1_root)
[ -n "$MEMCG_ROOT" ] || skip "no cgroup v1 memory controller mounted"
OWN=$(memcg_v1_own)
CG=$MEMCG_ROOT${OWN%/}/faultline-timeline.$$
mkdir "$CG" || skip "cannot create a memory cgroup at $CG"
cleanup_cg() { empty_cg "$CG"; }
at_exit 'cleanup_cg'
echo $((32 << 20)) >"$CG/memory.limit_in_bytes" || skip "cannot set memory.limit_in_bytes of $CG"

# The target moves itself into the cgroup, then becomes oom-target: the
# recorded command's pid is the victim's.  Exact figures need every
# fault: 8000 in a fraction of a second, hence the small stack copy (grab
# is two frames deep), which keeps the ASan build's reader from losing any.
run_fl record -e leak,faults,oom --call-graph dwarf,2048 -o "$T/oom.rec" -c "sh -c 'echo \$\$ >$CG/cgroup.procs && exec $OT --mode self'"
cp "$T/out" "$T/oom.truth"
cp "$T/err" "$T/oom-record.err"
expect_eq "$rc" 137 "record oom-target status (the command's: the OOM killer's SIGKILL)"
expect_line '^faultline record: [0-9,]+ samples \(0 lost\)' "$T/err"
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
# The exit ends the rows: in the kill's own interval, or (a loaded
# machine: the victim takes longer to die than one 50 ms interval) in
# one row after it that holds nothing else: a killed task faults no more.
after = rows[rows.index(k) + 1:]
if not rows[-1]["exit"] or len(after) > 1 or any(r["faults"] for r in after):
    errs.append("the exit is not the last row, right after the kill's: %s" % after)
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
