# lib-swapin.sh: the checks of `faultline swapin -p` against reclaim-target
# --pageout, shared by tests/vm/swapin.sh (6.1: MADV_PAGEOUT) and
# tests/vm/el7-swapin.sh (3.10: a memory cgroup limit), and 3.10's zram
# swap (el7-swapin.sh, el7-pressure.sh).  Sourced after
# tests/system/lib.sh.  (tests/vm/init runs no lib-*.sh as a test.)

truth() { sed -n "s/^$1=//p" "$T/$2.out" | head -n 1; }

# swapin_checks NAME BANNER_REGEX: after `swapin -p $tpid` of the target
# spawned as NAME: pages went to swap, every one came back by one major
# fault (getrusage), the banner, and the target's row equal to those pages.
# Sets so, si, mf (the target's counts) and got (faultline's).
swapin_checks() {
	expect_eq "$rc" 0 "$1: swapin -p status"
	so=$(truth swapped_out "$1")
	si=$(truth swapped_in "$1")
	mf=$(truth majflt "$1")
	[ "${so:-0}" -gt 0 ] || fail "$1: no page went to swap"
	expect_eq "$si" "$so" "$1: pages swapped back in"
	expect_eq "$mf" "$si" "$1: major faults (one per page)"
	expect_line "$2" "$T/err"
	got=$(awk -v p="$tpid" '$2 == p && $1 == "reclaim-target" { s += $3 } END { print s + 0 }' "$T/out")
	expect_eq "$got" "$si" "$1: the target's count"
}

# swapin_rungs: the test's run_rung on the kprobe rung (swap_readpage),
# then on the major-fault rung (kprobes masked).
swapin_rungs() {
	unset FAULTLINE_MASK
	run_rung kprobe 'kprobe swap_readpage'
	FAULTLINE_MASK=kprobes
	export FAULTLINE_MASK
	run_rung majfault 'falling back to major faults'
	unset FAULTLINE_MASK
}

# zram_swap_cg NAME (3.10, el7-swapin.sh and el7-pressure.sh): swap on
# zram0 (64 MiB; zram is built in there), vm.page-cluster 0 (3.10 reads
# swap ahead even on zram: with 0 each page comes back by one read and one
# major fault) and a v1 memory cgroup $CG (NAME-PID, under $MEMCG), all
# undone at exit; skip without the v1 memory controller.
zram_swap_cg() {
	ZRAM=/sys/block/zram0
	MEMCG=/sys/fs/cgroup/memory
	PC=/proc/sys/vm/page-cluster
	[ -d "$ZRAM" ] || fail "no $ZRAM"
	[ -e "$MEMCG/memory.limit_in_bytes" ] || skip "no cgroup v1 memory controller at $MEMCG"
	echo 64M >"$ZRAM/disksize" || fail "cannot size zram0"
	mkswap /dev/zram0 >/dev/null || fail "mkswap /dev/zram0"
	swapon /dev/zram0 || fail "swapon /dev/zram0"
	old_pc=$(cat "$PC")
	CG=$MEMCG/$1-$$
	at_exit 'empty_cg "$CG"; echo "$old_pc" >"$PC"; swapoff /dev/zram0; echo 1 >"$ZRAM/reset"'
	echo 0 >"$PC" || fail "cannot set $PC to 0"
	mkdir "$CG" || fail "cannot create $CG"
}
