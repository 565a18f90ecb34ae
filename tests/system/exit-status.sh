#!/bin/sh
# A tool given a command (-c CMD, -- CMD) exits with the command's status,
# 128+N when signal N killed it, as valgrind does with its client's, and
# still prints its report; faultline's own failure, before the command ran
# or after, is 125, a status a command rarely returns (env, timeout and git
# bisect run's "the wrapper failed"); -p, -a and report keep faultline's
# own 0/1/2.  For leak, faults, brk and record.
. "$top_srcdir/tests/system/lib.sh"
need_root

# What each tool's report ends with: it was printed whatever the status.
report_line() {
	case $1 in
	leak) echo '^[0-9,]+ samples, lost 0 events' ;;
	faults | brk) echo '^[0-9,]+ samples, lost 0 events' ;;
	record) echo '^faultline record: [0-9,]+ samples \(0 lost\)' ;;
	esac
}

for tool in leak faults brk record; do
	o=
	[ "$tool" = record ] && o="-o $T/$tool.rec"
	re=$(report_line "$tool")
	out=$T/out
	[ "$tool" = record ] && out=$T/err

	# shellcheck disable=SC2086 # $o is two words or none
	run_fl "$tool" $o -- sh -c 'exit 3'
	expect_eq "$rc" 3 "$tool -- sh -c 'exit 3': status"
	expect_line "^faultline $tool: 'sh -c 'exit 3'' exited with status 3$" "$T/err"
	expect_line "$re" "$out"

	# shellcheck disable=SC2086
	run_fl "$tool" $o -- sh -c 'kill -SEGV $$'
	expect_eq "$rc" 139 "$tool: a command killed by SIGSEGV: status"
	expect_line "^faultline $tool: 'sh -c 'kill -SEGV \\\$\\\$'' was killed by signal 11 " "$T/err"
	expect_line "$re" "$out"

	# shellcheck disable=SC2086
	run_fl "$tool" $o -c true
	expect_eq "$rc" 0 "$tool -c true: status"

	# Faultline's own failures, before the command runs: a command that
	# cannot be executed (a shell would say 127; faultline runs it itself)
	# and a bad command line, which stays 2.
	# shellcheck disable=SC2086
	run_fl "$tool" $o -- "$T/no-such-program"
	expect_eq "$rc" 125 "$tool: a command that cannot be executed: status"
	expect_line "^faultline $tool: cannot execute '.*no-such-program'" "$T/err"
	# shellcheck disable=SC2086
	run_fl "$tool" $o --no-such-option -- sh -c 'exit 3'
	expect_eq "$rc" 2 "$tool: a bad option: status"
done

# No event source (the features masked): faultline fails before the
# command starts, 125, and says why in one line.
FAULTLINE_MASK='exceptions:page_fault_user,perf_events' run_fl faults -- sh -c 'exit 3'
expect_eq "$rc" 125 "faults with no event source: status"
expect_line "^faultline faults: this kernel offers no event source for it" "$T/err"
# An impossible probe spec.
run_fl leak --probes "$T/no-such.probes" -- sh -c 'exit 3'
expect_eq "$rc" 125 "leak --probes MISSING: status"
expect_line "^faultline leak: cannot open '.*no-such.probes'" "$T/err"

# Faultline failing after the command ran (the report cannot be written):
# 125, not the command's 3 nor its 0.
for st in 0 3; do
	rc=0
	"$FAULTLINE" brk -- sh -c "exit $st" >/dev/full 2>"$T/err" || rc=$?
	expect_eq "$rc" 125 "brk >/dev/full, the command exiting $st: status"
	expect_line '^faultline: cannot write the output' "$T/err"
done

# A command still running when the duration ends is stopped by faultline:
# the status is faultline's own.
run_fl brk 1 -- sleep 60
expect_eq "$rc" 0 "brk 1 -- sleep 60: status"

# report of a recording whose command exited 3: report's own status.
run_fl record -e brk -o "$T/three.rec" -- sh -c 'exit 3'
expect_eq "$rc" 3 "record -e brk: status"
run_fl report -i "$T/three.rec" brk
expect_eq "$rc" 0 "report of a recording whose command exited 3: status"

# -p: faultline's own status, whatever the process does.
spawn sl sleep 60
run_fl brk -p "$spawned" 1
expect_eq "$rc" 0 "brk -p PID 1: status"
run_fl brk -p 999999999 1
expect_eq "$rc" 1 "brk -p (no such process): status"

pass_or_fail
