#!/bin/sh
# Bad input: each case gets one clear line on stderr naming the cause, a
# non-zero exit, no crash and no probe left behind.
. "$top_srcdir/tests/system/lib.sh"
need_root

one_line_error() {	# WHAT EXPECTED_RC REGEX
	expect_eq "$rc" "$2" "$1: exit status"
	n=$(grep -c . "$T/err")
	expect_eq "$n" 1 "$1: lines on stderr"
	expect_line "$3" "$T/err"
	grep -q 'AddressSanitizer\|runtime error' "$T/err" && fail "$1: sanitizer report"
	return 0
}

# A pid that does not exist.
run_fl brk -p 12abc
one_line_error "bad pid" 2 "invalid pid"
run_fl brk -p 4194303
one_line_error "nonexistent pid" 1 "^faultline brk: no process with pid 4194303$"

# A command that cannot be executed: faultline's own failure with a
# command given is 125 (exit-status.sh).
run_fl mmap -c /nonexistent/program
one_line_error "missing command" 125 "cannot execute '/nonexistent/program': No such file or directory"
run_fl brk -c "$top_srcdir/README.md"
one_line_error "non-executable command" 125 "cannot execute .*: Permission denied"
run_fl brk -c ""
one_line_error "empty command" 125 "empty command"

# Usage errors.
run_fl brk -m 3
one_line_error "-m not a power of two" 2 "power of two"
# 2^24 is a power of two too: the limit is said as such.
run_fl brk -m 16777216
one_line_error "-m above the limit" 2 "^faultline brk: -m takes at most 1048576 pages a CPU, not '16777216'"
run_fl brk -m 1048576 -p 4194303
one_line_error "-m at the limit is accepted" 1 "^faultline brk: no process with pid 4194303$"
run_fl brk -p 1 -c true
one_line_error "-p with -c" 2 "choose one of -p, -c and -a"
run_fl brk 0
one_line_error "zero duration" 2 "invalid duration"
run_fl nosuchtool
one_line_error "unknown command" 2 "'nosuchtool' is not a faultline command"
# Record and report agree on what a tool cannot do: one table says it.
run_fl record -e hfaults -o "$T/h.rec" -c true
one_line_error "record -e hfaults" 2 "^faultline record: 'hfaults' cannot be recorded: it reads each fault's page from the live process's pagemap$"
[ -e "$T/h.rec" ] && fail "record -e hfaults: left a recording"
run_fl record -e features -o "$T/h.rec" -c true
one_line_error "record -e features" 2 "^faultline record: 'features' is not a tool whose events can be recorded"

# Not root (perf_event_paranoid cannot grant tracefs): run as nobody.
if command -v setpriv >/dev/null 2>&1; then
	rc=0
	setpriv --reuid=65534 --regid=65534 --clear-groups "$FAULTLINE_BIN" brk -a 1 \
		>"$T/out" 2>"$T/err" || rc=$?
	one_line_error "not root" 1 "must run as root"
fi

# A kernel that offers no event source for the tool (every rung masked:
# the same path a kernel without syscall tracepoints and uprobes takes).
FAULTLINE_MASK='syscalls:*,uprobes,uprobe_pmu' run_fl brk -a 1
one_line_error "no event source" 1 "offers no event source"

# tracefs absent and not mountable: in a private mount namespace, hide
# /sys/kernel under a read-only tmpfs so there is nothing to find and
# nowhere to mount it (and the uprobe PMU, which needs no tracefs, masked).
if command -v unshare >/dev/null 2>&1; then
	rc=0
	FAULTLINE_MASK=uprobe_pmu unshare -m --propagation private sh -c \
		'mount -t tmpfs -o ro none /sys/kernel && exec "$0" brk -a 1' "$FAULTLINE" \
		>"$T/out" 2>"$T/err" || rc=$?
	one_line_error "no tracefs" 1 "tracefs"
fi

# A pid that exits while traced: the trace ends, the report prints, exit 0.
# The target runs and exits once faultline is tracing it.
go_fifo victim
spawn_at_fifo victim "$(target brk-target)" --go "$fifo"
run_fl_go "$fifo" brk -p "$spawned"
expect_eq "$rc" 0 "pid exiting while traced: exit status"
expect_line "lost 0 events" "$T/out"

# A report that cannot be written is an error: exit 125 (a command was
# given: exit-status.sh), one line.  stdout is /dev/full; the
# "Executing ..." and "probing ..." lines on stderr are the tool's own.
if [ -w /dev/full ]; then
	rc=0
	"$FAULTLINE" leak -c "$(target demo)" >/dev/full 2>"$T/err" || rc=$?
	grep -v -e '^Executing ' -e '^faultline leak: probing ' "$T/err" >"$T/err2" || :
	mv "$T/err2" "$T/err"
	one_line_error "output to a full device" 125 "cannot write the output"
	rc=0
	"$FAULTLINE" --version >/dev/full 2>"$T/err" || rc=$?
	one_line_error "--version to a full device" 1 "cannot write the output"
fi
pass_or_fail
