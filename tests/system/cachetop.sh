#!/bin/sh
# cachetop.sh: `faultline cachetop` attributes cache-target's known
# page-cache traffic to its pid, on every rung this kernel runs for real.
#
# cache-target writes a 64 MiB file, drops it from the page cache, reads
# it cold, then warm, one phase per SIGUSR1.  Each phase is watched by one
# `faultline cachetop 1000` in plain mode (stdout is a file), stopped with
# SIGINT when the phase is done: its last block covers the phase.  The
# write and warm phases use -p (the kernel traces the target only); the
# cold phase traces every process and picks the target's row by pid.  The
# row is the target's own, so the system's noise does not reach it: its
# DIRTIES and warm HITS must be within 2% of the pages written or read;
# cold, its HITS + MISSES (a page another context brought in first is a
# hit of the target's), the MISSES at least 95%.
#
# Also: the plain format (status line, header, BCC's row format), count
# blocks then exit, the terminal mode under script(1) with the r and q
# keys, a nonexistent pid and usage errors.

. "$top_srcdir/tests/system/lib.sh"
need_root

TGT=$(target cache-target)
[ -x "$TGT" ] || fail "no cache-target at $TGT"

block_backed_dir
dir=$block_dir
FILE=$dir/cachetop-test.$$.dat
at_exit 'rm -f "$FILE"'

MIB=64

truth() { sed -n "s/^$1=//p" "$T/tgt.out" | tail -n 1; }

# check_block FILE: every block is a status line, the header, BCC-format rows.
check_block() {
	bad=$(awk '
	/^$/ { state = 0; next }
	state == 0 {
		if ($0 !~ /^[0-2][0-9]:[0-5][0-9]:[0-5][0-9] Buffers MB: [0-9]+ \/ Cached MB: [0-9]+ \/ Sort: HITS \/ Order: descending$/)
			print "status: " $0
		state = 1; next
	}
	state == 1 {
		if ($0 != "PID      UID      CMD              HITS     MISSES   DIRTIES  READ_HIT%  WRITE_HIT%")
			print "header: " $0
		state = 2; next
	}
	{
		# The command (16 wide) may hold blanks: take the numbers from the end.
		n = split($0, f, " ")
		r = sprintf("%8d %-8.8s %-16s %8d %8d %8d %9.1f%% %9.1f%%", f[1], f[2], substr($0, 19, 16),
			    f[n - 4], f[n - 3], f[n - 2], f[n - 1] + 0, f[n] + 0)
		if (r != $0) print "row: " $0
	}' "$1")
	[ -z "$bad" ] || fail "$(basename "$1"): not in cachetop format: $bad"
	return 0
}

# phase NAME ARGS...: cachetop ARGS around the target's next phase; the
# target's row of the last block goes to $T/row.NAME (HITS MISSES DIRTIES).
phase() {
	local name=$1 fl
	shift
	spawn "fl-$name" "$FAULTLINE" cachetop "$@" 1000
	fl=$spawned
	wait_ready "$T/fl-$name.err" "$rung_name $name: cachetop" || return 0
	kill -USR1 "$tgt"
	wait_until 60 grep -q "^done=$name\$" "$T/tgt.out" || fail "$rung_name $name: target did not finish"
	kill -INT "$fl"
	rc=0
	wait "$fl" || rc=$?
	expect_stopped INT cachetop "$T/fl-$name.err" "$rung_name $name: faultline cachetop"
	check_block "$T/fl-$name.out"
	awk -v p="$tgt" '$1 == p { n = split($0, f, " "); row = f[n - 4] " " f[n - 3] " " f[n - 2] } END { print row }' \
		"$T/fl-$name.out" >"$T/row.$name"
	echo "$rung_name $name: $(awk -v p="$tgt" '$1 == p' "$T/fl-$name.out" | tail -n 1)"
	[ -s "$T/row.$name" ] && [ "$(cat "$T/row.$name")" != "" ] ||
		fail "$rung_name $name: no row for pid $tgt"
}

run_rung() {
	rung_name=$1
	rm -f "$FILE"
	spawn tgt "$TGT" "$FILE" --mib "$MIB"
	tgt=$spawned
	wait_until "$FL_READY_TIMEOUT" grep -q '^pages=' "$T/tgt.out" || { fail "$rung_name: cache-target did not start"; return 0; }
	pages=$(truth pages)

	phase write -p "$tgt"
	expect_line "$2" "$T/fl-write.err"
	set -- $(cat "$T/row.write") 0 0 0
	within "$3" "$pages" 2 && echo "ok: $rung_name write: pid $tgt DIRTIES $3 ~ $pages" ||
		fail "$rung_name write: DIRTIES $3 not within 2% of $pages"
	[ "$1" -le $((pages * 2 / 100)) ] && [ "$2" -le $((pages * 2 / 100)) ] ||
		fail "$rung_name write: HITS $1 / MISSES $2 not small"

	if [ "$rung_name" = vmstat ]; then
		phase cold -p "$tgt"
	else
		phase cold
		# Others were traced too (the test's own processes at least).
		[ "$(grep -c '^ *[0-9]' "$T/fl-cold.out")" -ge 1 ] || fail "$rung_name cold: no rows"
	fi
	set -- $(cat "$T/row.cold") 0 0 0
	# Each page the target reads is one of its MISSES, or one of its HITS
	# when another context brought it in first (2,048 of 65,536 once,
	# beside a CPU hog): the sum is the file's pages, the MISSES most.
	within $(($1 + $2)) "$pages" 2 && echo "ok: $rung_name cold: pid $tgt HITS $1 + MISSES $2 ~ $pages" ||
		fail "$rung_name cold: HITS $1 + MISSES $2 not within 2% of $pages"
	[ "$2" -ge $((pages - pages * 5 / 100)) ] || fail "$rung_name cold: MISSES $2 below 95% of $pages"

	phase warm -p "$tgt"
	cached=$(truth warm_resident)
	set -- $(cat "$T/row.warm") 0 0 0
	within "$1" "$cached" 2 && echo "ok: $rung_name warm: pid $tgt HITS $1 ~ $cached" ||
		fail "$rung_name warm: HITS $1 not within 2% of $cached"
	[ "$2" -le $((pages - cached + pages * 2 / 100)) ] || fail "$rung_name warm: MISSES $2 not small"

	kill -USR1 "$tgt"
	wait "$tgt" || fail "$rung_name: cache-target exited $?"
	rm -f "$FILE"
}

unset FAULTLINE_MASK
live=$("$FAULTLINE" features | awk '$1 == "cachetop" { sub("^cachetop +", ""); print; exit }')
case $live in
kprobes*) run_rung kprobe 'with kprobes' ;;
tracepoints*) run_rung tracepoint '^Tracing page cache of PID [0-9]+ with tracepoints filemap:mm_filemap_get_pages' ;;
*) echo "note: live rung is '$live'" ;;
esac

