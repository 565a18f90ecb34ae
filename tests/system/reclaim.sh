#!/bin/sh
# faultline reclaim against reclaim-target in a memory cgroup (v1) made
# here, its limit (16 MiB) below the file the target writes and reads twice
# (64 MiB): every MiB beyond the limit must be reclaimed by the target
# itself (memcg reclaim, clean page cache).  Checked: drsnoop's header and
# row format, every event is the target's (-p), pages are nonzero, the
# PAGES column adds up to the footer's count, and the count is at least
# what had to leave the cgroup (written + read pages, less the limit kept
# after the write and after the reads: readahead may reclaim a page twice,
# so this is a bound, not an equality); -T times; --json; -s as vmscan.bt
# with the memcg milliseconds and histogram; the /proc/vmstat rung through
# FAULTLINE_MASK, whose deltas must not exceed /proc/vmstat's own.
# The runs and checks are shared with the guest's tests/vm/reclaim.sh
# (tests/vm/lib-reclaim.sh).  The cgroup is removed at exit.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-reclaim.sh"
need_root
RT=$(target reclaim-target)
MEMCG_ROOT=/sys/fs/cgroup/memory
LIMIT_MB=16
FILE_MB=64

# 0. The plan on other kernels (fixture trees): RHEL 7 has the 3.10 vmscan
# events; a tree without them gets the /proc/vmstat rung.
plan() {
	"$FAULTLINE" features --root "$top_srcdir/tests/fixtures/kernels/$1" 2>/dev/null |
		awk '$1 == "reclaim" { sub("^reclaim +", ""); sub(" \\(loses:.*", ""); print; exit }'
}
expect_eq "$(plan rhel7-3.10)" "tracepoints vmscan:mm_vmscan_{direct,memcg}_reclaim_{begin,end}" "reclaim plan on RHEL 7"
expect_eq "$(plan no-uprobes)" "/proc/vmstat allocstall/pgscan_direct/pgsteal_direct (system-wide)" "reclaim plan without vmscan events"

[ -w "$MEMCG_ROOT/cgroup.procs" ] && [ -e "$MEMCG_ROOT/memory.limit_in_bytes" ] ||
	skip "no cgroup v1 memory controller at $MEMCG_ROOT"
# The target's file must be page cache of a disk file: on tmpfs it would be
# shmem, unreclaimable without swap, and the cgroup would OOM instead.
DATA_DIR=$top_builddir
[ "$(stat -f -c %T "$DATA_DIR")" != tmpfs ] || skip "$DATA_DIR is tmpfs: no reclaimable page cache"
DATA=$DATA_DIR/.reclaim-target.$$.dat

CG=$MEMCG_ROOT/faultline-reclaim-$$
mkdir "$CG" || skip "cannot create a memory cgroup under $MEMCG_ROOT"
echo $((LIMIT_MB << 20)) >"$CG/memory.limit_in_bytes" ||
	{ rmdir "$CG"; skip "cannot set memory.limit_in_bytes"; }

cleanup_cg() {
	empty_cg "$CG"
	rm -f "$DATA"
}
at_exit 'cleanup_cg'

# 1. -p: drsnoop's format, the target's own memcg reclaim.
start_target t1
run_fl_go "$go" reclaim -p "$tpid"
wait_target t1
check_p t1

# 2. -T and --json.
start_target t2
run_fl_go "$go" reclaim -T -p "$tpid"
wait_target t2
check_T

start_target t3
run_fl_go "$go" reclaim --json -p "$tpid"
wait_target t3
expect_eq "$rc" 0 "reclaim --json status"
expect_json_lines "$T/out"
python3 - "$T/out" "$tpid" <<'PY' || fail "json check"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pid = int(sys.argv[2])
rec = [e for e in evs if e["type"] == "reclaim"]
summ = [e for e in evs if e["type"] == "summary"]
if not rec or len(summ) != 1:
    sys.exit("want reclaim events and one summary, got %d / %d" % (len(rec), len(summ)))
errs = []
if any(e["pid"] != pid or e["comm"] != "reclaim-target" or e["kind"] != "memcg" for e in rec):
    errs.append("an event not of the target, or not memcg")
if sum(e["pages"] for e in rec) != summ[0]["memcg_pages"]:
    errs.append("pages do not add up to the summary")
if summ[0]["memcg_events"] != len(rec) or summ[0]["lost"] != 0:
    errs.append("summary %s" % summ[0])
if errs:
    sys.exit("; ".join(errs))
PY

# 3. -s: vmscan.bt, system-wide, while the target reclaims; the line
# count of a duration, on its own.
start_target t4
summary_run t4 -s
check_s

start_target t5
summary_run t5 -s --json -i 0.5
expect_stopped INT reclaim "$T/err" "reclaim -s --json"
expect_json_lines "$T/out"
python3 - "$T/out" <<'PY' || fail "-s json check"
import json, sys
iv = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
iv = [e for e in iv if e["type"] == "interval"]
if not iv:
    sys.exit("no interval")
if sum(e["memcg_ms"] for e in iv) <= 0:
    sys.exit("no memcg reclaim time while the target reclaimed")
PY
check_s_json_duration

# 4. The /proc/vmstat rung, for real: vmscan masked.
check_vmstat_rung 0

# 5. Usage errors.
check_usage

pass_or_fail
