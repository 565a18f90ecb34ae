#!/bin/sh
# Every way faultline can be stopped removes its probes: SIGINT, SIGTERM,
# SIGHUP (report printed, exit 0), SIGPIPE (reader gone), every other
# signal that ends a process by default (report printed, one line naming
# it, exit 128 + N), and even a fault such as SIGSEGV (async-signal-safe
# emergency removal, one line, death by the signal).
. "$top_srcdir/tests/system/lib.sh"
need_root
TD=$(tracing_dir) || skip "no tracefs"

group_present() { grep -q ":faultline_$1/" "$TD/uprobe_events"; }
export FAULTLINE_MASK='syscalls:*'	# the uprobe rung, so there are probes

# signalled SIG STATUS STREAM LINE: brk -a stopped by SIG once tracing
# (every probe made, the signals caught): exit STATUS, LINE in its STREAM
# (out or err), its probes gone.
signalled() {
	local sig=$1 status=$2 stream=$3 line=$4
	spawn "fl-$sig" "$FAULTLINE" brk -a 60
	pid=$spawned
	wait_ready "$T/fl-$sig.err" "SIG$sig"
	group_present "$pid" || fail "SIG$sig: no probes created"
	kill -"$sig" "$pid"
	wait_exit "$pid" "SIG$sig"
	expect_eq "$rc" "$status" "exit status after SIG$sig"
	expect_line "$line" "$T/fl-$sig.$stream"
	group_present "$pid" && fail "SIG$sig left probes of $pid"
}
for sig in INT TERM HUP; do
	signalled "$sig" 0 out "lost [0-9]+ events"
done

# Every other signal that ends a process by default, sent to stop it: the
# run ends as on SIGINT (report printed, probes removed), one line names the
# signal, and the status is 128 + its number.  The faults (and abort()'s):
# the process dies of the signal (128 + N), but its probes go first, said
# in one line (async-signal-safe removal).
for sig in QUIT USR1 USR2 ALRM XCPU VTALRM PROF; do
	signalled "$sig" $((128 + $(kill -l "$sig"))) err "^faultline: stopped by SIG$sig: probes removed$"
	expect_line "lost [0-9]+ events" "$T/fl-$sig.out"
done
signalled XFSZ $((128 + $(kill -l XFSZ))) err "^faultline: file size limit reached \(SIGXFSZ\): stopped, probes removed$"
ulimit -c 0
# In the sanitizer build ASan's own handlers of SEGV, BUS and FPE would
# take the re-raised signal and exit 1 with their report: left to the
# signal's default there, as in the normal build.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0:handle_sigfpe=0"
export ASAN_OPTIONS
for sig in SEGV BUS ILL FPE ABRT TRAP SYS; do
	signalled "$sig" $((128 + $(kill -l "$sig"))) err "^faultline: fatal signal SIG$sig: probes removed$"
done

# The file size limit (ulimit -f) reached by a recording: the write fails
# with EFBIG (SIGXFSZ caught), the run stops, probes removed, said, status
# 128 + SIGXFSZ; the file is what fitted, read up to its last whole record.
LT=$(target leak-target)
"$FAULTLINE" record -e leak -o "$T/full.rec" -c "$LT leaks" >/dev/null 2>"$T/full.err" ||
	fail "record of leak-target: $(cat "$T/full.err")"
full=$(stat -c %s "$T/full.rec")
limit=$((full / 2 / 1024 * 1024))	# bytes, a multiple of 1024 (and of 512)
# The shell's unit for ulimit -f (512 bytes in dash, 1024 in bash): what
# a limit of 1 lets dd write.
sh -c 'ulimit -f 1; exec dd if=/dev/zero of="$1" bs=1 count=4096 2>/dev/null' - "$T/unit.bin"
unit=$(stat -c %s "$T/unit.bin")
sh -c 'ulimit -f "$1"; shift; exec "$@"' - $((limit / unit)) \
	"$FAULTLINE" record -e leak -o "$T/lim.rec" -c "$LT leaks" >"$T/lim.out" 2>"$T/lim.err"
expect_eq "$?" $((128 + $(kill -l XFSZ))) "record over ulimit -f: status"
expect_line "^faultline record: .*lim.rec.*: file size limit reached$" "$T/lim.err"
expect_line "^faultline: file size limit reached \(SIGXFSZ\): stopped, probes removed$" "$T/lim.err"
expect_eq "$(stat -c %s "$T/lim.rec")" "$limit" "record over ulimit -f: the file's size"
assert_no_stale_probes
run_fl report -i "$T/lim.rec" leak
expect_eq "$rc" 0 "report of the recording cut by ulimit -f: status"
expect_line "^faultline report: warning: the recording ends early at [0-9.]+ s \([0-9]+ bytes of a record cut off\): no END record$" "$T/err"
expect_line "^[0-9]+ bytes in [0-9]+ allocations outstanding" "$T/out"

# SIGPIPE: the reader of -T output goes away mid-trace.
"$FAULTLINE" brk -T -c "$(target brk-target) --libc --count 2000 --step 4096" 2>"$T/pipe.err" |
	head -n 1 >"$T/pipe.out"
expect_line "TIME" "$T/pipe.out"
grep -q 'AddressSanitizer\|runtime error' "$T/pipe.err" && fail "sanitizer report on SIGPIPE"
assert_no_stale_probes
pass_or_fail
