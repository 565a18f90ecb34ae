#!/bin/sh
# cache.sh (guest): `faultline cache` on 6.1's kprobe rung and, side by
# side, on each lower rung the ladder offers there, against cache-target's
# truth: a 64 MiB file on ext4 (a brd RAM disk: block-backed) written,
# dropped, read cold, then warm, one `faultline cache` per phase stopped
# with SIGINT once cache-target printed done=PHASE.  Nothing else runs in
# the guest, so the phase's own figure must be at least 95% of its pages.
# The tracepoint rung (filemap:mm_filemap_get_pages, 6.11+) does not exist
# on 6.1: cache-tracepoint.sh skips for that reason.
. "$top_srcdir/tests/system/lib.sh"
need_root
TGT=$(target cache-target)
block_backed_dir
FILE=$block_dir/cache-test.$$.dat
trap 'rm -f "$FILE"; _fl_exit' EXIT
MIB=64
truth() { sed -n "s/^$1=//p" "$T/tgt.out" | tail -n 1; }

phase() { # NAME
	local name=$1 fl st
	spawn "fl-$name" "$FAULTLINE" cache 1000
	fl=$spawned
	if ! wait_until 60 grep -q HITRATIO "$T/fl-$name.out"; then
		fail "$rung $name: faultline cache did not start: $(cat "$T/fl-$name.err")"
		return 0
	fi
	kill -USR1 "$tgt"
	wait_until 120 grep -q "^done=$name\$" "$T/tgt.out" || fail "$rung $name: target did not finish"
	kill -INT "$fl"
	wait "$fl"
	st=$?
	[ "$st" -eq 0 ] || fail "$rung $name: faultline cache exited $st"
	expect_eq "$(tail -n 1 "$T/fl-$name.out")" "Detaching..." "$rung $name: last line"
	sed -n 2p "$T/fl-$name.out" | awk '{ print $1, $2, $3 }' >"$T/row.$name"
	echo "$rung $name: $(sed -n 2p "$T/fl-$name.out")"
}

at_least() { [ "$1" -ge $(($2 - $2 * 5 / 100)) ]; }

run_rung() { # NAME BANNER_REGEX
	rung=$1
	rm -f "$FILE"
	spawn tgt "$TGT" "$FILE" --mib "$MIB"
	tgt=$spawned
	wait_until 20 grep -q '^pages=' "$T/tgt.out" || { fail "$rung: cache-target did not start"; return 0; }
	pages=$(truth pages)
	expect_eq "$pages" $((MIB * 1048576 / 4096)) "$rung: target pages"
	phase write
	expect_line "$2" "$T/fl-write.err"
	set -- $(cat "$T/row.write")
	at_least "$3" "$pages" && echo "ok: $rung write: DIRTIES $3 of $pages pages" ||
		fail "$rung write: DIRTIES $3 below 95% of $pages"
	phase cold
	set -- $(cat "$T/row.cold")
	expect_eq "$(truth cold_resident)" 0 "$rung: pages cached after POSIX_FADV_DONTNEED"
	at_least "$2" "$pages" && echo "ok: $rung cold: MISSES $2 of $pages pages" ||
		fail "$rung cold: MISSES $2 below 95% of $pages"
	phase warm
	set -- $(cat "$T/row.warm")
	cached=$(truth warm_resident)
	expect_eq "$cached" "$pages" "$rung: pages cached before the warm read"
	at_least "$1" "$pages" && echo "ok: $rung warm: HITS $1 of $pages pages" ||
		fail "$rung warm: HITS $1 below 95% of $pages"
	[ "$2" -le $((pages * 5 / 100)) ] && echo "ok: $rung warm: MISSES $2" ||
		fail "$rung warm: MISSES $2 over 5% of $pages"
	kill -USR1 "$tgt"
	wait "$tgt" || fail "$rung: cache-target exited $?"
	echo "RESULT cache $rung: write $(cat "$T/row.write") | cold $(cat "$T/row.cold") | warm $(cat "$T/row.warm") (HITS MISSES DIRTIES; $pages pages)"
}

unset FAULTLINE_MASK
if grep -q '\[confidentiality\]' /sys/kernel/security/lockdown 2>/dev/null; then
	# kprobes and tracefs closed: the /proc rung is what is left.
	run_rung vmstat-lockdown '^faultline cache: falling back to /proc/vmstat pgpgin, nr_dirtied and /proc/PID/io deltas \(approximation\)'
	pass_or_fail
fi
run_rung kprobe '^Tracing page cache of all processes with kprobes folio_mark_accessed, filemap_add_folio, __folio_mark_dirty, mark_buffer_dirty'
# The lowest rung, /proc counters: its HITS are every read(), so 95% is a
# floor here too.
FAULTLINE_MASK=kprobes
export FAULTLINE_MASK
run_rung vmstat '^faultline cache: falling back to /proc/vmstat pgpgin, nr_dirtied and /proc/PID/io deltas \(approximation\)'
unset FAULTLINE_MASK
pass_or_fail
