#!/bin/sh
# numa.sh (guest, booted with two NUMA nodes by scripts/check-vm):
# `faultline numa` on numa-bind, which binds 64 pages to each node, moves
# 16 of node 0's to node 1 with move_pages(2) and prints where the kernel
# says each page is.  The tool's pages per node of each region must be
# the target's account exactly, its migrations (migrate:mm_migrate_pages)
# the pages the target saw move, its node table this test's own sums of
# /proc/PID/numa_maps (a -p run, the target held on a FIFO).  NUMA
# balancing is off during the exact runs, so that nothing else migrates
# the target's pages.  busybox: sed and awk, no python.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
NB=$(target numa-bind)
online=$(cat /sys/devices/system/node/online)
[ "$online" = 0-1 ] || fail "nodes online: '$online', want 0-1 (check-vm's -numa)"
bal=$(cat /proc/sys/kernel/numa_balancing 2>/dev/null || echo)
[ -n "$bal" ] && echo 0 >/proc/sys/kernel/numa_balancing

# check_regions: every region line of the target's account is the JSON
# mapping at its start, with exactly its pages per node.
check_regions() {
	local n=0 start want got
	while read -r line; do
		start=$(echo "$line" | sed -n 's/.* start=0x\([0-9a-f]*\) .*/\1/p')
		want=$(echo "$line" | sed 's/^.* pages=[0-9]*//; s/ N\([0-9]*\)=\([0-9]*\)/,"\1":\2/g; s/^,//')
		got=$(grep "\"type\":\"mapping\",\"start\":\"0x$start\"" "$T/out" |
			sed -n 's/.*"nodes":{\([^}]*\)}.*/\1/p')
		expect_eq "$got" "$want" "$1: region at 0x$start, pages per node"
		n=$((n + 1))
	done <<EOF
$(grep '^region=' "$T/out")
EOF
	expect_eq "$n" "$2" "$1: regions in the target's account"
}

# node_rows: "NODE KIND KB" of the JSON node rows.
node_rows() {
	grep '"type":"node"' "$T/out" | sed 's/[{}"]//g' | tr ',' '\n' | awk -F: '
		$1 == "node" { n = $2; next }
		$1 ~ /_kb$/ && $1 != "total_kb" { k = $1; sub(/_kb$/, "", k); print n, k, $2 }' | sort
}

# maps_rows FILE: the same sums, from a numa_maps file (every node the
# guest has: 0 and 1).
maps_rows() {
	awk '{
		kind = "private"; kb = 0; delete pg
		for (i = 3; i <= NF; i++) {
			if (($i == "heap" || $i == "stack") && kind == "private") kind = $i
			else if ($i == "huge") kind = "huge"
			else if ($i ~ /^file=/ && kind != "huge") kind = "file"
			else if ($i ~ /^kernelpagesize_kB=/) { kb = $i; sub(/.*=/, "", kb) }
			else if ($i ~ /^N[0-9]+=/) { n = $i; sub(/^N/, "", n); p = n; sub(/=.*/, "", n); sub(/.*=/, "", p); pg[n] = p }
		}
		for (n in pg) sum[n " " kind] += pg[n] * kb
	}
	END {
		split("huge heap stack private file", ks, " ")
		for (n = 0; n < 2; n++) for (k in ks) print n, ks[k], sum[n " " ks[k]] + 0
	}' "$1" | sort
}

# 1. A command: its two regions exactly, 16 pages migrated by move_pages.
run_fl numa --json -- "$NB" --nodes 2 --pages 64 --migrate 16
expect_eq "$rc" 0 "numa -c status"
expect_line '^migrated=16$' "$T/out"
expect_line '^node0=48$' "$T/out"
expect_line '^node1=80$' "$T/out"
check_regions "-c" 2
expect_line '^\{"type":"migrations","reason":"syscall_or_cpuset","calls":1,"pages":16,"failed":0,"thp":0\}$' "$T/out"
expect_eq "$(grep -c '"type":"migrations"' "$T/out")" 1 "migration reasons"
expect_line '^\{"type":"node","node":1,.*"private_kb":[0-9]+,' "$T/out"
expect_line '"bad_lines":0,.*"lost":0\}$' "$T/out"
echo "RESULT numa -c: $(grep '^region=' "$T/out" | tr '\n' ' ')migrated $(sed -n 's/^migrated=//p' "$T/out")"

