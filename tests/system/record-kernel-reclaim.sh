#!/bin/sh
# record-kernel-reclaim.sh: reclaim-target's memcg reclaim in a cgroup v1
# with a 16 MiB limit, traced (-p) by a live `faultline reclaim --json`
# and recorded (-e reclaim) at once: the report gives the live --json
# events, event for event (kind, pages; latency and relative time as each
# session stamps them, within 0.5 ms), at least what had to leave the
# cgroup.  The target starts its work once both sessions trace (a FIFO).
# Skipped (77) without a cgroup v1 memory controller, or where the build
# tree is tmpfs (no reclaimable page cache).  The cgroup and the file are
# removed at exit.  (record-kernel.sh has the rest of record/report.)
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/system/record-kernel-lib.sh"
need_root

RT=$(target reclaim-target)
[ -x "$RT" ] || fail "no target at $RT"
DATA=$top_builddir/.record-kernel.$$.dat
CG=
V1ROOT=$(memcg_v1_root)
V1OWN=$(memcg_v1_own)
at_exit 'empty_cg "$CG"; rm -f "$DATA"'

[ -n "$V1ROOT" ] && [ -e "$V1ROOT$V1OWN/memory.limit_in_bytes" ] ||
	skip "no cgroup v1 memory controller"
[ "$(stat -f -c %T "$top_builddir")" != tmpfs ] || skip "$top_builddir is tmpfs: no reclaimable page cache"
CG=$V1ROOT$V1OWN/faultline-record-kernel.$$
mkdir "$CG" || skip "cannot create a memory cgroup at $CG"
echo $((16 << 20)) >"$CG/memory.limit_in_bytes" || skip "cannot set memory.limit_in_bytes"
# The target waits on --go until both sessions trace.
go_fifo rt
spawn_at_fifo rt sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$RT' --file '$DATA' --mb 64 --go '$fifo'"
tpid=$(truth pid "$T/rt.out")
[ -n "$tpid" ] || fail "reclaim-target did not start: $(cat "$T/rt.err")"
spawn live-reclaim "$FAULTLINE" reclaim --json -p "$tpid"
lrec=$spawned
rec_start reclaim reclaim -p "$tpid"
wait_ready "$T/live-reclaim.err" "live reclaim"
release "$fifo"
wait_exit "$lrec" "live reclaim"
expect_eq "$rc" 0 "live reclaim exit status"
rec_wait reclaim
grep -q '^read_pages=' "$T/rt.out" || fail "reclaim-target did not finish: $(cat "$T/rt.err")"
report reclaim -i "$T/reclaim.rec" reclaim --json
expect_json_lines "$T/reclaim.out"
python3 - "$T/reclaim.out" "$T/live-reclaim.out" "$tpid" \
	"$(($(truth file_pages "$T/rt.out") + $(truth read_pages "$T/rt.out") - 2 * 16 * 256))" <<'EOF' || fail "report reclaim --json"
import json, sys
rep, live = ([json.loads(l) for l in open(f) if l.strip()] for f in sys.argv[1:3])
pid, floor = int(sys.argv[3]), int(sys.argv[4])
ev = [e for e in rep if e["type"] == "reclaim"]
summ = [e for e in rep if e["type"] == "summary"]
assert ev and len(summ) == 1, (len(ev), summ)
assert all(e["pid"] == pid and e["comm"] == "reclaim-target" and e["kind"] == "memcg" for e in ev), ev[:3]
assert sum(e["pages"] for e in ev) == summ[0]["memcg_pages"] >= floor, (summ, floor)
assert summ[0]["memcg_events"] == len(ev) and summ[0]["lost"] == 0, summ
# The live run saw the same kernel events: the same lines, but for the
# times each perf event stamps for itself: the second session's stamp of
# an event waits for the first one's sample to be written.
assert len(rep) == len(live), (len(rep), len(live))
for a, b in zip(rep, live):
    for k in set(a) | set(b):
        if k in ("time", "lat_ms"):
            assert abs(a[k] - b[k]) <= (0.001 if k == "time" else 0.5), (a, b)
        else:
            assert a.get(k) == b.get(k), (a, b)
print("reclaim: %d memcg reclaims, %d pages (at least %d), as live" %
      (len(ev), summ[0]["memcg_pages"], floor))
EOF

pass_or_fail
