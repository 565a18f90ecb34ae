#!/bin/sh
# lockdown.sh (guest, booted with lockdown=integrity or confidentiality):
# `features` names what lockdown closed; the tools work through what is
# left, with the figures of their targets; a tool with nothing left refuses
# in one line that names lockdown and starts nothing.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
mode=$(sed -n 's/.*\[\([a-z]*\)\].*/\1/p' /sys/kernel/security/lockdown 2>/dev/null)
case $mode in
integrity | confidentiality) ;;
*) skip "not locked down (lockdown: '${mode:-absent}')" ;;
esac
run_fl features
expect_eq "$rc" 0 "features status"
expect_line "^lockdown +$mode\$" "$T/out"
sed -n '/^FEATURE/,/^$/p' "$T/out" | grep -E '^(tracefs|kprobes|uprobes|uprobe_pmu|kprobe_pmu|perf_events) '
rung() { awk -v t="$1" '$1 == t && (t != "leak" || $2 != "-k") { sub("^" t " +", ""); print; exit }' "$T/out"; }

if [ "$mode" = integrity ]; then
	# Integrity mode closes nothing faultline uses (debugfs writes,
	# /dev/mem, kexec, unsigned modules...): the same rungs as unlocked.
	expect_line '^tracefs +yes ' "$T/out"
	expect_line '^kprobes +yes ' "$T/out"
	expect_line '^kprobe_pmu +yes ' "$T/out"
	expect_line '^uprobe_pmu +yes ' "$T/out"
	case $(rung cache) in "kprobes folio_mark_accessed"*) ;; *) fail "integrity: cache on '$(rung cache)'" ;; esac
	case $(rung leak) in "uprobes+uretprobes"*) ;; *) fail "integrity: leak on '$(rung leak)'" ;; esac
	pass_or_fail
fi

# ---- confidentiality: tracefs and kprobes (tracefs and PMU) are closed
expect_line '^tracefs +no +tracefs is unusable under lockdown \[confidentiality\]' "$T/out"
expect_line '^kprobe_pmu +no +kprobe creation is blocked under lockdown \[confidentiality\]' "$T/out"
expect_line '^uprobe_pmu +yes ' "$T/out"
expect_line '^kprobes +no ' "$T/out"
for t in faults hfaults oom cache swapin; do
	echo "rung: $t: $(rung "$t")"
done
for t in leak brk mmap; do
	case $(rung "$t") in "perf uprobe PMU "*) ;; *) fail "confidentiality: $t on '$(rung "$t")'" ;; esac
done

# What is left, for real, with the targets' figures.
FT=$(target fault-target)
run_fl faults --folded -c "$FT"
expect_eq "$rc" 0 "faults status"
expect_line 'falling back to software events page-faults' "$T/err"
expect_line '^fault-target;.*main;run_fault_scenario;touch_anon 32$' "$T/out"
echo "RESULT lockdown faults: $(grep -c . "$T/out") folded stacks, touch_anon 32: $(grep -c 'touch_anon 32$' "$T/out")"

HT=$(target huge-target)
NR=/proc/sys/vm/nr_hugepages
echo 4 >"$NR"
run_fl hfaults -c "$HT --hold-ms 300"
cp "$T/out" "$T/hfaults.out"
cp "$T/err" "$T/hfaults.err"
expect_eq "$rc" 0 "hfaults status"
pid=$(sed -n 's/^pid=//p' "$T/out")
thp=$(sed -n 's/^thp_pages=//p' "$T/out")
ht=$(sed -n 's/^hugetlb_pages=//p' "$T/out")
expect_eq "$ht" 3 "hfaults: hugetlb pages the target got"
expect_line "^$pid +huge-target +$((thp + ht)) +$thp +$ht\$" "$T/out"
echo "RESULT lockdown hfaults: $(grep "^$pid " "$T/out") (truth: thp $thp, hugetlb $ht)"
echo 0 >"$NR"

# leak, brk and mmap through the perf uprobe PMU: probes by
# perf_event_open, arguments from the sampled registers, the program's own
# mmap/munmap/brk through libc's wrappers (no syscall tracepoints).
pmu_tools "lockdown pmu"

# Nothing left: one line naming lockdown, exit 1, the target never ran.
refuses() { # WHAT ARGS...
	local what=$1
	shift
	run_fl "$@"
	expect_eq "$rc" 1 "$what: status"
	expect_eq "$(grep -c . "$T/err")" 1 "$what: lines on stderr"
	expect_line 'lockdown' "$T/err"
	echo "RESULT lockdown refusal: faultline $*: $(cat "$T/err")"
}
refuses "leak -k" leak -k 1 1
pass_or_fail
