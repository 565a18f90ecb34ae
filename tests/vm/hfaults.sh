#!/bin/sh
# hfaults.sh (guest): `faultline hfaults` on 6.1's kprobe rung (hugetlb_fault,
# do_huge_pmd_anonymous_page) and on the page-flags rung (kprobes masked),
# against huge-target's own count from /proc/self/smaps: 3 hugetlb pages
# (the pool is raised here) and the THPs it got.
. "$top_srcdir/tests/system/lib.sh"
need_root
HT=$(target huge-target)
NR=/proc/sys/vm/nr_hugepages
[ -w "$NR" ] || skip "no $NR"
old=$(cat "$NR")
at_exit 'echo "$old" >"$NR"'
echo $((old + 4)) >"$NR"
truth() { sed -n "s/^$1=//p" "$T/out" | tail -n 1; }

vm() { awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat; }
# THP faults the kernel itself counted (allocated, or fallen back to small
# pages): in this quiet guest, the huge-target's own.
thp_faults() { echo $(($(vm thp_fault_alloc) + $(vm thp_fault_fallback))); }

check() { # RUNG BANNER_REGEX
	expect_eq "$rc" 0 "$1: status"
	expect_line "$2" "$T/err"
	pid=$(truth pid)
	thp=$(truth thp_pages)
	ht=$(truth hugetlb_pages)
	expect_eq "$ht" 3 "$1: hugetlb pages the target got"
	[ "${thp:-0}" -ge 1 ] || fail "$1: the target got no THP ($(cat /sys/kernel/mm/transparent_hugepage/enabled))"
	kthp=$(($(thp_faults) - before))
	# The kprobe rung counts calls of do_huge_pmd_anonymous_page: a THP
	# fault that fell back to small pages is one call too, and counted by
	# the kernel's thp_fault_fallback; the page-flags rung counts THPs.
	if [ "$1" = kprobe ] && [ "$kthp" -ne "$thp" ]; then
		echo "note: kernel counted $kthp THP faults (thp_fault_alloc + thp_fault_fallback), the target has $thp THPs"
		thp=$kthp
	fi
	expect_line "^$pid +huge-target +$((thp + ht)) +$thp +$ht\$" "$T/out"
	expect_line '^[0-9,]+ samples, lost 0 events' "$T/out"
	echo "RESULT hfaults $1: $(grep "^$pid " "$T/out") (truth: smaps thp $(truth thp_pages), hugetlb $ht; kernel THP faults $kthp)"
}

unset FAULTLINE_MASK
before=$(thp_faults)
run_fl hfaults -c "$HT --hold-ms 300"
check kprobe "^Executing '.*huge-target --hold-ms 300' and tracing huge page faults with kprobes hugetlb_fault, do_huge_pmd_anonymous_page"
before=$(thp_faults)
FAULTLINE_MASK=kprobes run_fl hfaults -c "$HT --hold-ms 300"
check pageflags 'falling back to every user fault, its page classified by /proc/PID/pagemap'
pass_or_fail
