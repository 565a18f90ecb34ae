#!/bin/sh
# record-kernel.sh: `faultline record` and `faultline report` for the
# kernel-side tools (oom, cache, cachetop, reclaim, swapin), on the real
# scenarios of their own tests (cache.sh, cachetop.sh, reclaim.sh,
# swapin.sh, oom.sh), each recorded while the live tool watches the same
# run: the report must give what the live tool gave, and what the live
# test asserts of it.
#
# - cache, cachetop: cache-target's cold read of a 256 MiB file recorded
#   (-e cache,cachetop); the report's one row has MISSES within 5% of the
#   file's pages and within 1% of the live `cache` row (both system-wide),
#   and cachetop's row of the target (-p) is the live one, figure for figure.
# - intervals follow recorded time: a 3.5 s recording of -e cache,reclaim
#   (one run, two tools) reports 3 rows with `cache 1 3`, 3 rows and the
#   partial one with `cache 1`, stamped (-T) with the recording's time, not
#   the report's, and 7 half-second intervals with `reclaim -s -i 0.5`,
#   however fast the report runs.
# - reclaim: reclaim-target's memcg reclaim (-p) gives the live --json
#   events, event for event (kind, pages; latency and relative time as
#   each session stamps them, within 0.5 ms).
# - swapin: 2000 pages swapped in from zram (-p) count 2000 in the report,
#   as the target's own majflt (as swapin.sh asserts live: a second tracer
#   of major faults on the same task would not see them, see below).
# - oom: a kill in a memcg with a 32 MiB limit gives the trigger and
#   victim pids, the constraint, both memcg paths, pages and the victim's
#   fields of the live --json line (the kernel's report is recorded with
#   printk:console); loadavg is not recorded (null, and said so).
# - errors: a report for a tool whose events the recording lacks, and a
#   target given to a system-wide tool at record time.
#
# The cgroups, the zram swap and the files made here are removed at exit;
# lib.sh checks that no probe is left in tracefs.
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"
need_root
# Times print as UTC: comparable with date +%s.
TZ=UTC
export TZ

CT=$(target cache-target)
RT=$(target reclaim-target)
OT=$(target oom-target)
for t in "$CT" "$RT" "$OT"; do
	[ -x "$t" ] || fail "no target at $t"
done

# A file on a block-backed filesystem: tmpfs pages never leave the cache.
block_backed_dir
FILE=$block_dir/record-kernel.$$.dat
DATA=$top_builddir/.record-kernel.$$.dat
CG=
V1ROOT=$(memcg_v1_root)
V1OWN=$(memcg_v1_own)
ZRAM=/sys/block/zram0
ZRAM_MADE=

zram_off() {
	[ -n "$ZRAM_MADE" ] || return 0
	swapoff /dev/zram0 2>/dev/null
	echo 1 >"$ZRAM/reset" || echo "record-kernel.sh: could not reset zram0" >&2
	ZRAM_MADE=
}
cleanup() {
	empty_cg "$CG"
	CG=
	zram_off
	rm -f "$FILE" "$DATA"
	return 0
}
trap 'st=$?; cleanup; (exit $st); _fl_exit' EXIT

truth() { sed -n "s/^$1=//p" "$2" | tail -n 1; }

# rec_start NAME TOOLS [ARGS...]: faultline record -e TOOLS -o $T/NAME.rec
# ARGS, running once it said "Tracing"; its pid in $rec.
rec_start() {
	local name=$1 tools=$2
	shift 2
	spawn "rec-$name" "$FAULTLINE" record -e "$tools" -o "$T/$name.rec" "$@"
	rec=$spawned
	wait_until 20 grep -q '^Tracing' "$T/rec-$name.err" ||
		fail "$name: faultline record did not start: $(cat "$T/rec-$name.err")"
}
# rec_wait NAME: the recording ended (by itself or by the SIGINT sent
# before) with status 0 and its summary line.
rec_wait() {
	local st=0
	wait "$rec" || st=$?
	expect_eq "$st" 0 "$1: faultline record exit status"
	expect_line '^faultline record: [0-9]+ samples \(0 lost\) of ' "$T/rec-$1.err"
	assert_no_probes_of "$rec"
}
# report NAME ARGS...: faultline report ARGS, output in $T/NAME.out/.err.
report() {
	local name=$1
	shift
	run_fl report "$@"
	cp "$T/out" "$T/$name.out"
	cp "$T/err" "$T/$name.err"
	expect_eq "$rc" 0 "report $*: exit status"
}
# stop_live PID WHAT: a live tool stopped as a user would, Ctrl-C.
stop_live() {
	local st=0
	kill -INT "$1" 2>/dev/null
	wait "$1" || st=$?
	expect_eq "$st" 0 "$2: live exit status"
}

