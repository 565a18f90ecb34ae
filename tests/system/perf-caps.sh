#!/bin/sh
# perf-caps.sh: faultline where perf_event_open lacks what Linux 3.12 and
# 3.16 added to perf_event_attr: the dummy software event and
# PERF_SAMPLE_IDENTIFIER (3.12), mmap2 and comm_exec (3.16).  This kernel
# has them all; tests/targets/old-perf makes its perf_event_open answer
# as such an older kernel does (ENOENT for the dummy event, EINVAL for the
# bits), every other call and event being this kernel's own.  faultline
# probes each bit before its first event (perf_caps__probe) and falls
# back: the side-band on a page-fault counter that never samples, events
# told apart by PERF_SAMPLE_ID with an address in every sample,
# PERF_RECORD_MMAP, an exec as the first COMM after a fork.  Checked
# (old_perf_tools in tests/vm/lib-checks.sh, as the RHEL 7 guest runs
# it): features, and leak -c (DWARF, fp, PMU), faults --by-alloc and
# mmap -c exact against their targets, each saying in one line what the
# kernel lacks; here also faults-check.py's by-alloc and stacks checks
# and a record/report round trip of leak, exact.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
OP=$(target old-perf)
CAPS=dummy,sample_identifier,mmap2,comm_exec
"$OP" -x "$CAPS" true 2>"$T/op.err" || skip "old-perf cannot run here: $(cat "$T/op.err")"
run_fl features
expect_line '^perf_event_attr +takes dummy sample_identifier mmap2 comm_exec use_clockid' "$T/out"

fl_wrap "$FAULTLINE_BIN" "$OP" -x "$CAPS" -l "$T/refused"
# LeakSanitizer cannot run in a traced process (it stops the world with
# ptrace itself, and exits 1 saying so): under old-perf the sanitizer
# build keeps ASan and UBSan, without the leak check every other test has.
if [ "${FL_SANITIZED:-0}" = 1 ]; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export ASAN_OPTIONS
fi
old_perf_tools host

run_fl faults --by-alloc --json -c "$(target fault-target)"
expect_eq "$rc" 0 "faults --by-alloc status"
python3 "$top_srcdir/tests/system/faults-check.py" by-alloc "$T/out" "$T/out" tracepoint ||
	fail "faults-check.py by-alloc under old-perf"
run_fl faults --json -c "$(target fault-target)"
expect_eq "$rc" 0 "faults status"
python3 "$top_srcdir/tests/system/faults-check.py" stacks "$T/out" "$T/out" tracepoint ||
	fail "faults-check.py stacks under old-perf"

run_fl record -e leak -o "$T/run.rec" -c "$(target leak-target) leaks"
expect_eq "$rc" 0 "record status"
cp "$T/out" "$T/truth"
run_fl report -i "$T/run.rec" leak -T 100
expect_eq "$rc" 0 "report status"
cat "$T/truth" >>"$T/out"
check_sites "record/report"
pass_or_fail
