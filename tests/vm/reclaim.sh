#!/bin/sh
# reclaim.sh (guest): `faultline reclaim -p` against reclaim-target in a
# cgroup v2 made here, memory.max 16 MiB, below the file it writes and
# reads twice (64 MiB, on the brd-backed ext4: clean page cache of a disk
# file): every MiB beyond the limit is reclaimed by the target itself
# (memcg reclaim, 6.1's vmscan:mm_vmscan_memcg_reclaim_{begin,end}).
# Checked, as tests/system/reclaim.sh does on the host's cgroup v1:
# drsnoop's header and rows, every event the target's, pages nonzero, the
# PAGES column equal to the footer's memcg pages and its events to the
# rows, and the pages at least what had to leave the cgroup (written +
# read pages, less the limit kept after the write and after the reads:
# readahead may reclaim a page twice, so a bound, not an equality).
# Then the rest of the host test: -T times; --json (checked with awk: no
# python3 in the guest), its events adding up to its summary exactly;
# -s as vmscan.bt with the memcg milliseconds and histogram, and the
# interval counts of a duration; the /proc/vmstat rung through
# FAULTLINE_MASK, its allocstalls equal to /proc/vmstat's delta over the
# run (memcg reclaim is not counted there: the idle guest gives 0 = 0
# unless something else reclaims directly, then still equal); usage errors.
. "$top_srcdir/tests/system/lib.sh"
need_root
RT=$(target reclaim-target)
LIMIT_MB=16
FILE_MB=64
[ -e /sys/fs/cgroup/cgroup.subtree_control ] || fail "no cgroup v2 at /sys/fs/cgroup"
block_backed_dir
DATA=$block_dir/reclaim-target.$$.dat
CG=/sys/fs/cgroup/faultline-reclaim-$$
mkdir "$CG" || fail "cannot create $CG"
echo $((LIMIT_MB << 20)) >"$CG/memory.max" || fail "cannot set $CG/memory.max"
trap 'st=$?; empty_cg "$CG"; rm -f "$DATA"; (exit $st); _fl_exit' EXIT
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
# summary_run NAME ARGS...: faultline reclaim ARGS (no duration), the
# target released once it traces, stopped with SIGINT once the target is
# done.  Output in $T/out and $T/err, status in $rc.
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
# json_objects FILE: every non-empty line one flat JSON object (no
# python3 here: its shape, {"key":value,...}, with awk).
json_objects() {
	awk 'NF && $0 !~ /^\{"[a-z_]+":[^{}]*(,"[a-z_]+":[^{}]*)*\}$/ { bad++; print "bad JSON line " NR ": " $0 >"/dev/stderr" }
		END { exit bad > 0 }' "$1" || fail "bad JSON in ${1#"$T"/}"
}
# jnum KEY: the number of "KEY": in the line on stdin.
jnum() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }

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
[ "$nev" -gt 0 ] || fail "no reclaim event for pid $tpid"
[ "$nz" -gt 0 ] || fail "no reclaim event with nonzero pages"
expect_eq "$bad" 0 "rows not of the form 'reclaim-target $tpid LAT PAGES'"
footer=$(grep -E '^[0-9]+ direct reclaims' "$T/err")
expect_eq "$(echo "$footer" | sed -n 's/.* memcg reclaims (\([0-9]*\) pages).*/\1/p')" "$sum" "footer memcg pages vs PAGES column"
expect_eq "$(echo "$footer" | sed -n 's/ memcg reclaims.*//; s/.*), //p')" "$nev" "footer memcg events vs rows"
written=$(truth file_pages "$T/t1.out")
read=$(truth read_pages "$T/t1.out")
floor=$((written + read - 2 * (LIMIT_MB * 256)))
[ "$sum" -ge "$floor" ] || fail "reclaimed $sum pages, expected at least $floor (written $written + read $read - 2 x limit)"
echo "RESULT reclaim memcg: $nev events, $sum pages reclaimed (at least $floor: written $written + read $read - 2 x $((LIMIT_MB * 256))); $footer"

# 2. -T and --json.
start_target t2
run_fl_go "$go" reclaim -T -p "$tpid"
wait_target t2
expect_eq "$rc" 0 "reclaim -T status"
expect_eq "$(head -n 1 "$T/out")" "TIME(s)        COMM           PID     LAT(ms) PAGES" "-T header"
expect_line '^0\.000000000 +reclaim-target ' "$T/out"
awk 'NR > 1 && ($1 !~ /^[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]$/ || $1 + 0 < last) { bad = 1 }
	NR > 1 { last = $1 + 0 } END { exit bad }' "$T/out" ||
	fail "-T times are not rising seconds with 9 decimals"
