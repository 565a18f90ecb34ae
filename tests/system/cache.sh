#!/bin/sh
# cache.sh: `faultline cache` against cache-target's known page-cache
# traffic, on every rung this kernel can run for real, and the rung choice
# on fixture trees of kernels with kprobes.
#
# For each rung (the first this kernel offers; then /proc counters, forced
# with FAULTLINE_MASK), cache-target writes a 256 MiB file, drops it from
# the page cache and reads it cold, then warm, one phase per SIGUSR1.  Each
# phase is measured by its own `faultline cache 1000`, stopped with SIGINT
# once the phase is done, so its one row (printed on Ctrl-C, before
# "Detaching...") covers the phase.  The counts are system-wide and this
# machine is shared (other builds and tests run beside this one), so what
# other processes do meanwhile adds to every column by an amount nobody
# here controls: the phase's own figure must reach 95% of the file's
# pages (a floor only), and nothing here bounds a column from above.
# That the counting takes each page once is checked where the counts are
# the target's alone or nothing else runs: the per-process cachetop.sh
# (within 2% of the pages, exact to the pid) on the same counting code,
# and tests/vm/cache.sh in the QEMU guest, a quiet machine.
#
# Also: the exact header and row formats (with -T), count rows then exit
# without "Detaching...", usage errors, and tracefs left clean.

. "$top_srcdir/tests/system/lib.sh"
need_root

TGT=$(target cache-target)
[ -x "$TGT" ] || fail "no cache-target at $TGT"
FIX=$top_srcdir/tests/fixtures/kernels

# A file on a block-backed filesystem: tmpfs pages never leave the cache.
block_backed_dir
dir=$block_dir
FILE=$dir/cache-test.$$.dat
# lib.sh's EXIT trap must still run: chain it.
at_exit 'rm -f "$FILE"'

# Large enough that what other processes do meanwhile stays a few percent.
MIB=256

# at_least N PAGES: N is at least 95% of PAGES.
at_least() { [ "$1" -ge $(($2 - $2 * 5 / 100)) ]; }

# truth KEY: a value cache-target printed.
truth() { sed -n "s/^$1=//p" "$T/tgt.out" | tail -n 1; }


# phase NAME: one faultline cache around cache-target's next phase; the
# row's fields go to $T/row.NAME ("HITS MISSES DIRTIES").
phase() {
	local name=$1 fl
	spawn "fl-$name" "$FAULTLINE" cache 1000
	fl=$spawned
	if ! wait_until "$FL_READY_TIMEOUT" grep -q HITRATIO "$T/fl-$name.out"; then
		fail "$rung_name $name: faultline cache did not start"
		cat "$T/fl-$name.err"
		return 0
	fi
	kill -USR1 "$tgt"
	wait_until 60 grep -q "^done=$name\$" "$T/tgt.out" || fail "$rung_name $name: target did not finish"
	kill -INT "$fl"
	rc=0
	wait "$fl" || rc=$?
	expect_stopped INT cache "$T/fl-$name.err" "$rung_name $name: faultline cache"
	expect_eq "$(tail -n 1 "$T/fl-$name.out")" "Detaching..." "$rung_name $name: last line"
	expect_eq "$(wc -l <"$T/fl-$name.out" | tr -d ' ')" 3 "$rung_name $name: lines (header, row, Detaching)"
	sed -n 2p "$T/fl-$name.out" | awk '{ print $1, $2, $3 }' >"$T/row.$name"
	echo "$rung_name $name: $(sed -n 2p "$T/fl-$name.out")"
}

# run_rung NAME EXPECTED_LABEL_REGEX: all three phases with a new target.
run_rung() {
	rung_name=$1
	rm -f "$FILE"
	spawn tgt "$TGT" "$FILE" --mib "$MIB"
	tgt=$spawned
	wait_until "$FL_READY_TIMEOUT" grep -q '^pages=' "$T/tgt.out" || { fail "$rung_name: cache-target did not start"; return 0; }
	pages=$(truth pages)
	expect_eq "$pages" $((MIB * 1048576 / $(truth page_size))) "$rung_name: target pages"

	phase write
	expect_line "$2" "$T/fl-write.err"
	set -- $(cat "$T/row.write")
	expect_eq "$(truth write_pages)" "$pages" "$rung_name: pages written"
	at_least "$3" "$pages" && echo "ok: $rung_name write: DIRTIES $3 of $pages pages" ||
		fail "$rung_name write: DIRTIES $3 below 95% of $pages"

	phase cold
	set -- $(cat "$T/row.cold")
	resident=$(truth cold_resident)
	expect_eq "$resident" 0 "$rung_name: pages still cached after POSIX_FADV_DONTNEED"
	at_least "$2" "$pages" && echo "ok: $rung_name cold: MISSES $2 of $pages pages" ||
		fail "$rung_name cold: MISSES $2 below 95% of $pages"

	phase warm
	set -- $(cat "$T/row.warm")
	# Pages evicted between the phases (memory pressure from elsewhere)
	# are misses of the warm read, by right.
	cached=$(truth warm_resident)
	at_least "$1" "$cached" && echo "ok: $rung_name warm: HITS $1 of $cached cached pages" ||
		fail "$rung_name warm: HITS $1 below 95% of $cached"

	kill -USR1 "$tgt"
	wait "$tgt" || fail "$rung_name: cache-target exited $?"
	rm -f "$FILE"
}

