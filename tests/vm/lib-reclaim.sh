# lib-reclaim.sh: the runs and checks of `faultline reclaim` against
# reclaim-target in a memory cgroup, shared by the host's
# tests/system/reclaim.sh (cgroup v1) and the guest's tests/vm/reclaim.sh
# (cgroup v2).  Sourced after tests/system/lib.sh, with $CG (the cgroup
# directory), $RT (reclaim-target), $DATA (its file), $FILE_MB and
# $LIMIT_MB set.  (tests/vm/init runs no lib-*.sh as a test.)

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
# Output in $T/out and $T/err, status in $rc (130: stopped by SIGINT).
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

# check_p NAME: after `reclaim -p $tpid` of target NAME: drsnoop's header
# and rows, every event the target's, pages nonzero, the PAGES column
# equal to the footer's memcg pages and its events to the rows, and the
# pages at least what had to leave the cgroup (written + read pages, less
# the limit kept after the write and after the reads: readahead may
# reclaim a page twice, so a bound, not an equality).
check_p() {
	local nev nz sum bad footer written read floor
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
	awk -v want="$(printf '%-14.14s %-6s' reclaim-target "$tpid")" 'NR > 1 && substr($0, 1, 21) != want { bad = 1 } END { exit bad }' "$T/out" ||
		fail "rows not laid out as drsnoop's %-14.14s %-6s"
	# The summary's memcg line: "  memcg:         47 reclaims, 1,120 pages".
	footer=$(sed -n 's/^  memcg: *\([0-9,]*\) reclaims, \([0-9,]*\) pages$/\1 \2/p' "$T/err" | tr -d ,)
	[ -n "$footer" ] || fail "no memcg line in the summary: $(cat "$T/err")"
	expect_eq "${footer#* }" "$sum" "summary memcg pages vs PAGES column"
	expect_eq "${footer% *}" "$nev" "summary memcg reclaims vs rows"
	written=$(truth file_pages "$T/$1.out")
	read=$(truth read_pages "$T/$1.out")
	floor=$((written + read - 2 * (LIMIT_MB * 256)))
	[ "$sum" -ge "$floor" ] || fail "reclaimed $sum pages, expected at least $floor (written $written + read $read - 2 x limit)"
	echo "RESULT reclaim memcg: $nev events, $sum pages reclaimed (at least $floor: written $written + read $read - 2 x $((LIMIT_MB * 256))); summary: memcg reclaims, pages $footer"
}

# check_T: after `reclaim -T -p`: the header, rising 9-decimal times from 0.
check_T() {
	expect_eq "$rc" 0 "reclaim -T status"
	expect_eq "$(head -n 1 "$T/out")" "TIME(s)        COMM           PID     LAT(ms) PAGES" "-T header"
	expect_line '^0\.000000000 +reclaim-target ' "$T/out"
	# (mawk has no {9}: nine digits spelled out.)
	awk 'NR > 1 && ($1 !~ /^[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]$/ || $1 + 0 < last) { bad = 1 }
		NR > 1 { last = $1 + 0 } END { exit bad }' "$T/out" ||
		fail "-T times are not rising seconds with 9 decimals"
	echo "RESULT reclaim -T: $(($(wc -l <"$T/out") - 1)) rows, last at $(tail -n 1 "$T/out" | cut -d' ' -f1) s"
}

IV_LINE='^[0-9]{2}:[0-9]{2}:[0-9]{2} {3,}[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+$'

# check_s: after summary_run NAME -s: vmscan.bt's header and interval
# lines, the memcg histogram; then `reclaim -s 3` has 3 interval lines.
check_s() {
	local n
	expect_stopped INT reclaim "$T/err" "reclaim -s"
	expect_eq "$(head -n 1 "$T/out")" "TIME         S-SLABms  D-RECLAIMms  M-RECLAIMms KSWAPD WRITEPAGE" "vmscan.bt header"
	n=$(grep -cE "$IV_LINE" "$T/out")
	[ "$n" -ge 1 ] || fail "reclaim -s: no interval line"
	expect_eq "$(grep -c '^[0-9]' "$T/out")" "$n" "reclaim -s: every row an interval line"
	expect_line '^@mem_cgroup_reclaim_ns:$' "$T/out"
	expect_line '^\[[0-9]+[KM]?, [0-9]+[KM]?\) +[0-9]+ \|@*' "$T/out"
	echo "RESULT reclaim -s: $n intervals, M-RECLAIMms total $(awk '/^[0-9][0-9]:/ { s += $4 } END { print s + 0 }' "$T/out")"
	run_fl reclaim -s 3
	expect_eq "$rc" 0 "reclaim -s 3 status"
	expect_eq "$(grep -cE "$IV_LINE" "$T/out")" 3 "interval lines in 3 s"
}

# check_s_json_duration: `reclaim -s --json -i 0.5 3` has 5 to 7 intervals.
check_s_json_duration() {
	local n
	run_fl reclaim -s --json -i 0.5 3
	expect_eq "$rc" 0 "reclaim -s --json -i 0.5 3 status"
	n=$(grep -c '"type":"interval"' "$T/out")
	[ "$n" -ge 5 ] && [ "$n" -le 7 ] || fail "$n intervals of 0.5 s in 3 s"
}

# check_vmstat_rung EXACT: the /proc/vmstat rung, for real, vmscan
# masked, for 2 s.  Its lines are the deltas of consecutive reads, the
# first against the read at the start: their allocstalls must not exceed
# /proc/vmstat's delta over the run, and with EXACT 1 (nothing else
# stalls between our reads and its: an idle machine) equal it.
allocstalls() { awk '$1 ~ /^allocstall/ { s += $2 } END { print s + 0 }' /proc/vmstat; }
check_vmstat_rung() {
	local before after stalls
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
	if [ "$1" = 1 ]; then
		expect_eq "$stalls" $((after - before)) "vmstat rung allocstalls vs /proc/vmstat's delta"
	else
		[ "$stalls" -le $((after - before)) ] || fail "vmstat rung: $stalls allocstalls > /proc/vmstat's $((after - before))"
	fi
	echo "RESULT reclaim vmstat rung: $stalls allocstalls, /proc/vmstat delta $((after - before))"
}

# check_usage: bad options exit 2.
check_usage() {
	run_fl reclaim -s -i 0
	expect_eq "$rc" 2 "reclaim -i 0"
	run_fl reclaim --nosuch
	expect_eq "$rc" 2 "reclaim --nosuch"
}
