#!/bin/sh
# compact-direct.sh (guest): `faultline compact -p` sees direct compaction
# for real.  thp-target --fragment writes most of free memory in 4 KiB
# pages and frees every other one (free memory: order-0 pages between
# movable ones), then, released by the FIFO once faultline traces it,
# faults 2 MiB THP regions with THP enabled and defrag "always": the
# faults that find no free 2 MiB block compact directly in the target.
# Proactive compaction is off meanwhile (vm.compaction_proactiveness 0):
# kcompactd would otherwise rebuild free 2 MiB blocks between the
# fragmenting and the faults (seen: a run after reclaim.sh had no stall).
# Checked: every direct line is the target's pid, order 9, kind direct;
# the footer's stalls equal /proc/vmstat's compact_stall delta over the
# run exactly, and the direct runs that ended "success" (the page
# captured: try_to_compact_pages stops at it) /proc/vmstat's
# compact_success delta, the other stalls its compact_fail delta.
. "$top_srcdir/tests/system/lib.sh"
need_root
TT=$(target thp-target)
FAULTS=256
THP=/sys/kernel/mm/transparent_hugepage
[ -d "$(tracing_dir)/events/compaction/mm_compaction_try_to_compact_pages" ] || skip "no compaction tracepoints"
[ -w "$THP/defrag" ] && [ -w "$THP/enabled" ] || skip "no transparent hugepages"
old_en=$(sed 's/.*\[\(.*\)\].*/\1/' "$THP/enabled")
old_df=$(sed 's/.*\[\(.*\)\].*/\1/' "$THP/defrag")
PRO=/proc/sys/vm/compaction_proactiveness
old_pro=$(cat "$PRO" 2>/dev/null)
at_exit 'echo "$old_en" >"$THP/enabled"; echo "$old_df" >"$THP/defrag"; [ -z "$old_pro" ] || echo "$old_pro" >"$PRO"'
echo always >"$THP/enabled" && echo always >"$THP/defrag" || fail "cannot set THP enabled/defrag to always"
[ -z "$old_pro" ] || echo 0 >"$PRO" || fail "cannot set $PRO to 0"
vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
truth() { sed -n "s/^$1=//p" "$2" | head -n 1; }
free_kb=$(awk '$1 == "MemFree:" { print $2 }' /proc/meminfo)
frag_mb=$((free_kb * 95 / 100 / 1024))
echo "MemFree $free_kb kB: fragmenting $frag_mb MiB, then $FAULTS THP faults"

go_fifo t1
spawn_at_fifo t1 "$TT" --fragment "$frag_mb" --faults "$FAULTS" --go "$fifo"
tpid=$spawned
[ -n "$(truth fragmented "$T/t1.out")" ] || fail "target did not fragment: $(cat "$T/t1.err")"
echo "free blocks by order at the start (/proc/buddyinfo):"
cat /proc/buddyinfo
s0=$(vm compact_stall) f0=$(vm compact_fail) ok0=$(vm compact_success) fb0=$(vm thp_fault_fallback)
run_fl_go "$fifo" compact -p "$tpid"
s1=$(vm compact_stall) f1=$(vm compact_fail) ok1=$(vm compact_success) fb1=$(vm thp_fault_fallback)
wait_exit "$tpid" "thp-target"
expect_eq "$rc" 0 "thp-target status"
expect_eq "$(truth faulted "$T/t1.out")" "$FAULTS" "the target's THP faults"
stall=$((s1 - s0)) cfail=$((f1 - f0)) csucc=$((ok1 - ok0))
echo "vmstat over the run: compact_stall $stall, compact_success $csucc, compact_fail $cfail, thp_fault_fallback $((fb1 - fb0)); AnonHugePages $(truth anon_huge_kb "$T/t1.out") kB"
cat "$T/err"
# The summary's direct line: "  direct:        12 runs, 3.41 ms, 12 stalls".
footer=$(sed -n 's/^  direct: *\([0-9,]*\) runs, [0-9.]* ms, \([0-9,]*\) stalls$/\1 \2/p' "$T/err" | tr -d ,)
[ -n "$footer" ] || fail "no direct line in the summary"
nd=$(grep -Ec "^thp-target +$tpid +[0-9]+\.[0-9][0-9] +9 direct +[a-z_]+\$" "$T/out")
nany=$(grep -Ec ' direct ' "$T/out")
nsucc=$(grep -Ec "^thp-target +$tpid +[0-9.]+ +9 direct +success\$" "$T/out")
[ "$stall" -gt 0 ] || fail "no direct compaction stall in /proc/vmstat over the run (fragmented $(truth fragmented "$T/t1.out") pages)"
[ "$nd" -gt 0 ] || fail "no direct compaction line of pid $tpid"
expect_eq "$nany" "$nd" "direct lines not 'thp-target $tpid LAT 9 direct RESULT'"
expect_eq "${footer% *}" "$nd" "summary direct runs vs lines"
expect_eq "${footer#* }" "$stall" "summary stalls vs vmstat compact_stall delta"
expect_eq "$nsucc" "$csucc" "direct runs ended success vs vmstat compact_success delta"
expect_eq "$((stall - nsucc))" "$cfail" "stalls without a success vs vmstat compact_fail delta"
echo "RESULT compact direct: $nd direct runs of pid $tpid ($nsucc ended success), $stall stalls = compact_stall delta; compact_success $csucc, compact_fail $cfail; summary direct runs, stalls: $footer"
pass_or_fail
