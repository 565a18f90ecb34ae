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

go_fifo t1
spawn_at_fifo t1 sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$RT' --file '$DATA' --mb $FILE_MB --go '$fifo'"
tpid=$(truth pid "$T/t1.out")
[ -n "$tpid" ] || fail "target did not start: $(cat "$T/t1.err")"
run_fl_go "$fifo" reclaim -p "$tpid"
wait_until "$FL_TIMEOUT" grep -q '^read_pages=' "$T/t1.out" || fail "target did not finish"
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
pass_or_fail