echo "RESULT reclaim -T: $(($(wc -l <"$T/out") - 1)) rows, last at $(tail -n 1 "$T/out" | cut -d' ' -f1) s"

start_target t3
run_fl_go "$go" reclaim --json -p "$tpid"
wait_target t3
expect_eq "$rc" 0 "reclaim --json status"
json_objects "$T/out"
grep '"type":"reclaim"' "$T/out" >"$T/rec"
nrec=$(wc -l <"$T/rec")
[ "$nrec" -gt 0 ] || fail "--json: no reclaim event"
expect_eq "$(grep -c '"type":"summary"' "$T/out")" 1 "--json: summary lines"
expect_eq "$(grep -c "\"pid\":$tpid,.*\"comm\":\"reclaim-target\",\"kind\":\"memcg\"" "$T/rec")" "$nrec" "--json: events of the target, memcg"
summ=$(grep '"type":"summary"' "$T/out")
jsum=$(jnum pages <"$T/rec" | awk '{ s += $1 } END { print s + 0 }')
expect_eq "$(echo "$summ" | jnum memcg_pages)" "$jsum" "--json: event pages vs summary memcg_pages"
expect_eq "$(echo "$summ" | jnum memcg_events)" "$nrec" "--json: events vs summary memcg_events"
expect_eq "$(echo "$summ" | jnum lost)" 0 "--json: lost"
echo "RESULT reclaim --json: $nrec events, $jsum pages; $summ"

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
mms=$(awk '/^[0-9][0-9]:/ { s += $4 } END { print s + 0 }' "$T/out")
echo "RESULT reclaim -s: $n intervals, M-RECLAIMms total $mms"
run_fl reclaim -s 3
expect_eq "$rc" 0 "reclaim -s 3 status"
expect_eq "$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} {3,}[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$' "$T/out")" 3 "interval lines in 3 s"

start_target t5
summary_run t5 -s --json -i 0.5
expect_eq "$rc" 0 "reclaim -s --json status"
json_objects "$T/out"
grep '"type":"interval"' "$T/out" >"$T/iv"
[ -s "$T/iv" ] || fail "-s --json: no interval"
mms=$(jnum memcg_ms <"$T/iv" | awk '{ s += $1 } END { print s + 0 }')
awk -v m="$mms" 'BEGIN { exit !(m > 0) }' || fail "-s --json: no memcg reclaim time while the target reclaimed"
echo "RESULT reclaim -s --json: $(wc -l <"$T/iv") intervals, memcg_ms total $mms"
run_fl reclaim -s --json -i 0.5 3
expect_eq "$rc" 0 "reclaim -s --json -i 0.5 3 status"
n=$(grep -c '"type":"interval"' "$T/out")
[ "$n" -ge 5 ] && [ "$n" -le 7 ] || fail "$n intervals of 0.5 s in 3 s"

# 4. The /proc/vmstat rung, for real: vmscan masked.  Its lines are the
# deltas of consecutive reads, the first against the read at the start:
# over the run they add up to /proc/vmstat's delta exactly when nothing
# stalled between our reads and its (the idle guest).
allocstalls() { awk '$1 ~ /^allocstall/ { s += $2 } END { print s + 0 }' /proc/vmstat; }
before=$(allocstalls)
FAULTLINE_MASK='vmscan:*'
export FAULTLINE_MASK
run_fl reclaim 2
unset FAULTLINE_MASK
after=$(allocstalls)
expect_eq "$rc" 0 "vmstat rung status"
expect_line "falling back to /proc/vmstat allocstall/pgscan_direct/pgsteal_direct \(system-wide\)" "$T/err"
expect_line "masked by FAULTLINE_MASK" "$T/err"
expect_eq "$(head -n 1 "$T/out")" "TIME     ALLOCSTALLS PGSCAN_DIRECT PGSTEAL_DIRECT PGSCAN_KSWAPD" "vmstat header"
expect_eq "$(grep -cE '^[0-9:]{8} +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$' "$T/out")" 2 "vmstat lines in 2 s"
stalls=$(awk 'NR > 1 { s += $2 } END { print s + 0 }' "$T/out")
expect_eq "$stalls" $((after - before)) "vmstat rung allocstalls vs /proc/vmstat's delta"
echo "RESULT reclaim vmstat rung: $stalls allocstalls = /proc/vmstat delta $((after - before))"

# 5. Usage errors.
run_fl reclaim -s -i 0
expect_eq "$rc" 2 "reclaim -i 0"
run_fl reclaim --nosuch
expect_eq "$rc" 2 "reclaim --nosuch"
pass_or_fail
