#!/bin/sh
# swapin.sh (guest): `faultline swapin -p` against reclaim-target on a
# zram swap device (the package's zram module, loaded by /init): the
# target writes 2000 private anonymous pages, pushes them out with
# MADV_PAGEOUT, counts from /proc/self/pagemap how many went to swap, then
# reads one byte of each once faultline traces.  zram is synchronous: each
# swapped page comes back by one major fault (getrusage), so the target's
# row must equal both, on 6.1's kprobe rung (swap_readpage) and on the
# major-fault rung (kprobes masked).
. "$top_srcdir/tests/system/lib.sh"
need_root
RT=$(target reclaim-target)
ZRAM=/sys/block/zram0
[ -d "$ZRAM" ] || fail "no $ZRAM: the zram module did not load"
echo 64M >"$ZRAM/disksize" || fail "cannot size zram0"
mkswap /dev/zram0 >/dev/null || fail "mkswap /dev/zram0"
swapon /dev/zram0 || fail "swapon /dev/zram0"
trap 'st=$?; swapoff /dev/zram0; echo 1 >"$ZRAM/reset"; (exit $st); _fl_exit' EXIT
truth() { sed -n "s/^$1=//p" "$T/$2.out" | head -n 1; }

run_rung() { # NAME BANNER_REGEX
	go_fifo "$1"
	spawn_at_fifo "$1" "$RT" --pageout 2000 --go "$fifo"
	tpid=$(truth pid "$1")
	run_fl_go "$fifo" swapin -p "$tpid"
	expect_eq "$rc" 0 "$1: swapin -p status"
	so=$(truth swapped_out "$1")
	si=$(truth swapped_in "$1")
	mf=$(truth majflt "$1")
	[ "${so:-0}" -gt 0 ] || fail "$1: no page went to swap"
	expect_eq "$si" "$so" "$1: pages swapped back in"
	expect_eq "$mf" "$si" "$1: major faults (one per page on zram)"
	expect_line "$2" "$T/err"
	got=$(awk -v p="$tpid" '$2 == p && $1 == "reclaim-target" { s += $3 } END { print s + 0 }' "$T/out")
	expect_eq "$got" "$si" "$1: the target's count"
	echo "RESULT swapin $1: $got swap-ins of pid $tpid (truth: swapped out $so, in $si, majflt $mf)"
}
unset FAULTLINE_MASK
run_rung kprobe 'kprobe swap_readpage'
FAULTLINE_MASK=kprobes
export FAULTLINE_MASK
run_rung majfault 'falling back to major faults'
unset FAULTLINE_MASK
pass_or_fail
