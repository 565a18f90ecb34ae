#!/bin/sh
# Every way faultline can be stopped removes its probes: every signal that
# ends a process by default and is not a fault (INT, TERM, HUP, PIPE, QUIT,
# USR1 but for a tracing command, which takes it as a snapshot, USR2, ALRM, XCPU, XFSZ, VTALRM, PROF, STKFLT, IO, PWR, the real-time
# ones) ends the run as asked: report
# printed, recording finished and readable, then one line naming the
# signal, exit 128 + N, as perf record does; a fault such as SIGSEGV
# (async-signal-safe emergency removal, one line, death by the signal),
# for -a and for a command (-c) on the tracefs and perf uprobe PMU rungs
# and recorded: the command left running, the recording readable.
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
	# A tracing command takes SIGUSR1 as a snapshot (tests/system/
	# snapshot.sh); record still stops on it.
	if [ "$sig" != USR1 ]; then
		signalled "$sig" "$st" err "^faultline brk: stopped by SIG$sig$why\$"
		expect_line "lost [0-9,]+ events" "$T/fl-$sig.out"
	fi
	signalled "$sig" "$st" err "^faultline record: stopped by SIG$sig$why\$" \
		record -e brk -a -o "$T/$sig.rec"
	expect_line "^faultline record: [0-9,]+ samples \(0 lost\)" "$T/fl-$sig.err"
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

# The same faults sent to a run of a command (-c): leak-target, held at
# its --go FIFO so that it outlives faultline, which is its parent.
# Three modes: leak on the tracefs uprobe rung, leak on the perf uprobe
# PMU rung (FAULTLINE_MASK=tracefs, as tests/system/uprobe-pmu.sh: the
# probes are perf fds, the command in a cgroup faultline_PID of its
# own), and record -e leak (the recording flushed as it is, without its
# END record).  After the death: the command alive and not stopped (the
# emergency path lets a paused target go), no probe group, no cgroup
# faultline_PID (nor the command in it), nothing of faultline_PID for
# `faultline cleanup` to remove; then the test ends the command.

# cg_dir TG FL: the directory of TG's cgroup faultline_FL (perf_event's
# hierarchy: cgroup2's, or a v1 mount of perf_event); nothing if none.
cg_dir() {
	local l m
	l=$(grep "/faultline_$2\$" "/proc/$1/cgroup" 2>/dev/null | head -n 1)
	[ -n "$l" ] || return 0
	case $l in
	0::*) m=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts) ;;
	*) m=$(awk '$3 == "cgroup" && $4 ~ /(^|,)perf_event(,|$)/ { print $2; exit }' /proc/self/mounts) ;;
	esac
	[ -n "$m" ] && echo "$m${l#*:*:}"
	return 0
}

# cmd_signalled SIG MODE [TOOL ARGS...]: faultline TOOL ARGS -c
# leak-target, killed by SIG once its command runs (the "Executing" line:
# the banner comes once tracing is live), then the checks above.
cmd_signalled() {
	local sig=$1 mode=$2 name=fl-$2-$1 tg cg st
	shift 2
	go_fifo "$mode-$sig"
	spawn "$name" "$FAULTLINE" "$@" -c "$LT leaks --go $fifo"
	pid=$spawned
	wait_until "$FL_READY_TIMEOUT" grep -q "^Executing '" "$T/$name.err" ||
		fail "$mode SIG$sig: faultline not tracing: $(tail -n 3 "$T/$name.err")"
	tg=$(pgrep -P "$pid" -x leak-target) || {
		fail "$mode SIG$sig: no leak-target under faultline $pid"
		kill -KILL "$pid"
		wait_exit "$pid" "$mode SIG$sig"
		return 0
	}
	cg=
	case $mode in
	pmu)
		cg=$(cg_dir "$tg" "$pid")
		[ -n "$cg" ] && [ -d "$cg" ] ||
			fail "$mode SIG$sig: the command is not in a cgroup faultline_$pid: $(cat "/proc/$tg/cgroup" 2>/dev/null)"
		;;
	*) group_present "$pid" || fail "$mode SIG$sig: no probes created" ;;
	esac
	kill -"$sig" "$pid"
	wait_exit "$pid" "$mode SIG$sig"
	expect_eq "$rc" $((128 + $(kill -l "$sig"))) "$mode: exit status after SIG$sig"
	st=$(sed 's/.*) //' "/proc/$tg/stat" 2>/dev/null | cut -d' ' -f1)
	case $st in
	'' | Z | X) fail "$mode SIG$sig: the command (pid $tg) died with faultline" ;;
	T | t) fail "$mode SIG$sig: the command (pid $tg) left stopped (state $st)" ;;
	esac
	group_present "$pid" && fail "$mode SIG$sig left probes of $pid"
	[ -n "$cg" ] && [ -d "$cg" ] && fail "$mode SIG$sig left $cg"
	grep -q "/faultline_$pid\$" "/proc/$tg/cgroup" 2>/dev/null &&
		fail "$mode SIG$sig: the command left in cgroup faultline_$pid"
	"$FAULTLINE" cleanup -n >"$T/$name.cleanup" 2>&1
	expect_no_line "faultline_$pid([^0-9]|\$)" "$T/$name.cleanup"
	kill "$tg" 2>/dev/null
	wait_until 10 _fl_gone "$tg" || fail "$mode SIG$sig: the command (pid $tg) ignored SIGTERM"
}
LT=$(target leak-target)
pmu=
[ -r /sys/bus/event_source/devices/uprobe/type ] && pmu=1
for sig in SEGV BUS ILL FPE ABRT TRAP SYS; do
	fatal="^faultline: fatal signal SIG$sig: probes removed"
	cmd_signalled "$sig" uprobe leak
	expect_line "$fatal\$" "$T/fl-uprobe-$sig.err"
	if [ -n "$pmu" ]; then
		FAULTLINE_MASK=tracefs
		cmd_signalled "$sig" pmu leak
		FAULTLINE_MASK='syscalls:*'
		expect_line "$fatal\$" "$T/fl-pmu-$sig.err"
	fi
	cmd_signalled "$sig" record record -e leak -o "$T/$sig-cmd.rec"
	expect_line "$fatal, the recording left unfinished \(report reads it up to its last whole record\)\$" \
		"$T/fl-record-$sig.err"
	run_fl report -i "$T/$sig-cmd.rec" leak
	expect_eq "$rc" 0 "report of the recording of a command ended by SIG$sig: status"
	expect_line "^faultline report: warning: the recording ends early at [0-9.]+ s \([0-9]+ bytes of a record cut off\): no END record$" "$T/err"
done
[ -n "$pmu" ] || echo "no perf uprobe PMU here: the PMU rung's runs skipped"

# The file size limit (ulimit -f) reached by a recording: the write fails
# with EFBIG (SIGXFSZ caught), the run stops, probes removed, said, status
# 128 + SIGXFSZ; the file is what fitted, read up to its last whole record.
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
expect_line "^  outstanding: +[0-9,]+ B.* in [0-9,]+ allocations from " "$T/out"

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
