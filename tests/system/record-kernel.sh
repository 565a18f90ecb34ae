#!/bin/sh
# record-kernel.sh: `faultline record` and `faultline report` for the
# kernel-side tools, on the real scenarios of their own tests, each
# recorded while the live tool watches the same run: the report must give
# what the live tool gave, and what the live test asserts of it.  This
# file: cache and cachetop, intervals on the recorded clock, and errors.
# The parts that need a facility this machine may lack are tests of their
# own, skipped (77) with the reason: record-kernel-reclaim.sh (a cgroup v1
# memory controller), record-kernel-swapin.sh (zram swap),
# record-kernel-oom.sh (a cgroup v1 memory controller).
#
# - cache, cachetop: cache-target's cold read of a 256 MiB file recorded
#   (-e cache,cachetop); the report's one row has MISSES of at least 95% of
#   the file's pages (a floor: the row is system-wide, and what other
#   processes do on this shared machine adds to it), and cachetop's row of
#   the target (-p), the target's alone, is the live one, figure for figure,
#   and its HITS + MISSES within 2% of the pages (MISSES at least 95%).
# - intervals follow recorded time: a 3.5 s recording of -e cache,reclaim
#   (one run, two tools) reports 3 rows with `cache 1 3`, 3 rows and the
#   partial one with `cache 1`, stamped (-T) with the recording's time, not
#   the report's, and 7 half-second intervals with `reclaim -s -i 0.5`,
#   however fast the report runs.
# - errors: a report for a tool whose events the recording lacks, and a
#   target given to a system-wide tool at record time.
#
# The files made here are removed at exit; lib.sh checks that no probe is
# left in tracefs.
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/system/record-kernel-lib.sh"
need_root

CT=$(target cache-target)
[ -x "$CT" ] || fail "no target at $CT"

# A file on a block-backed filesystem: tmpfs pages never leave the cache.
block_backed_dir
FILE=$block_dir/record-kernel.$$.dat
at_exit 'rm -f "$FILE"'

# ---- 1. cache and cachetop: a cold read of 256 MiB, recorded and live
MIB=256
spawn tgt "$CT" "$FILE" --mib "$MIB"
tgt=$spawned
wait_until "$FL_READY_TIMEOUT" grep -q '^pages=' "$T/tgt.out" || fail "cache-target did not start"
pages=$(truth pages "$T/tgt.out")
kill -USR1 "$tgt"
wait_until 60 grep -q '^done=write$' "$T/tgt.out" || fail "cache-target: no write phase"
spawn live-cache "$FAULTLINE" cache 1000
lcache=$spawned
spawn live-top "$FAULTLINE" cachetop -p "$tgt" 1000
ltop=$spawned
wait_until "$FL_READY_TIMEOUT" grep -q HITRATIO "$T/live-cache.out" || fail "live cache did not start"
wait_ready "$T/live-top.err" "live cachetop"
rec_start cache cache,cachetop
kill -USR1 "$tgt"
wait_until 60 grep -q '^done=cold$' "$T/tgt.out" || fail "cache-target: no cold phase"
expect_eq "$(truth cold_resident "$T/tgt.out")" 0 "pages cached before the cold read"
kill -INT "$rec"
rec_wait cache INT
stop_live "$lcache" cache live-cache
stop_live "$ltop" cachetop live-top
kill -USR1 "$tgt"
wait_until 60 grep -q '^done=warm$' "$T/tgt.out" || fail "cache-target: no warm phase"
kill -USR1 "$tgt"
wait_exit "$tgt" cache-target
expect_eq "$rc" 0 "cache-target exit status"
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
[ "$r_misses" -ge $((pages - pages * 5 / 100)) ] || fail "report cache: MISSES $r_misses below 95% of $pages"
[ "$l_misses" -ge $((pages - pages * 5 / 100)) ] || fail "live cache: MISSES $l_misses below 95% of $pages"
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
# Each page the target reads is one of its MISSES or, when another context
# brought it in first, one of its HITS: their sum is the file's pages.  A
# run beside a CPU hog saw 2,048 of them brought in elsewhere (HITS 1,995,
# MISSES 63,488; the system-wide MISSES were 65,536).
set -- $r_row
within $(($2 + $3)) "$pages" 2 || fail "report cachetop: HITS $2 + MISSES $3 not within 2% of $pages"
[ "$3" -ge $((pages - pages * 5 / 100)) ] || fail "report cachetop: MISSES $3 below 95% of $pages"
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
wait_exit "$reader" reader
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

# ---- 3. what a recording cannot answer
run_fl report -i "$T/iv.rec" oom
expect_eq "$rc" 1 "report oom of a recording without it: exit"
expect_line '^faultline oom: the recording .*/iv.rec holds no events for it \(recorded: cache,reclaim\)$' "$T/err"
run_fl report -i "$T/cache.rec" reclaim
expect_eq "$rc" 1 "report reclaim of a recording without it: exit"
expect_line '^faultline reclaim: its source here reads /proc counters, which a recording does not hold$' "$T/err"
run_fl report -i "$T/iv.rec" swapin
expect_eq "$rc" 1 "report swapin of a recording without it: exit"
expect_line "^faultline swapin: .*has no event 'major-faults'" "$T/err"
run_fl record -e cache -o "$T/bad.rec" -p $$ 1
[ "$rc" -ne 0 ] || fail "record -e cache -p: exit 0"
expect_line "^faultline cache: the page cache is counted system-wide \(one process: faultline cachetop -p\), not for pid '$$'" "$T/err"

pass_or_fail
