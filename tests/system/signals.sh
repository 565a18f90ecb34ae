#!/bin/sh
# Every way faultline can be stopped removes its probes: SIGINT, SIGTERM,
# SIGHUP (report printed, exit 0), SIGPIPE (reader gone), and even a fatal
# signal such as SIGSEGV (async-signal-safe emergency removal).
. "$top_srcdir/tests/system/lib.sh"
need_root
TD=$(tracing_dir) || skip "no tracefs"

group_present() { grep -q ":faultline_$1/" "$TD/uprobe_events"; }
export FAULTLINE_MASK='syscalls:*'	# the uprobe rung, so there are probes

for sig in INT TERM HUP; do
	spawn "fl-$sig" "$FAULTLINE" brk -a 60
	pid=$spawned
	# Tracing (every probe made, the signals caught), then the signal.
	wait_ready "$T/fl-$sig.err" "SIG$sig"
	group_present "$pid" || fail "SIG$sig: no probes created"
	kill -"$sig" "$pid"
	wait_exit "$pid" "SIG$sig"
	expect_eq "$rc" 0 "exit status after SIG$sig"
	expect_line "lost [0-9]+ events" "$T/fl-$sig.out"
	group_present "$pid" && fail "SIG$sig left probes of $pid"
done

# SIGSEGV: the process dies of it, but its probes go first.
spawn fl-segv "$FAULTLINE" brk -a 60
pid=$spawned
wait_ready "$T/fl-segv.err" SIGSEGV
group_present "$pid" || fail "SIGSEGV: no probes created"
kill -SEGV "$pid"
wait_exit "$pid" SIGSEGV
group_present "$pid" && fail "SIGSEGV left probes of $pid"

# SIGPIPE: the reader of -T output goes away mid-trace.
"$FAULTLINE" brk -T -c "$(target brk-target) --libc --count 2000 --step 4096" 2>"$T/pipe.err" |
	head -n 1 >"$T/pipe.out"
expect_line "TIME" "$T/pipe.out"
grep -q 'AddressSanitizer\|runtime error' "$T/pipe.err" && fail "sanitizer report on SIGPIPE"
assert_no_stale_probes
pass_or_fail
