#!/bin/sh
# faultline report pprof's sample labels, decoded from the profile itself
# (pprof-check.py: gzip and protobuf's wire format by hand, no go), against
# the targets' own account of who they are:
#   - faults of thread-touch (record -e faults): one sample per thread of a
#     stack, each labelled pid, tid and comm exactly once: pid and comm the
#     target's (its getpid() and PR_GET_NAME), tid one of its two threads
#     (its gettid()s); thread_touch's samples all of the touching thread's
#     tid (not the main one's) and its 64 faults, main_touch's all of the
#     main thread and its 128;
#   - the heap of leak-target (record -e leak): every sample labelled pid
#     and comm, the target's, and no tid: heap-profile.c's sites are a
#     process's, its blocks do not keep the thread that made them.
# go tool pprof's own reading of the labels (-tags, -tagfocus) is pprof.sh's.
. "$top_srcdir/tests/system/lib.sh"
need_root
command -v python3 >/dev/null 2>&1 || skip "no python3"
TT=$(target thread-touch)
LT=$(target leak-target)
CHECK=$top_srcdir/tests/system/pprof-check.py

# check WHAT ARGS...: pprof-check.py ARGS, its differences in the failure.
check() {
	what=$1
	shift
	python3 "$CHECK" "$@" >"$T/check.out" 2>"$T/check.err" ||
		fail "$what: $(tr '\n' ';' <"$T/check.err")"
}

# ---- faults, by thread ----
run_fl record -e faults -o "$T/t.rec" -c "$TT"
expect_eq "$rc" 0 "record -e faults status"
expect_line '^faultline record: [0-9,]+ samples \(0 lost\) of faults in ' "$T/err"
cp "$T/out" "$T/tt.truth"
expect_line '^site fn=thread_touch pages=64 tid=[0-9]+$' "$T/tt.truth"
report_pprof "$T/t.rec" "$T/t.pb.gz" "report pprof (faults) status"
expect_line '^faultline report pprof: [0-9]+ samples, [0-9]+ faults ' "$T/err"
check "thread-touch's faults: labels or values" labels-thread "$T/t.pb.gz" "$T/tt.truth"

# ---- the heap: pid and comm, no tid ----
run_fl record -e leak -o "$T/l.rec" -c "$LT leaks"
expect_eq "$rc" 0 "record -e leak status"
cp "$T/out" "$T/lt.truth"
report_pprof "$T/l.rec" "$T/l.pb.gz" "report pprof (heap) status"
check "leak-target's heap: labels" labels-heap "$T/l.pb.gz" "$T/lt.truth"

pass_or_fail