# 2. A process held on its FIFO: the node table is numa_maps's, to the KiB.
numa_held 0.5 --nodes 2 --pages 100 --migrate 30
check_regions "-p" 2
node_rows >"$T/got"
maps_rows "$T/numa_maps" >"$T/want"
if ! cmp -s "$T/got" "$T/want"; then
	fail "-p: the node table is not numa_maps's: $(diff "$T/want" "$T/got" | tr '\n' '|')"
fi
echo "RESULT numa -p: node table of $(wc -l <"$T/got") figures equal to numa_maps's"

# 2b. The /proc/vmstat rung: the same regions; the 16 pages moved are
#     among the system's pgmigrate_success, no longer the process's own.
FAULTLINE_MASK='migrate:*' run_fl numa --json -- "$NB" --nodes 2 --pages 64 --migrate 16
expect_eq "$rc" 0 "numa vmstat rung status"
expect_line 'falling back to /proc/PID/numa_maps; /proc/vmstat' "$T/err"
check_regions "vmstat rung" 2
expect_no_line '"type":"migrations"' "$T/out"
ok=$(sed -n 's/.*"pgmigrate_success":\([0-9]*\).*/\1/p' "$T/out")
[ "${ok:-0}" -ge 16 ] || fail "vmstat rung: pgmigrate_success ${ok:-absent}, the target moved 16"

# 3. Text: a column a node, -v's rows of the two regions.
run_fl numa -v -c "$NB --nodes 2 --pages 64"
expect_eq "$rc" 0 "numa text status"
s0=$(sed -n 's/^region=0 start=0x\([0-9a-f]*\) .*/\1/p' "$T/out")
s1=$(sed -n 's/^region=1 start=0x\([0-9a-f]*\) .*/\1/p' "$T/out")
expect_line "^ {17} {10}Node 0 {10}Node 1 {11}Total$" "$T/out"
expect_line "^0*$s0 bind:0 +Private +4 +64 +0  $" "$T/out"
expect_line "^0*$s1 bind:1 +Private +4 +0 +64  $" "$T/out"
expect_no_line "^syscall_or_cpuset" "$T/out"
# The report of run 1 as text, for the log (and faultline-numa(1)'s example).
run_fl numa -c "$NB --nodes 2 --pages 64 --migrate 16"
expect_eq "$rc" 0 "numa text migrations status"
expect_line "^syscall_or_cpuset +1 +16 +0 +0$" "$T/out"
sed -n '/^Per-node/,/^System-wide/p' "$T/out"

# 4. NUMA balancing: 64 pages on node 0, read from node 1's CPU until
#    balancing has moved them (the target stops when all are on node 1,
#    or after 20 s).  Every page it moved was a NUMA-hinting fault and a
#    numa_misplaced migration in the target's task: at least as many of
#    each as the pages the target saw arrive (its other pages may move
#    too, and the hinting faults are the system's).
if [ -n "$bal" ]; then
	echo 1 >/proc/sys/kernel/numa_balancing
	run_fl numa --json -- "$NB" --pages 64 --balance 20000
	expect_eq "$rc" 0 "numa balancing status"
	k=$(sed -n 's/^balanced=//p' "$T/out")
	[ "${k:-0}" -ge 1 ] || fail "balancing moved none of the 64 pages in 20 s"
	m=$(sed -n 's/^{"type":"migrations","reason":"numa_misplaced","calls":[0-9]*,"pages":\([0-9]*\),.*/\1/p' "$T/out")
	[ "${m:-0}" -ge "${k:-1}" ] || fail "numa_misplaced pages ${m:-none}, the target saw $k arrive"
	h=$(sed -n 's/.*"numa_hint_faults":\([0-9]*\),.*/\1/p' "$T/out")
	[ "${h:-0}" -ge "${k:-1}" ] || fail "numa_hint_faults ${h:-absent}, the target saw $k pages moved"
	echo "RESULT numa balancing: $k of 64 pages moved to node 1; numa_misplaced pages $m; hinting faults $h (system)"
	echo "$bal" >/proc/sys/kernel/numa_balancing
fi
pass_or_fail
