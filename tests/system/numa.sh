#!/bin/sh
# faultline numa against numa-bind, which binds fresh pages to each node
# (mbind, MPOL_BIND), moves some with move_pages(2), asks the kernel where
# every page is and prints that account: the tool's pages per node for
# the target's regions must equal it exactly, its per-kind table must
# equal this test's own reading of /proc/PID/numa_maps (a -p run, the
# target held still on a FIFO), and its migrations the pages the target
# saw move.  On a machine with one node the checks of two run in the
# guest (tests/vm/numa.sh, scripts/check-vm): this test then passes its
# one-node checks and exits 77 saying so.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
NB=$(target numa-bind)
[ -r /proc/self/numa_maps ] || skip "no /proc/PID/numa_maps (a kernel without CONFIG_NUMA)"
nodes=$(python3 -c '
import sys
n = 0
for part in open("/sys/devices/system/node/online").read().strip().split(","):
    a, _, b = part.partition("-")
    n = max(n, int(b or a) + 1)
print(n)')

# check OUT [NUMA_MAPS]: OUT's JSON against the target's account in OUT
# (its regions, node counts and migrations); with NUMA_MAPS (a copy of
# the file taken while the target was held), every mapping and node row
# against that file too.
check() {
	python3 - "$@" <<'PY' || fail "numa check ($*)"
import json, sys
out = sys.argv[1]
errs, recs, regions, truth = [], [], [], {}
for line in open(out):
    if line.startswith("{"):
        recs.append(json.loads(line))
    elif line.startswith("region="):
        kv = dict(t.split("=", 1) for t in line.split())
        regions.append(kv)
    elif "=" in line and not line.startswith("faultline"):
        k, v = line.strip().split("=", 1)
        truth[k] = int(v)
maps = [r for r in recs if r["type"] == "mapping"]
nodes = [r for r in recs if r["type"] == "node"]
summ = [r for r in recs if r["type"] == "summary"]
if len(summ) != 1:
    sys.exit("%d summaries" % len(summ))
summ = summ[0]
if summ["pid"] != truth.get("pid") or summ["comm"] != "numa-bind":
    errs.append("summary %s, target pid %s" % (summ, truth.get("pid")))
if summ["bad_lines"] != 0 or summ["lost"] != 0:
    errs.append("summary %s: bad lines or lost events" % summ)
by_start = {int(m["start"], 16): m for m in maps}
if not regions:
    errs.append("the target printed no region")
for r in regions:
    m = by_start.get(int(r["start"], 16))
    want = {k[1:]: int(v) for k, v in r.items() if k.startswith("N")}
    if m is None:
        errs.append("no mapping at %s" % r["start"])
        continue
    got = {k: v for k, v in m["nodes"].items() if v}
    if got != want or m["page_kb"] * 1024 != 4096 or m["kind"] != "private":
        errs.append("region %s: %s, target says %s" % (r["start"], m, want))
for n in range(8):
    if "node%d" % n not in truth:
        continue
    got = sum(m["nodes"].get(str(n), 0) for m in maps if int(m["start"], 16) in
              [int(r["start"], 16) for r in regions])
    if got != truth["node%d" % n]:
        errs.append("node %d: %d pages of the regions, target says %d" % (n, got, truth["node%d" % n]))
kinds = ("huge", "heap", "stack", "private", "file")
for nr in nodes:
    n = str(nr["node"])
    for k in kinds:
        kb = sum(m["nodes"].get(n, 0) * m["page_kb"] for m in maps if m["kind"] == k)
        if nr[k + "_kb"] != kb:
            errs.append("node %s %s_kb %d, its mappings sum to %d" % (n, k, nr[k + "_kb"], kb))
    if nr["total_kb"] != sum(nr[k + "_kb"] for k in kinds):
        errs.append("node %s total %s" % (n, nr))
mig = [r for r in recs if r["type"] == "migrations"]
moved = sum(r["pages"] for r in mig)
if "migrations" in sys.argv[2:] and moved != truth.get("migrated"):
    errs.append("migrated %d pages by the tracepoint, target says %s (%s)" % (moved, truth.get("migrated"), mig))
if "migrations" in sys.argv[2:] and truth.get("migrated"):
    if [(r["reason"], r["pages"], r["failed"]) for r in mig] != [("syscall_or_cpuset", truth["migrated"], 0)]:
        errs.append("migrations %s, want syscall_or_cpuset only" % mig)
for path in sys.argv[2:]:
    if path == "migrations":
        continue
    # This test's own reading of the file: the same mappings, kinds and
    # pages; the node rows its sums.
    seen, sums = {}, {}
    for line in open(path):
        t = line.split()
        start, policy, kind, pkb, pages = int(t[0], 16), t[1], "private", 0, {}
        for tok in t[2:]:
            k, _, v = tok.partition("=")
            if tok in ("heap", "stack") and kind == "private":
                kind = tok
            elif tok == "huge":
                kind = "huge"
            elif k == "file" and kind != "huge":
                kind = "file"
            elif k == "kernelpagesize_kB":
                pkb = int(v)
            elif k[:1] == "N" and k[1:].isdigit():
                pages[k[1:]] = int(v)
        seen[start] = (policy, kind, pkb, pages)
        for n, p in pages.items():
            sums[(n, kind)] = sums.get((n, kind), 0) + p * pkb
    mine = {int(m["start"], 16): (m["policy"], m["kind"], m["page_kb"], m["nodes"]) for m in maps}
    if mine != seen:
        diff = [s for s in set(mine) | set(seen) if mine.get(s) != seen.get(s)]
        errs.append("%d mappings differ from %s: %s" % (len(diff), path,
                    [(hex(s), mine.get(s), seen.get(s)) for s in diff[:3]]))
    for nr in nodes:
        for k in kinds:
            if nr[k + "_kb"] != sums.get((str(nr["node"]), k), 0):
                errs.append("node %s %s_kb %d, numa_maps says %d" %
                            (nr["node"], k, nr[k + "_kb"], sums.get((str(nr["node"]), k), 0)))
if errs:
    sys.exit("\n".join(errs))
PY
}

# 1. A command, held at its exit: the regions exactly, the migrations it
#    made (none on one node: move_pages to the node a page is on moves
#    nothing).
run_fl numa --json -- "$NB" --pages 64 --migrate 16
expect_eq "$rc" 0 "numa -c status"
grep '^{' "$T/out" >"$T/json"
expect_json_lines "$T/json"
check "$T/out" migrations

# 2. A running process held on its FIFO: every mapping and node figure
#    equals this test's reading of its numa_maps, taken after the run
#    (nothing of the target runs in between).
numa_held 0.2 --pages 200
check "$T/out" "$T/numa_maps"

# 3. Text: numastat -p's table; -v's mapping rows (the region bound to
#    node 0 with its 64 pages).
run_fl numa -v -c "$NB --pages 64"
expect_eq "$rc" 0 "numa text status"
pid=$(sed -n 's/^pid=//p' "$T/out")
start=$(sed -n 's/^region=0 start=0x\([0-9a-f]*\) .*/\1/p' "$T/out")
expect_line "^Per-node process memory usage \(in MBs\) for PID $pid \(numa-bind\)$" "$T/out"
expect_line "^ {17}( {10}Node [0-9]+)+ {11}Total$" "$T/out"
expect_line "^Private( +[0-9]+\.[0-9]{2})+$" "$T/out"
expect_line "^Total( +[0-9]+\.[0-9]{2})+$" "$T/out"
expect_line "^0*$start bind:0 +Private +4 +64( +0)*  $" "$T/out"
expect_line "^Page migrations by the process \(migrate:mm_migrate_pages\):$" "$T/out"
expect_line "^System-wide during the run \(/proc/vmstat\): numa_hint_faults [0-9-]+ " "$T/out"
expect_line "^Executing '.*numa-bind --pages 64' and tracing NUMA page placement" "$T/err"

# 4. The /proc/vmstat rung: the same pages, migrations only system-wide.
FAULTLINE_MASK='migrate:*' run_fl numa --json -- "$NB" --pages 32
expect_eq "$rc" 0 "numa vmstat rung status"
expect_line "falling back to /proc/PID/numa_maps; /proc/vmstat" "$T/err"
expect_line "warning: /proc/vmstat pgmigrate_\* is system-wide" "$T/err"
expect_no_line '"type":"migrations"' "$T/out"
expect_line '"system":\{"numa_hint_faults":' "$T/out"
check "$T/out"

# 5. No process named: a usage error, not every process.
run_fl numa 1
expect_eq "$rc" 2 "numa without a target"
expect_line "^faultline numa: which process\? -p PID, -c CMD or -- CMD" "$T/err"
run_fl numa -a 1
expect_eq "$rc" 2 "numa -a"

# 6. Two nodes: pages bound to each, 16 moved from node 0 to node 1.
if [ "$nodes" -ge 2 ]; then
	run_fl numa --json -- "$NB" --nodes 2 --pages 64 --migrate 16
	expect_eq "$rc" 0 "numa two nodes status"
	expect_line '^migrated=16$' "$T/out"
	check "$T/out" migrations
	pass_or_fail
fi
[ "$_fl_failed" -ne 0 ] && pass_or_fail
skip "one NUMA node here (online: $(cat /sys/devices/system/node/online)): the one-node checks passed; the two-node ones run in the guest (tests/vm/numa.sh)"
