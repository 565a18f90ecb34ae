#!/bin/sh
# el7-swapin.sh (guest, RHEL 7's 3.10): `faultline swapin -p` against
# reclaim-target on a zram swap device (zram0; zram is built in), on the
# kprobe rung (swap_readpage) and the major-fault rung (kprobes masked).
# 3.10 has no MADV_PAGEOUT: the target writes its 2000 private anonymous
# pages inside a v1 memory cgroup limited to 4 MiB, which pushes most of
# them to swap (with --mlock it locks what it mapped before, so that the
# limit takes its region's pages only), and counts from /proc/self/pagemap
# how many are there; the limit is lifted before it reads them back.  3.10 reads swap ahead
# (page-cluster) even on zram: vm.page-cluster is 0 meanwhile, so that each
# page comes back by one read and one major fault.  The target's row must
# equal the pages it swapped back in, its major faults (getrusage) and
# /proc/vmstat's pswpin delta over the run (the kernel's own count of
# pages read from swap: nothing else swaps in this guest).
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-swapin.sh"
need_root
RT=$(target reclaim-target)
zram_swap_cg faultline-swapin
pswpin() { awk '$1 == "pswpin" { print $2 }' /proc/vmstat; }

run_rung() { # NAME BANNER_REGEX
	echo $((4 << 20)) >"$CG/memory.limit_in_bytes" || fail "cannot limit $CG"
	go_fifo "$1"
	spawn_at_fifo "$1" sh -c "echo \$\$ >'$CG/cgroup.procs' && exec '$RT' --pageout 2000 --mlock --go '$fifo'"
	tpid=$(truth pid "$1")
	echo -1 >"$CG/memory.limit_in_bytes" || fail "cannot lift the limit of $CG"
	before=$(pswpin)
	run_fl_go "$fifo" swapin -p "$tpid"
	kin=$(($(pswpin) - before))
	swapin_checks "$1" "$2"
	expect_eq "$kin" "$si" "$1: /proc/vmstat pswpin delta"
	echo "RESULT swapin el7 $1: $got swap-ins of pid $tpid (truth: swapped out $so, in $si, majflt $mf, pswpin delta $kin)"
}
swapin_rungs
pass_or_fail
