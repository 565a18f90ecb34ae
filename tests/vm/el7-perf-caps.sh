#!/bin/sh
# el7-perf-caps.sh (guest, RHEL 7's 3.10): what of perf_event_attr this
# kernel takes, and faultline where it would not.  Red Hat backported the
# dummy event, PERF_SAMPLE_IDENTIFIER, mmap2, comm_exec and use_clockid,
# not PERF_FORMAT_LOST (6.0), so on this kernel faultline's probe
# (perf_caps__probe) finds them all but format_lost, and no tool says it
# lacks one.  The upstream 3.10 to 3.15 lack what 3.12 and 3.16 added:
# tests/targets/old-perf makes this kernel's perf_event_open answer as
# they do (ptrace and seccomp, both in 3.10), and old_perf_tools
# (lib-checks.sh, as tests/system/perf-caps.sh runs it on the host)
# checks that the fallbacks are taken, said in one line, and that leak
# (DWARF, fp, PMU), faults --by-alloc and mmap stay exact.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
run_fl features
expect_eq "$rc" 0 "features status"
expect_line '^perf_event_attr +takes dummy sample_identifier mmap2 comm_exec use_clockid; lacks format_lost \(Linux 6\.0\)$' "$T/out"
run_fl leak -T 100 -c "$(target leak-target) leaks"
expect_eq "$rc" 0 "leak -c status"
expect_no_line 'lacks' "$T/err"
check_sites "3.10's own perf_event_open"

OP=$(target old-perf)
"$OP" -x dummy true 2>"$T/op.err" || fail "old-perf cannot run here: $(cat "$T/op.err")"
fl_wrap "$FAULTLINE_BIN" "$OP" -x dummy,sample_identifier,mmap2,comm_exec -l "$T/refused"
old_perf_tools "el7"
pass_or_fail