# ---- 1. cache and cachetop: a cold read of 256 MiB, recorded and live
MIB=256
spawn tgt "$CT" "$FILE" --mib "$MIB"
tgt=$spawned
wait_until 10 grep -q '^pages=' "$T/tgt.out" || fail "cache-target did not start"
pages=$(truth pages "$T/tgt.out")
kill -USR1 "$tgt"
wait_until 60 grep -q '^done=write$' "$T/tgt.out" || fail "cache-target: no write phase"
spawn live-cache "$FAULTLINE" cache 1000
lcache=$spawned
spawn live-top "$FAULTLINE" cachetop -p "$tgt" 1000
ltop=$spawned
wait_until 20 grep -q HITRATIO "$T/live-cache.out" || fail "live cache did not start"
wait_until 20 grep -q '^Tracing page cache' "$T/live-top.err" || fail "live cachetop did not start"
rec_start cache cache,cachetop
kill -USR1 "$tgt"
wait_until 60 grep -q '^done=cold$' "$T/tgt.out" || fail "cache-target: no cold phase"
expect_eq "$(truth cold_resident "$T/tgt.out")" 0 "pages cached before the cold read"
kill -INT "$rec"
rec_wait cache
stop_live "$lcache" "cache"
stop_live "$ltop" "cachetop"
kill -USR1 "$tgt"
wait_until 60 grep -q '^done=warm$' "$T/tgt.out" || fail "cache-target: no warm phase"
kill -USR1 "$tgt"
wait "$tgt" || fail "cache-target exited $?"
rm -f "$FILE"

report cache-1000 -i "$T/cache.rec" cache 1000
expect_eq "$(sed -n 1p "$T/cache-1000.out")" "    HITS   MISSES  DIRTIES HITRATIO   BUFFERS_MB  CACHED_MB" "report cache: header"
expect_eq "$(wc -l <"$T/cache-1000.out" | tr -d ' ')" 3 "report cache 1000: lines (header, row, Detaching)"
expect_eq "$(tail -n 1 "$T/cache-1000.out")" "Detaching..." "report cache 1000: last line"
expect_line '^faultline cache: a recording does not hold /proc/meminfo: BUFFERS_MB and CACHED_MB show 0$' "$T/cache-1000.err"
set -- $(sed -n 2p "$T/cache-1000.out")
r_hits=$1 r_misses=$2
set -- $(sed -n 2p "$T/live-cache.out")
l_misses=$2
echo "cold read of $pages pages: report MISSES $r_misses HITS $r_hits, live MISSES $l_misses"
within "$r_misses" "$pages" 5 || fail "report cache: MISSES $r_misses not within 5% of $pages"
[ "$r_hits" -le $((pages * 10 / 100)) ] || fail "report cache: HITS $r_hits over 10% of $pages"
d=$((r_misses - l_misses))
[ "${d#-}" -le $((pages / 100)) ] || fail "report cache: MISSES $r_misses, live $l_misses: more than 1% apart"
expect_eq "$(sed -n 2p "$T/cache-1000.out" | awk '{ print $5, $6 }')" "0 0" "report cache: BUFFERS_MB CACHED_MB"

report top -i "$T/cache.rec" cachetop -p "$tgt" 1000
expect_line "^faultline cachetop: a recording does not hold /proc/meminfo or the processes' owners" "$T/top.err"
expect_line '^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] Buffers MB: 0 / Cached MB: 0 / Sort: HITS / Order: descending$' "$T/top.out"
row() { awk -v p="$tgt" '$1 == p { n = split($0, f, " "); r = f[2] " " f[n - 4] " " f[n - 3] " " f[n - 2] } END { print r }' "$1"; }
r_row=$(row "$T/top.out")
l_row=$(row "$T/live-top.out")
echo "cachetop -p $tgt: report '$r_row', live '$l_row'"
expect_eq "${r_row#\? }" "${l_row#* }" "report cachetop: the target's HITS MISSES DIRTIES, live's"
expect_eq "${r_row%% *}" "?" "report cachetop: UID (not recorded)"
set -- $r_row
within "$3" "$pages" 2 || fail "report cachetop: MISSES $3 not within 2% of $pages"
expect_eq "$(awk -v p="$tgt" '$1 == p { print $3 }' "$T/top.out")" cache-target "report cachetop: the recorded command name"

