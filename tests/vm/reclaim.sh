#!/bin/sh
# reclaim.sh (guest): `faultline reclaim` against reclaim-target in a
# cgroup made here (v2 memory.max; on RHEL 7's 3.10 v1
# memory.limit_in_bytes) of 16 MiB, below the file it writes and
# reads twice (64 MiB, on the brd-backed ext4: clean page cache of a disk
# file): every MiB beyond the limit is reclaimed by the target itself
# (memcg reclaim, vmscan:mm_vmscan_memcg_reclaim_{begin,end}, on 6.1
# and 3.10 alike; the guest's ext4 is on brd there, on zram here).
# The host's tests/system/reclaim.sh (cgroup v1), its checks shared
# (tests/vm/lib-reclaim.sh): -p drsnoop's rows, footer and pages bound;
# -T; --json (checked with awk: no python3 in the guest), its events
# adding up to its summary exactly; -s as vmscan.bt with the memcg
# milliseconds and histogram, and the interval counts of a duration; the
# /proc/vmstat rung through FAULTLINE_MASK, its allocstalls equal to
# /proc/vmstat's delta over the run (memcg reclaim is not counted there:
# the idle guest gives 0 = 0); usage errors.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-reclaim.sh"
need_root
RT=$(target reclaim-target)
LIMIT_MB=16
FILE_MB=64
block_backed_dir
DATA=$block_dir/reclaim-target.$$.dat
# cgroup v2 (6.1), else the v1 memory controller /init mounts (RHEL 7).
if [ -e /sys/fs/cgroup/cgroup.subtree_control ]; then
	CG=/sys/fs/cgroup/faultline-reclaim-$$ limit=memory.max
elif [ -e /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
	CG=/sys/fs/cgroup/memory/faultline-reclaim-$$ limit=memory.limit_in_bytes
else
	fail "no memory cgroup: neither v2 at /sys/fs/cgroup nor v1 at /sys/fs/cgroup/memory"
fi
mkdir "$CG" || fail "cannot create $CG"
echo $((LIMIT_MB << 20)) >"$CG/$limit" || fail "cannot set $CG/$limit"
at_exit 'empty_cg "$CG"; rm -f "$DATA"'

# json_objects FILE: every non-empty line one flat JSON object (no
# python3 here: its shape, {"key":value,...}, with awk).
json_objects() {
	awk 'NF && $0 !~ /^\{"[a-z_]+":[^{}]*(,"[a-z_]+":[^{}]*)*\}$/ { bad++; print "bad JSON line " NR ": " $0 >"/dev/stderr" }
		END { exit bad > 0 }' "$1" || fail "bad JSON in ${1#"$T"/}"
}
# jnum KEY: the number of "KEY": in each line on stdin.
jnum() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p"; }

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
check_s

start_target t5
summary_run t5 -s --json -i 0.5
expect_stopped INT reclaim "$T/err" "reclaim -s --json"
json_objects "$T/out"
grep '"type":"interval"' "$T/out" >"$T/iv"
[ -s "$T/iv" ] || fail "-s --json: no interval"
mms=$(jnum memcg_ms <"$T/iv" | awk '{ s += $1 } END { print s + 0 }')
awk -v m="$mms" 'BEGIN { exit !(m > 0) }' || fail "-s --json: no memcg reclaim time while the target reclaimed"
echo "RESULT reclaim -s --json: $(wc -l <"$T/iv") intervals, memcg_ms total $mms"
check_s_json_duration

# 4. The /proc/vmstat rung, exact on the idle guest.
check_vmstat_rung 1

# 5. Usage errors.
check_usage
pass_or_fail
