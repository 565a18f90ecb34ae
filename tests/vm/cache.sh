#!/bin/sh
# cache.sh (guest): `faultline cache` on the kprobe rung (6.1's folio
# functions, 3.10's page ones) and, side by
# side, on each lower rung the ladder offers there, against cache-target's
# truth: a 64 MiB file on ext4 (a RAM disk, brd or zram: block-backed) written,
# dropped, read cold, then warm, one `faultline cache` per phase stopped
# with SIGINT once cache-target printed done=PHASE.  Nothing else runs in
# the guest, and the test starts no process while a phase is counted, so
# on the kprobe rung the phase's own figure is its pages within 1% (the
# file system's metadata pages: ext2-layout indirect blocks); the /proc
# rung's is at least 95% of them.
# The tracepoint rung (filemap:mm_filemap_get_pages, 6.11+) does not exist
# on 6.1: cache-tracepoint.sh skips for that reason.
. "$top_srcdir/tests/system/lib.sh"
need_root
TGT=$(target cache-target)
block_backed_dir
FILE=$block_dir/cache-test.$$.dat
at_exit 'rm -f "$FILE"'
MIB=64
truth() { sed -n "s/^$1=//p" "$T/tgt.out" | tail -n 1; }

# run_teed NAME CMD...: CMD in the background (pid in $spawned), its
# stdout copied line by line into $T/NAME.out by a reader subshell (pid in
# $reader: NAME.out is whole once it has ended, not when CMD has), which
# also writes each pages=, done= and header line to the FIFO $T/NAME.note;
# `note NAME` blocks until the next one.  Neither starts a process while
# faultline counts: a process that exits marks its mapped file pages
# accessed (exit_mmap -> unmap_page_range -> folio_mark_accessed, ~560
# calls per busybox process here), and a 0.1 s loop of grep and sleep
# (wait_until) added 30% to the warm HITS of this system-wide count.
run_teed() {
	local name=$1
	shift
	rm -f "$T/$name.pipe" "$T/$name.note"
	mkfifo "$T/$name.pipe" "$T/$name.note"
	: >"$T/$name.out"
	(while IFS= read -r l; do
		printf '%s\n' "$l" >>"$T/$name.out"
		case $l in pages=* | done=* | *HITRATIO*) printf '%s\n' "$l" >"$T/$name.note" ;; esac
	done <"$T/$name.pipe") &
	reader=$!
	_fl_spawned="$_fl_spawned $reader"
	"$@" >"$T/$name.pipe" 2>"$T/$name.err" &
	spawned=$!
	_fl_spawned="$_fl_spawned $spawned"
}
note() { read -r got <"$T/$1.note"; }

phase() { # NAME
	local name=$1 fl rd st
	run_teed "fl-$name" "$FAULTLINE" cache 1000
	fl=$spawned rd=$reader
	note "fl-$name"
	kill -USR1 "$tgt"
	note tgt
	expect_eq "$got" "done=$name" "$rung $name: the target's phase"
	kill -INT "$fl"
	rc=0
	wait "$fl" || rc=$?
	expect_stopped INT cache "$T/fl-$name.err" "$rung $name: faultline cache"
	# The reader may still hold faultline's last lines.
	wait "$rd"
	expect_eq "$(tail -n 1 "$T/fl-$name.out")" "Detaching..." "$rung $name: last line"
	sed -n 2p "$T/fl-$name.out" | awk '{ print $1, $2, $3 }' >"$T/row.$name"
	echo "$rung $name: $(sed -n 2p "$T/fl-$name.out")"
}

# near VALUE WHAT: VALUE within $tol% of the pages (the kprobe rung: 1%,
# the pages the file system's own metadata adds), or at least 95% of them
# ($tol = floor: the /proc rung, whose HITS are every read()).
near() {
	if [ "$tol" = floor ]; then
		[ "$1" -ge $((pages - pages * 5 / 100)) ] && echo "ok: $rung $2 $1 of $pages pages" ||
			fail "$rung $2 $1 below 95% of $pages"
	else
		within "$1" "$pages" "$tol" && echo "ok: $rung $2 $1 of $pages pages (within $tol%)" ||
			fail "$rung $2 $1 not within $tol% of $pages"
	fi
}

run_rung() { # NAME BANNER_REGEX TOLERANCE
	rung=$1
	tol=$3
	rm -f "$FILE"
	run_teed tgt "$TGT" "$FILE" --mib "$MIB"
	tgt=$spawned
	note tgt
	pages=$(truth pages)
	expect_eq "$pages" $((MIB * 1048576 / 4096)) "$rung: target pages"
	phase write
	expect_line "$2" "$T/fl-write.err"
	set -- $(cat "$T/row.write")
	near "$3" "write: DIRTIES"
	phase cold
	set -- $(cat "$T/row.cold")
	expect_eq "$(truth cold_resident)" 0 "$rung: pages cached after POSIX_FADV_DONTNEED"
	near "$2" "cold: MISSES"
	phase warm
	set -- $(cat "$T/row.warm")
	cached=$(truth warm_resident)
	expect_eq "$cached" "$pages" "$rung: pages cached before the warm read"
	near "$1" "warm: HITS"
	[ "$2" -le $((pages * 1 / 100)) ] && echo "ok: $rung warm: MISSES $2" ||
		fail "$rung warm: MISSES $2 over 1% of $pages"
	kill -USR1 "$tgt"
	wait "$tgt" || fail "$rung: cache-target exited $?"
	echo "RESULT cache $rung: write $(cat "$T/row.write") | cold $(cat "$T/row.cold") | warm $(cat "$T/row.warm") (HITS MISSES DIRTIES; $pages pages)"
}

unset FAULTLINE_MASK
if grep -q '\[confidentiality\]' /sys/kernel/security/lockdown 2>/dev/null; then
	# kprobes and tracefs closed: the /proc rung is what is left.
	run_rung vmstat-lockdown '^faultline cache: falling back to /proc/vmstat pgpgin, nr_dirtied and /proc/PID/io deltas \(approximation\)' floor
	pass_or_fail
fi
# The kernel's own functions: folios on 6.1, pages on RHEL 7's 3.10.
if grep -q ' folio_mark_accessed$' /proc/kallsyms; then
	kfuncs='folio_mark_accessed, filemap_add_folio, __folio_mark_dirty, mark_buffer_dirty'
else
	kfuncs='mark_page_accessed, add_to_page_cache_lru, account_page_dirtied, mark_buffer_dirty'
fi
run_rung kprobe "^Tracing page cache of all processes with kprobes $kfuncs" 1
# The lowest rung, /proc counters: its HITS are every read(), so 95% is a
# floor here too.
FAULTLINE_MASK=kprobes
export FAULTLINE_MASK
run_rung vmstat '^faultline cache: falling back to /proc/vmstat pgpgin, nr_dirtied and /proc/PID/io deltas \(approximation\)' floor
unset FAULTLINE_MASK
pass_or_fail
