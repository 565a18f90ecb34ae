#!/bin/sh
# record-kernel-swapin.sh: reclaim-target swaps out 2000 anonymous pages
# to a zram swap made here (64 MiB, removed at exit), then, once `faultline
# record -e swapin -p` traces (a FIFO), swaps them in: the report counts
# every page the kernel had moved to swap (MADV_PAGEOUT is best effort: the
# target's pagemap count is the truth), as the target's own majflt, as
# swapin.sh asserts live.  Recorded alone: of two sessions sampling the
# major-faults software event of one task, the earlier sees none.
# Skipped (77) without zram0 or mkswap/swapon, or with zram0 in use.
# (record-kernel.sh has the rest of record/report.)
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/system/record-kernel-lib.sh"
need_root

RT=$(target reclaim-target)
[ -x "$RT" ] || fail "no target at $RT"
ZRAM=/sys/block/zram0
ZRAM_MADE=
[ -d "$ZRAM" ] || skip "no $ZRAM (the zram module is not loaded; this test does not modprobe)"
command -v mkswap >/dev/null && command -v swapon >/dev/null && command -v swapoff >/dev/null ||
	skip "mkswap/swapon/swapoff missing"
[ "$(cat "$ZRAM/disksize")" = 0 ] || skip "zram0 is in use (disksize $(cat "$ZRAM/disksize"))"
grep -q '^/dev/zram0 ' /proc/swaps && skip "zram0 is already swap"
zram_off() {
	[ -n "$ZRAM_MADE" ] || return 0
	swapoff /dev/zram0 2>/dev/null
	echo 1 >"$ZRAM/reset" || echo "record-kernel-swapin.sh: could not reset zram0" >&2
	ZRAM_MADE=
}
at_exit 'zram_off'
echo 64M >"$ZRAM/disksize" || skip "cannot size zram0"
ZRAM_MADE=1
mkswap /dev/zram0 >/dev/null || fail "mkswap /dev/zram0"
swapon /dev/zram0 || fail "swapon /dev/zram0"

go_fifo sw
spawn_at_fifo sw "$RT" --pageout 2000 --go "$fifo"
spid=$(truth pid "$T/sw.out")
so=$(truth swapped_out "$T/sw.out")
[ "${so:-0}" -gt 0 ] && [ "$so" -le 2000 ] || fail "$so pages in swap after MADV_PAGEOUT of 2000"
rec_start swapin swapin -p "$spid"
release "$fifo"
rec_wait swapin
si=$(truth swapped_in "$T/sw.out")
expect_eq "$si" "$so" "pages swapped back in"
expect_eq "$(truth majflt "$T/sw.out")" "$si" "the target's major faults"
report swapin -i "$T/swapin.rec" swapin --json
expect_json_lines "$T/swapin.out"
got=$(python3 -c '
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [e for e in evs if e["type"] == "swapin"]
assert all(e["pid"] == int(sys.argv[2]) and e["comm"] == "reclaim-target" for e in rows), rows
print(sum(e["count"] for e in rows))' "$T/swapin.out" "$spid") || fail "report swapin: rows"
echo "swapin: the target swapped in $si pages, the report counts $got"
expect_eq "$got" "$si" "report swapin: the target's swap-ins"
expect_line '^\{"type":"summary","swapins":'"$si"',"other_major_faults":[0-9]+,"lost":0\}$' "$T/swapin.out"
# A report with an interval and count: time lines, the target's row.
report swapin-text -i "$T/swapin.rec" swapin 1
expect_eq "$(awk -v p="$spid" '$2 == p && $1 == "reclaim-target" { s += $3 } END { print s + 0 }' "$T/swapin-text.out")" "$si" "report swapin 1: the target's count"
expect_line '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$T/swapin-text.out"
pass_or_fail