unset FAULTLINE_MASK
live=$("$FAULTLINE" features | awk '$1 == "cache" { sub("^cache +", ""); print; exit }')
case $live in
kprobes*) run_rung kprobe '^Tracing page cache of all processes with kprobes' ;;
tracepoints*) run_rung tracepoint '^Tracing page cache of all processes with tracepoints filemap:mm_filemap_get_pages' ;;
*) echo "note: live rung is '$live'" ;;
esac

FAULTLINE_MASK='kprobes,filemap:*'
export FAULTLINE_MASK
run_rung vmstat '^faultline cache: falling back to /proc/vmstat pgpgin, nr_dirtied and /proc/PID/io deltas \(approximation\) \((.*; )?tracepoint filemap:mm_filemap_get_pages absent \(masked by FAULTLINE_MASK\)\)'
unset FAULTLINE_MASK

# ---- formats: -T, interval, count (no Detaching after count rows)
run_fl cache -T 0.3 3
expect_eq "$rc" 0 "cache -T 0.3 3: exit"
expect_eq "$(sed -n 1p "$T/out")" "TIME         HITS   MISSES  DIRTIES HITRATIO   BUFFERS_MB  CACHED_MB" "-T header"
expect_eq "$(wc -l <"$T/out" | tr -d ' ')" 4 "cache -T 0.3 3: lines"
expect_no_line '^Detaching' "$T/out"
# Every row is what BCC's "%-8s %8d %8d %8d %7.2f%% %12.0f %10.0f" prints
# for its own fields.
bad=$(sed 1d "$T/out" | awk '{
	r = sprintf("%-8s %8d %8d %8d %7.2f%% %12.0f %10.0f", $1, $2, $3, $4, $5 + 0, $6, $7)
	if (r != $0 || $1 !~ /^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$/ || $5 !~ /^[0-9]+\.[0-9][0-9]%$/) print
}')
[ -z "$bad" ] && echo "ok: -T rows in BCC format" || fail "rows not in BCC's format: $bad"
run_fl cache 0.2 1
expect_eq "$(sed -n 1p "$T/out")" "    HITS   MISSES  DIRTIES HITRATIO   BUFFERS_MB  CACHED_MB" "header"
expect_eq "$(wc -l <"$T/out" | tr -d ' ')" 2 "cache 0.2 1: lines"

# ---- usage errors
for args in "-x" "0" "1 0" "abc" "1 2 3" "-1"; do
	run_fl cache $args
	expect_eq "$rc" 2 "cache $args: exit"
	[ "$(wc -l <"$T/err" | tr -d ' ')" -eq 1 ] || fail "cache $args: not one line on stderr"
done

# ---- the kprobe rungs, on fixture trees of kernels that have kprobes
rung_on() { # TREE [MASK] -> the cache rung `features` chooses there
	FAULTLINE_MASK=${2:-} "$FAULTLINE" features --root "$FIX/$1" |
		awk '$1 == "cache" { sub("^cache +", ""); print; exit }'
}
check_fixture() { # TREE MASK EXPECTED_PREFIX
	got=$(rung_on "$1" "$2")
	case $got in
	"$3"*) echo "ok: --root $1${2:+ (mask $2)}: cache on $3" ;;
	*) fail "--root $1${2:+ (mask $2)}: cache chose '$got', expected '$3'" ;;
	esac
}
check_fixture 5.4-kprobes "" "kprobes mark_page_accessed, add_to_page_cache_lru, account_page_dirtied, mark_buffer_dirty"
check_fixture 6.1-kprobes "" "kprobes folio_mark_accessed, filemap_add_folio, __folio_mark_dirty, mark_buffer_dirty"
check_fixture 6.18-kprobes "" "kprobes folio_mark_accessed, filemap_add_folio, __folio_mark_dirty, mark_buffer_dirty"
check_fixture 6.18-kprobes kprobes "tracepoints filemap:mm_filemap_get_pages"
check_fixture 6.18-kprobes 'kprobes,filemap:*' "/proc/vmstat pgpgin"
# RHEL 7 has the page names (its kallsyms as the el7 guest's).
check_fixture rhel7-3.10 "" "kprobes mark_page_accessed, add_to_page_cache_lru, account_page_dirtied, mark_buffer_dirty"
# 6.18 keeps mark_page_accessed/add_to_page_cache_lru as wrappers only: the
# page rung must not be chosen there even with the folio ones refused.
"$FAULTLINE" features --root "$FIX/6.18-kprobes" >"$T/f618"
grep -q 'kprobes mark_page_accessed.*no account_page_dirtied in' "$T/f618" &&
	echo "ok: 6.18: page-name rung refused (account_page_dirtied gone)" ||
	fail "6.18: page-name rung not refused for account_page_dirtied"

pass_or_fail
