#!/bin/sh
# record-flush.sh: a recording reaches its file while the recorder runs.
# `record --flush-every 0.05 -e brk -c brk-target`: the target makes its
# 5 breaks of 8 KiB, prints its account and waits at its --end FIFO, the
# recorder still running; `report -i FILE brk` of the file as it is then
# shows those calls exactly (the target's own breaks) and says first that
# the recording ends early, with no END record.  Once the target is let
# go the recorder finishes the file: its report is whole (no such line)
# and exact.  Then the same without --flush-every: the default (1 s, or
# 1 MiB buffered, whichever first) also puts the calls in the file while
# the recorder runs; the file is some 6 KB, so only the clock can have
# written it.  Nothing here waits on a clock but the safety bound of
# wait_until (60 s) for a liveness check, never a measure of the delay.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
BT=$(target brk-target)

# has_calls FILE: its report shows the target's 5 calls (the file grows
# as the recorder flushes it; a report of it as it is).
has_calls() {
	"$FAULTLINE" report -i "$1" brk >"$T/mid.out" 2>"$T/mid.err" &&
		grep -q '^    5 calls, requested break ' "$T/mid.out"
}
at_end() { tg=$(pgrep -P "$1" -x brk-target) && _fl_at_fifo "$tg"; }

flushed() { # WHAT [RECORD OPTIONS]
	local what=$1 fl
	shift
	go_fifo end
	rm -f "$T/f.rec"
	spawn fl "$FAULTLINE" record "$@" -e brk -o "$T/f.rec" \
		-c "$BT --count 5 --step 8192 --end $fifo"
	fl=$spawned
	wait_until "$FL_READY_TIMEOUT" at_end "$fl" ||
		fail "$what: brk-target never reached its --end FIFO: $(cat "$T/fl.err")"
	grep -q '^pid=' "$T/fl.out" || fail "$what: no account from brk-target"
	# While the recorder runs: its records are in the file.
	wait_until 60 has_calls "$T/f.rec" ||
		fail "$what: the target's calls not in the file after 60 s: $(cat "$T/mid.err")"
	kill -0 "$fl" 2>/dev/null || fail "$what: the recorder ended before the target"
	cp "$T/mid.out" "$T/out"
	cat "$T/fl.out" >>"$T/out"
	check_brk "$what, the file while recording"
	expect_line '^WARNING: the recording ends early at [0-9.]+ s \(0 bytes of a record cut off\): no END record$' "$T/mid.out"
	expect_line '^faultline report: warning: the recording ends early at [0-9.]+ s \(0 bytes of a record cut off\): no END record$' "$T/mid.err"
	echo "RESULT $what: while recording, $(stat -c %s "$T/f.rec") bytes: $(grep '5 calls' "$T/mid.out")"
	# Released: the file finished, its report whole.
	release "$fifo"
	wait_exit "$fl" "$what: record"
	expect_eq "$rc" 0 "$what: record status"
	expect_line '^faultline record: [0-9,]+ samples \(0 lost\) of brk in ' "$T/fl.err"
	run_fl report -i "$T/f.rec" brk
	expect_eq "$rc" 0 "$what: report of the finished file"
	expect_no_line "ends early" "$T/out"
	expect_no_line "ends early" "$T/err"
	cat "$T/fl.out" >>"$T/out"
	check_brk "$what, the finished file"
}
flushed "--flush-every 0.05" --flush-every 0.05
flushed "default flush"
pass_or_fail
