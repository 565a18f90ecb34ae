#!/bin/sh
# swapin.sh (guest): `faultline swapin -p` against reclaim-target on a
# zram swap device (the package's zram module, loaded by /init): the
# target writes 2000 private anonymous pages, pushes them out with
# MADV_PAGEOUT, counts from /proc/self/pagemap how many went to swap, then
# reads one byte of each once faultline traces.  zram is synchronous: each
# swapped page comes back by one major fault (getrusage), so the target's
# row must equal both, on 6.1's kprobe rung (swap_readpage) and on the
# major-fault rung (kprobes masked); the checks are tests/vm/lib-swapin.sh,
# shared with el7-swapin.sh (3.10, which has no MADV_PAGEOUT).
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-swapin.sh"
need_root
RT=$(target reclaim-target)
ZRAM=/sys/block/zram0
[ -d "$ZRAM" ] || fail "no $ZRAM: the zram module did not load"
echo 64M >"$ZRAM/disksize" || fail "cannot size zram0"
mkswap /dev/zram0 >/dev/null || fail "mkswap /dev/zram0"
swapon /dev/zram0 || fail "swapon /dev/zram0"
at_exit 'swapoff /dev/zram0; echo 1 >"$ZRAM/reset"'
run_rung() { # NAME BANNER_REGEX
	go_fifo "$1"
	spawn_at_fifo "$1" "$RT" --pageout 2000 --go "$fifo"
	tpid=$(truth pid "$1")
	run_fl_go "$fifo" swapin -p "$tpid"
	swapin_checks "$1" "$2"
	echo "RESULT swapin $1: $got swap-ins of pid $tpid (truth: swapped out $so, in $si, majflt $mf)"
}
swapin_rungs
pass_or_fail