# ---- 2. intervals on the recorded clock: -e cache,reclaim for 3.5 s
cp "$CT" "$T/small.dat"
spawn reader sh -c "while :; do cat '$T/small.dat' >/dev/null; sleep 0.05; done"
reader=$spawned
t0=$(date +%s)
rec_start iv cache,reclaim 3.5
rec_wait iv
t1=$(date +%s)
kill "$reader" 2>/dev/null
wait "$reader" 2>/dev/null
# The report runs seconds after: its own clock would show.
while [ "$(date +%s)" -le $((t1 + 1)) ]; do sleep 0.2; done
report iv-info -i "$T/iv.rec" info
expect_line '^tools +cache,reclaim$' "$T/iv-info.out"
report iv-count -i "$T/iv.rec" cache 1 3
expect_eq "$(wc -l <"$T/iv-count.out" | tr -d ' ')" 4 "report cache 1 3 of 3.5 s: header and 3 rows"
expect_no_line '^Detaching' "$T/iv-count.out"
report iv-all -i "$T/iv.rec" cache -T 1
expect_eq "$(wc -l <"$T/iv-all.out" | tr -d ' ')" 6 "report cache -T 1 of 3.5 s: header, 3 rows, the partial one, Detaching"
expect_eq "$(tail -n 1 "$T/iv-all.out")" "Detaching..." "report cache -T 1: last line"
# Stamped with the recorded run's clock: within the recording's seconds.
# (TZ is UTC here: HH:MM:SS is then the epoch's second of the day.)
bad=$(sed -n '2,5p' "$T/iv-all.out" | awk -v t0="$t0" -v t1="$t1" '{
	split($1, t, ":"); d = (t[1] * 3600 + t[2] * 60 + t[3] - t0 % 86400 + 86400) % 86400
	if (d > t1 - t0) print $1
}')
[ -z "$bad" ] || fail "report cache -T 1: rows stamped outside the recording's time: $bad"
report iv-reclaim -i "$T/iv.rec" reclaim -s --json -i 0.5
expect_json_lines "$T/iv-reclaim.out"
expect_eq "$(grep -c '"type":"interval"' "$T/iv-reclaim.out")" 7 "report reclaim -s -i 0.5 of 3.5 s: intervals"

# ---- 3. reclaim: memcg reclaim of reclaim-target, recorded and live
[ -n "$V1ROOT" ] && [ -e "$V1ROOT$V1OWN/memory.limit_in_bytes" ] ||
	skip "no cgroup v1 memory controller (parts 1-2 ran)"
[ "$(stat -f -c %T "$top_builddir")" != tmpfs ] || skip "$top_builddir is tmpfs: no reclaimable page cache"
CG=$V1ROOT$V1OWN/faultline-record-kernel.$$
mkdir "$CG" || skip "cannot create a memory cgroup at $CG"
echo $((16 << 20)) >"$CG/memory.limit_in_bytes" || skip "cannot set memory.limit_in_bytes"
spawn rt sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$RT' --file '$DATA' --mb 64 --delay-ms 1500"
wait_until 10 grep -q '^pid=' "$T/rt.out" || fail "reclaim-target did not start"
tpid=$(truth pid "$T/rt.out")
spawn live-reclaim "$FAULTLINE" reclaim --json -p "$tpid"
lrec=$spawned
rec_start reclaim reclaim -p "$tpid"
wait_until 20 grep -q '^Tracing' "$T/live-reclaim.err" || fail "live reclaim did not start"
wait "$lrec" || fail "live reclaim exited $?"
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
empty_cg "$CG"
CG=

# ---- 4. swapin: 2000 pages from zram, recorded and live
if [ ! -d "$ZRAM" ] || ! command -v swapon >/dev/null || ! command -v mkswap >/dev/null; then
	echo "record-kernel.sh: swapin part skipped: no zram0 or swapon"
elif [ "$(cat "$ZRAM/disksize")" != 0 ] || grep -q '^/dev/zram0 ' /proc/swaps; then
	echo "record-kernel.sh: swapin part skipped: zram0 is in use"
