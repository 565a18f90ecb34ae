#!/bin/sh
# el7-compact.sh (guest, RHEL 7's 3.10): `faultline compact` on the rung
# 3.10 has.  Its compaction tracepoints are only the isolate/migrate ones
# (no mm_compaction_begin/try_to_compact_pages): the ladder says so in one
# line and falls back to /proc/vmstat's counters, system-wide.  Checked
# against the kernel's own account: thp-target --fragment leaves free
# memory in order-0 pages and holds it (waiting on its FIFO); then the
# traced command raises the hugetlb pool by 32 pages of 2 MiB more than
# the free 2 MiB blocks left, which only direct compaction can give (the
# THP faults of 3.10 here fell back to small pages without a stall).  The
# sums of faultline's interval lines must equal the /proc/vmstat deltas
# over the run exactly (3.10 has no kcompactd: in this quiet guest only
# the command compacts), with at least one stall.
. "$top_srcdir/tests/system/lib.sh"
need_root
TT=$(target thp-target)
THP=/sys/kernel/mm/transparent_hugepage
[ -d "$(tracing_dir)/events/compaction/mm_compaction_begin" ] && skip "this kernel has mm_compaction_begin: compact.sh's rung"
[ -w "$THP/defrag" ] && [ -w "$THP/enabled" ] || skip "no transparent hugepages"
old_en=$(sed 's/.*\[\(.*\)\].*/\1/' "$THP/enabled")
old_df=$(sed 's/.*\[\(.*\)\].*/\1/' "$THP/defrag")
at_exit 'echo "$old_en" >"$THP/enabled"; echo "$old_df" >"$THP/defrag"'
# THP and its defrag "always", as compact-direct.sh has them.
echo always >"$THP/enabled" && echo always >"$THP/defrag" || fail "cannot set THP enabled/defrag to always"
vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
free_kb=$(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo)
frag_mb=$((free_kb * 90 / 100 / 1024))

NR=/proc/sys/vm/nr_hugepages
old_nr=$(cat "$NR")
go_fifo t1
spawn_at_fifo t1 "$TT" --fragment "$frag_mb" --faults 1 --go "$fifo"
tpid=$spawned
grep -q '^fragmented=' "$T/t1.out" || fail "target did not fragment: $(cat "$T/t1.err")"
at_exit 'echo "$old_en" >"$THP/enabled"; echo "$old_df" >"$THP/defrag"; echo "$old_nr" >"$NR"'
s0=$(vm compact_stall) f0=$(vm compact_fail) ok0=$(vm compact_success) fb0=$(vm thp_fault_fallback)
# The free 2 MiB blocks left (order 9, and 10 as two) and 32 more pages:
# those 32 can only come from compaction.
blocks=$(awk '$3 == "zone" { n += $14 + 2 * $15 } END { print n + 0 }' /proc/buddyinfo)
echo "free 2 MiB blocks after fragmenting: $blocks; the pool raised by $((blocks + 32))"
run_fl compact -c "sh -c 'echo $((old_nr + blocks + 32)) >$NR'"
s1=$(vm compact_stall) f1=$(vm compact_fail) ok1=$(vm compact_success) fb1=$(vm thp_fault_fallback)
echo "hugetlb pool: $(cat "$NR") pages (was $old_nr); free blocks by order (/proc/buddyinfo):"
cat /proc/buddyinfo
echo "$old_nr" >"$NR"
release "$fifo"
wait_exit "$tpid" "thp-target"
expect_eq "$rc" 0 "compact status"
cat "$T/err"
expect_line '^faultline compact: falling back to /proc/vmstat compact_stall/compact_fail/compact_success' "$T/err"
expect_line 'mm_compaction_try_to_compact_pages' "$T/err"
expect_line '^TIME +COMPACT_STALL +COMPACT_FAIL +COMPACT_SUCCESS +THP_FAULT_FALLBACK +THP_COLLAPSE_ALLOC +THP_COLLAPSE_ALLOC_FAILED$' "$T/out"
sum() { awk -v c="$1" '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] / { s += $c } END { print s + 0 }' "$T/out"; }
[ $((s1 - s0)) -gt 0 ] || fail "no direct compaction stall in /proc/vmstat over the run"
expect_eq "$(sum 2)" $((s1 - s0)) "COMPACT_STALL vs /proc/vmstat compact_stall delta"
expect_eq "$(sum 3)" $((f1 - f0)) "COMPACT_FAIL vs compact_fail delta"
expect_eq "$(sum 4)" $((ok1 - ok0)) "COMPACT_SUCCESS vs compact_success delta"
expect_eq "$(sum 5)" $((fb1 - fb0)) "THP_FAULT_FALLBACK vs thp_fault_fallback delta"
echo "RESULT compact el7 vmstat: stall $(sum 2) fail $(sum 3) success $(sum 4) fallback $(sum 5) (vmstat deltas $((s1 - s0)) $((f1 - f0)) $((ok1 - ok0)) $((fb1 - fb0)))"
pass_or_fail