FAULTLINE_MASK='kprobes,filemap:*'
export FAULTLINE_MASK
run_rung vmstat '^faultline cachetop: falling back to /proc/vmstat pgpgin, nr_dirtied and /proc/PID/io deltas'
unset FAULTLINE_MASK

# ---- count blocks, then exit
run_fl cachetop 0.3 2
expect_eq "$rc" 0 "cachetop 0.3 2: exit"
expect_eq "$(grep -c 'Buffers MB' "$T/out")" 2 "cachetop 0.3 2: blocks"
cp "$T/out" "$T/count.out"
check_block "$T/count.out"

# ---- terminal: cleared and redrawn, r reverses, q quits
if command -v script >/dev/null 2>&1; then
	echo "+ script: faultline cachetop 0.3, keys r then q"
	rc=0
	# Each key once the screen it acts on is drawn: r after a descending
	# screen, q after the ascending one r brought (keys read together
	# would quit before the redraw).
	: >"$T/tty.out"
	{
		wait_until "$FL_READY_TIMEOUT" grep -q 'Order: descending' "$T/tty.out"
		printf r
		wait_until "$FL_READY_TIMEOUT" grep -q 'Order: ascending' "$T/tty.out"
		printf q
	} | timeout "$FL_TIMEOUT" script -qefc "$FAULTLINE cachetop 0.3" /dev/null >"$T/tty.out" 2>&1 9>&- || rc=$?
	expect_eq "$rc" 0 "terminal mode: exit after q"
	grep -q "$(printf '\033\\[H\033\\[2J')" "$T/tty.out" || fail "terminal mode: screen never cleared"
	expect_line 'Order: descending' "$T/tty.out"
	expect_line 'Order: ascending' "$T/tty.out"
	grep -q "$(printf '\033\\[7m')PID      UID" "$T/tty.out" || fail "terminal mode: header not in reverse video"
else
	echo "note: no script(1): terminal mode not tested"
fi

# ---- errors
run_fl cachetop -p 99999999999
expect_eq "$rc" 2 "cachetop -p 99999999999 (out of range): exit"
pid=$(sh -c 'echo $$')
run_fl cachetop -p "$pid" 1 1
expect_eq "$rc" 1 "cachetop -p <dead pid>: exit"
expect_eq "$(wc -l <"$T/err" | tr -d ' ')" 1 "cachetop -p <dead pid>: lines on stderr"
for args in "-x" "-p" "0" "1 0" "1 2 3"; do
	run_fl cachetop $args
	expect_eq "$rc" 2 "cachetop $args: exit"
done

pass_or_fail
