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
# The cgroup is removed at exit.
. "$top_srcdir/tests/system/lib.sh"
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
trap 'st=$?; cleanup_cg; (exit $st); _fl_exit' EXIT

truth() { sed -n "s/^$1=//p" "$2" | head -n 1; }

# start_target NAME: the target in the cgroup, waiting on the FIFO $go
# before its work; its pid in $tpid.
start_target() {
	go_fifo "$1"
	go=$fifo
	spawn_at_fifo "$1" sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$RT' --file '$DATA' --mb $FILE_MB --go '$go'"
	tpid=$(truth pid "$T/$1.out")
	[ -n "$tpid" ] || fail "$1: target did not start: $(cat "$T/$1.err")"
}

# wait_target NAME: until the target printed its truth (read_pages).
wait_target() {
	wait_until "$FL_TIMEOUT" grep -q '^read_pages=' "$T/$1.out" || fail "$1: target did not finish"
}

# summary_run NAME ARGS...: faultline reclaim ARGS (-s, no duration), the
# target released once it traces, stopped with SIGINT once the target is
# done: its reclaims fall inside the run, however slow the machine.
# Output in $T/out and $T/err, status in $rc.
summary_run() {
	local name=$1 fl
	shift
	echo "+ faultline reclaim $*"
	spawn "fl-$name" "$FAULTLINE" reclaim "$@"
	fl=$spawned
	wait_ready "$T/fl-$name.err" "reclaim $*" && release "$go"
	wait_target "$name"
	kill -INT "$fl"
	wait_exit "$fl" "reclaim $*"
	cp "$T/fl-$name.out" "$T/out"
	cp "$T/fl-$name.err" "$T/err"
}

# 1. -p: drsnoop's format, the target's own memcg reclaim.
start_target t1
run_fl_go "$go" reclaim -p "$tpid"
wait_target t1
expect_eq "$rc" 0 "reclaim -p status"
expect_eq "$(head -n 1 "$T/out")" "COMM           PID     LAT(ms) PAGES" "drsnoop header"
expect_line "^Tracing direct reclaim of PID $tpid with tracepoints vmscan" "$T/err"
awk -v pid="$tpid" 'NR > 1 {
	if ($1 != "reclaim-target" || $2 != pid || $3 !~ /^[0-9]+\.[0-9][0-9]$/ || $4 !~ /^[0-9]+$/ || NF != 4)
		bad++
	n++; sum += $4; if ($4 > 0) nz++
} END { printf "%d %d %d %d\n", n, nz, sum, bad }' "$T/out" >"$T/stats"
read -r nev nz sum bad <"$T/stats"
echo "events=$nev nonzero=$nz pages=$sum"
[ "$nev" -gt 0 ] || fail "no reclaim event for pid $tpid"
[ "$nz" -gt 0 ] || fail "no reclaim event with nonzero pages"
expect_eq "$bad" 0 "rows not of the form 'reclaim-target $tpid LAT PAGES'"
awk -v want="$(printf '%-14.14s %-6s' reclaim-target "$tpid")" 'NR > 1 && substr($0, 1, 21) != want { bad = 1 } END { exit bad }' "$T/out" ||
	fail "rows not laid out as drsnoop's %-14.14s %-6s"
footer=$(grep -E '^[0-9]+ direct reclaims' "$T/err")
expect_eq "$(echo "$footer" | sed -n 's/.* memcg reclaims (\([0-9]*\) pages).*/\1/p')" "$sum" "footer memcg pages vs PAGES column"
expect_eq "$(echo "$footer" | sed -n 's/ memcg reclaims.*//; s/.*), //p')" "$nev" "footer memcg events vs rows"
written=$(truth file_pages "$T/t1.out")
read=$(truth read_pages "$T/t1.out")
floor=$((written + read - 2 * (LIMIT_MB * 256)))
[ "$sum" -ge "$floor" ] || fail "reclaimed $sum pages, expected at least $floor (written $written + read $read - 2 x limit)"

# 2. -T and --json.
start_target t2
run_fl_go "$go" reclaim -T -p "$tpid"
wait_target t2
expect_eq "$rc" 0 "reclaim -T status"
expect_eq "$(head -n 1 "$T/out")" "TIME(s)        COMM           PID     LAT(ms) PAGES" "-T header"
expect_line '^0\.000000000 +reclaim-target ' "$T/out"
# (mawk has no {9}: nine digits spelled out.)
awk 'NR > 1 && ($1 !~ /^[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]$/ || $1 + 0 < last) { bad = 1 }
	NR > 1 { last = $1 + 0 } END { exit bad }' "$T/out" ||
	fail "-T times are not rising seconds with 9 decimals"

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
expect_eq "$rc" 0 "reclaim -s status"
expect_eq "$(head -n 1 "$T/out")" "TIME         S-SLABms  D-RECLAIMms  M-RECLAIMms KSWAPD WRITEPAGE" "vmscan.bt header"
n=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} {3,}[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$' "$T/out")
[ "$n" -ge 1 ] || fail "reclaim -s: no interval line"
expect_eq "$(grep -c '^[0-9]' "$T/out")" "$n" "reclaim -s: every row an interval line"
expect_line '^@mem_cgroup_reclaim_ns:$' "$T/out"
expect_line '^\[[0-9]+[KM]?, [0-9]+[KM]?\) +[0-9]+ \|@*' "$T/out"
run_fl reclaim -s 3
expect_eq "$rc" 0 "reclaim -s 3 status"
expect_eq "$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} {3,}[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$' "$T/out")" 3 "interval lines in 3 s"

start_target t5
summary_run t5 -s --json -i 0.5
expect_eq "$rc" 0 "reclaim -s --json status"
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
run_fl reclaim -s --json -i 0.5 3
expect_eq "$rc" 0 "reclaim -s --json -i 0.5 3 status"
n=$(grep -c '"type":"interval"' "$T/out")
[ "$n" -ge 5 ] && [ "$n" -le 7 ] || fail "$n intervals of 0.5 s in 3 s"

# 4. The /proc/vmstat rung, for real: vmscan masked.
before=$(awk '$1 ~ /^allocstall/ { s += $2 } END { print s + 0 }' /proc/vmstat)
FAULTLINE_MASK='vmscan:*'
export FAULTLINE_MASK
run_fl reclaim 2
unset FAULTLINE_MASK
after=$(awk '$1 ~ /^allocstall/ { s += $2 } END { print s + 0 }' /proc/vmstat)
expect_eq "$rc" 0 "vmstat rung status"
expect_line "falling back to /proc/vmstat allocstall/pgscan_direct/pgsteal_direct \(system-wide\)" "$T/err"
expect_line "masked by FAULTLINE_MASK" "$T/err"
expect_eq "$(head -n 1 "$T/out")" "TIME     ALLOCSTALLS PGSCAN_DIRECT PGSTEAL_DIRECT PGSCAN_KSWAPD" "vmstat header"
expect_eq "$(grep -cE '^[0-9:]{8} +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$' "$T/out")" 2 "vmstat lines in 2 s"
stalls=$(awk 'NR > 1 { s += $2 } END { print s + 0 }' "$T/out")
[ "$stalls" -le $((after - before)) ] || fail "vmstat rung: $stalls allocstalls > /proc/vmstat's $((after - before))"

# 5. Usage errors.
run_fl reclaim -s -i 0
expect_eq "$rc" 2 "reclaim -i 0"
run_fl reclaim --nosuch
expect_eq "$rc" 2 "reclaim --nosuch"

pass_or_fail