else
	echo 64M >"$ZRAM/disksize" || fail "cannot size zram0"
	ZRAM_MADE=1
	mkswap /dev/zram0 >/dev/null || fail "mkswap /dev/zram0"
	swapon /dev/zram0 || fail "swapon /dev/zram0"
	spawn sw "$RT" --pageout 2000 --delay-ms 1500 --gap-ms 200
	wait_until 10 grep -q '^pid=' "$T/sw.out" || fail "reclaim-target --pageout did not start"
	spid=$(truth pid "$T/sw.out")
	# Recorded alone: of two sessions sampling the major-faults software
	# event of one task, the earlier sees none (this kernel; not a
	# recording matter).
	rec_start swapin swapin -p "$spid"
	rec_wait swapin
	si=$(truth swapped_in "$T/sw.out")
	expect_eq "$(truth swapped_out "$T/sw.out")" 2000 "pages in swap after MADV_PAGEOUT"
	expect_eq "$(truth majflt "$T/sw.out")" "$si" "the target's major faults"
	report swapin -i "$T/swapin.rec" swapin --json
	expect_json_lines "$T/swapin.out"
	got=$(python3 -c '
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [e for e in evs if e["type"] == "swapin"]
assert all(e["pid"] == int(sys.argv[2]) and e["comm"] == "reclaim-target" for e in rows), rows
print(sum(e["count"] for e in rows))' "$T/swapin.out" "$spid") || fail "report swapin: rows"
	echo "swapin: the target swapped in $si pages, the report counts $got"
	expect_eq "$got" "$si" "report swapin: the target's swap-ins"
	expect_line '^\{"type":"summary","swapins":'"$si"',"other_major_faults":[0-9]+,"lost":0\}$' "$T/swapin.out"
	# A report with an interval and count: time lines, the target's row.
	report swapin-text -i "$T/swapin.rec" swapin 1
	expect_eq "$(awk -v p="$spid" '$2 == p && $1 == "reclaim-target" { s += $3 } END { print s + 0 }' "$T/swapin-text.out")" "$si" "report swapin 1: the target's count"
	expect_line '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$T/swapin-text.out"
	# Swap would let the memcg below swap instead of killing.
	zram_off
fi

# ---- 5. oom: a memcg kill, recorded and live
CG=$V1ROOT$V1OWN/faultline-record-kernel.$$
mkdir "$CG" || fail "cannot create $CG"
echo $((32 << 20)) >"$CG/memory.limit_in_bytes"
SWAP_KB=$(awk '$1 == "SwapTotal:" { print $2 }' /proc/meminfo)
PAGES=$(((32 * 1024 + SWAP_KB) / ($(getconf PAGESIZE) / 1024)))
spawn live-oom "$FAULTLINE" oom --json
loom=$spawned
wait_until 20 grep -q '^Tracing' "$T/live-oom.err" || fail "live oom did not start"
rec_start oom oom
timeout 60 sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$OT' --mode hog" >"$T/oom.truth" 2>&1 9>&-
trig=$(sed -n 's/.*trigger_pid=\([0-9]*\).*/\1/p' "$T/oom.truth")
vict=$(sed -n 's/.*victim_pid=\([0-9]*\).*/\1/p' "$T/oom.truth")
[ -n "$vict" ] || fail "no ground truth from oom-target: $(cat "$T/oom.truth")"
wait_until 10 grep -q "\"victim_pid\":$vict," "$T/live-oom.out" || fail "live oom: no kill of $vict"
sleep 0.3
kill -INT "$rec"
rec_wait oom
stop_live "$loom" oom
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
empty_cg "$CG"
CG=

# ---- 6. what a recording cannot answer
run_fl report -i "$T/iv.rec" oom
expect_eq "$rc" 1 "report oom of a recording without it: exit"
expect_line '^faultline oom: the recording holds no OOM events to report from \(it holds the events of: cache,reclaim\)$' "$T/err"
run_fl report -i "$T/oom.rec" reclaim
expect_eq "$rc" 1 "report reclaim of a recording without it: exit"
expect_line '^faultline reclaim: its source here reads /proc counters, which a recording does not hold$' "$T/err"
run_fl report -i "$T/oom.rec" swapin
expect_eq "$rc" 1 "report swapin of a recording without it: exit"
expect_line "^faultline swapin: .*has no event 'major-faults'" "$T/err"
run_fl record -e cache -o "$T/bad.rec" -p $$ 1
[ "$rc" -ne 0 ] || fail "record -e cache -p: exit 0"
expect_line "^faultline cache: the page cache is counted system-wide \(one process: faultline cachetop -p\), not for pid '$$'" "$T/err"

pass_or_fail
