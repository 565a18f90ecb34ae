#!/bin/sh
# Every way faultline can be stopped removes its probes: every signal that
# ends a process by default and is not a fault (INT, TERM, HUP, PIPE, QUIT,
# USR1, USR2, ALRM, XCPU, XFSZ, VTALRM, PROF, STKFLT, IO, PWR, the real-time
# ones) ends the run as asked: report
# printed, recording finished and readable, then one line naming the
# signal, exit 128 + N, as perf record does; a fault such as SIGSEGV
# (async-signal-safe emergency removal, one line, death by the signal),
# also while tracing a command (leak -c, record -e leak -c: the command
# not left stopped, the recording read up to its last whole record).
. "$top_srcdir/tests/system/lib.sh"
need_root
TD=$(tracing_dir) || skip "no tracefs"

group_present() { grep -q ":faultline_$1/" "$TD/uprobe_events"; }
export FAULTLINE_MASK='syscalls:*'	# the uprobe rung, so there are probes

# signalled SIG STATUS STREAM LINE [TOOL ARGS...]: TOOL ARGS (brk -a 60)
# stopped by SIG once tracing (every probe made, the signals caught): exit
# STATUS, LINE in its STREAM (out or err), its probes gone.
signalled() {
	local sig=$1 status=$2 stream=$3 line=$4
	shift 4
	[ $# -gt 0 ] || set -- brk -a 60
	spawn "fl-$sig" "$FAULTLINE" "$@"
	pid=$spawned
	wait_ready "$T/fl-$sig.err" "SIG$sig"
	group_present "$pid" || fail "SIG$sig: no probes created"
	kill -"$sig" "$pid"
	wait_exit "$pid" "SIG$sig"
	expect_eq "$rc" "$status" "exit status after SIG$sig"
	expect_line "$line" "$T/fl-$sig.$stream"
	group_present "$pid" && fail "SIG$sig left probes of $pid"
}

# Every signal that ends a process by default but a fault, sent to stop
# it: the report printed, probes removed, one line names the signal, and
# the status is 128 + its number; a recording so stopped is whole.
for sig in INT TERM HUP PIPE QUIT USR1 USR2 ALRM XCPU XFSZ VTALRM PROF; do
	why=
	[ "$sig" = XFSZ ] && why=' \(file size limit reached\)'
	st=$((128 + $(kill -l "$sig")))
	signalled "$sig" "$st" err "^faultline brk: stopped by SIG$sig$why\$"
	expect_line "lost [0-9]+ events" "$T/fl-$sig.out"
	signalled "$sig" "$st" err "^faultline record: stopped by SIG$sig$why\$" \
		record -e brk -a -o "$T/$sig.rec"
	expect_line "^faultline record: [0-9]+ samples \(0 lost\)" "$T/fl-$sig.err"
	run_fl report -i "$T/$sig.rec" info
	expect_eq "$rc" 0 "report of the recording stopped by SIG$sig: status"
	expect_no_line "ends early" "$T/err"
done
# The rest of them, by number (dash's kill knows no name for these; the
# numbers are x86-64's and glibc's, whose SIGRTMIN is 34, and whose name
# of SIGIO is POLL): the same, for brk alone.
for spec in 16:STKFLT '29:(IO|POLL)' 30:PWR 34:RTMIN '37:RTMIN\+3' 64:RTMAX; do
	num=${spec%%:*}
	signalled "$num" $((128 + num)) err "^faultline brk: stopped by SIG${spec#*:}\$"
done
ulimit -c 0
# In the sanitizer build ASan's own handlers of SEGV, BUS and FPE would
# take the re-raised signal and exit 1 with their report: left to the
# signal's default there, as in the normal build.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0:handle_sigfpe=0"
export ASAN_OPTIONS
for sig in SEGV BUS ILL FPE ABRT TRAP SYS; do
	signalled "$sig" $((128 + $(kill -l "$sig"))) err "^faultline: fatal signal SIG$sig: probes removed$"
done

# A fault while tracing a command (-c): leak on the tracefs uprobe rung
# (the uprobe PMU's is uprobe-pmu.sh's), and record -e leak.  The command
# (leak-target, held on its --end FIFO once its work is done) is not left
# stopped; the probes are gone; a recording so ended is read up to its
# last whole record.  Sync: faultline's ready line, then the target seen
# blocked on its FIFO.
LT=$(target leak-target)
state_of() { sed 's/^.*) \(.\).*/\1/' "/proc/$1/stat" 2>/dev/null; }
faulted_c() { # SIG NAME TOOL ARGS... (the command appended)
	local sig=$1 name=$2 fl tg
	shift 2
	go_fifo "$name"
	spawn "$name" "$FAULTLINE" "$@" -c "$LT leaks --end $fifo"
	fl=$spawned
	wait_until "$FL_READY_TIMEOUT" grep -q "^Executing '" "$T/$name.err" ||
		fail "$name: faultline not tracing: $(cat "$T/$name.err")"
	tg=$(pgrep -P "$fl" -x leak-target) || fail "$name: no leak-target under faultline"
	wait_until "$FL_READY_TIMEOUT" _fl_at_fifo "$tg" || fail "$name: leak-target never reached --end"
	group_present "$fl" || fail "$name: no probes created"
	kill -"$sig" "$fl"
	wait_exit "$fl" "$name"
	expect_eq "$rc" $((128 + $(kill -l "$sig"))) "$name: status"
	group_present "$fl" && fail "$name: probes of $fl left"
	st=$(state_of "$tg")
	[ "$st" = T ] || [ "$st" = t ] && fail "$name: the command left stopped (state $st)"
	release "$fifo"
	wait_until "$FL_TIMEOUT" sh -c '! kill -0 "$1" 2>/dev/null' sh "$tg" ||
		fail "$name: the command did not end once released"
}
for sig in SEGV BUS ILL FPE ABRT TRAP SYS; do
	faulted_c "$sig" "leak-$sig" leak -T 100
	expect_line "^faultline: fatal signal SIG$sig: probes removed$" "$T/leak-$sig.err"
done
for sig in SEGV ABRT; do
	faulted_c "$sig" "rec-$sig" record -e leak -o "$T/fault-$sig.rec"
	expect_line "^faultline: fatal signal SIG$sig: probes removed, the recording left unfinished \(report reads it up to its last whole record\)$" "$T/rec-$sig.err"
	run_fl report -i "$T/fault-$sig.rec" leak
	expect_eq "$rc" 0 "report of the recording ended by SIG$sig: status"
	expect_line "^faultline report: warning: the recording ends early at [0-9.]+ s" "$T/err"
	expect_line "bytes in [0-9]+ allocations outstanding" "$T/out"
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
expect_line "^faultline record: stopped by SIGXFSZ \(file size limit reached\)$" "$T/lim.err"
expect_eq "$(stat -c %s "$T/lim.rec")" "$limit" "record over ulimit -f: the file's size"
assert_no_stale_probes
run_fl report -i "$T/lim.rec" leak
expect_eq "$rc" 0 "report of the recording cut by ulimit -f: status"
expect_line "^faultline report: warning: the recording ends early at [0-9.]+ s \([0-9]+ bytes of a record cut off\): no END record$" "$T/err"
expect_line "^[0-9]+ bytes in [0-9]+ allocations outstanding" "$T/out"

# SIGPIPE for real: the reader of -T output goes away mid-trace, the
# command still running (held at its --end after 20,000 breaks: 1.2 MB of
# lines, more than a pipe and head's read hold); faultline's stdout
# through a FIFO, for its status.
go_fifo pipe-end
mkfifo "$T/pipe.fifo"
"$FAULTLINE" brk -T -c "$(target brk-target) --libc --count 20000 --step 4096 --end $fifo" \
	>"$T/pipe.fifo" 2>"$T/pipe.err" &
fl=$!
head -n 1 <"$T/pipe.fifo" >"$T/pipe.out"
wait_exit "$fl" "brk -T into a closed pipe"
expect_eq "$rc" 141 "brk -T into a closed pipe: status"
expect_line "TIME" "$T/pipe.out"
expect_line "^faultline brk: stopped by SIGPIPE$" "$T/pipe.err"
expect_no_line "cannot write the output" "$T/pipe.err"
grep -q 'AddressSanitizer\|runtime error' "$T/pipe.err" && fail "sanitizer report on SIGPIPE"
assert_no_stale_probes
pass_or_fail
