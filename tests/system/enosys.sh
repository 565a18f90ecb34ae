#!/bin/sh
# faultline where the system calls newer than Linux 3.10 fail, as on RHEL
# 7's kernel or under a seccomp policy that refuses what it does not know:
# enosys-exec's seccomp filter fails every x86_64 call from 314 up (what
# faultline and its libraries make there: getrandom, rseq, clone3; see
# src/lib/newsys.h).  Under ENOSYS, and under EPERM with clone3 answered
# ENOSYS (docker's default policy), the tools work as without the filter:
# features says the same, leak -c on leak-target is exact, a record/report
# round trip is exact (safeout's temporary name needed a fallback for
# getrandom: before it, record exited "no random bytes for a temporary
# name"), cleanup removes what a SIGKILLed faultline left.  Under EPERM for
# clone3 too, glibc cannot start a thread (it falls back to clone on
# ENOSYS only): leak refuses in one line that names clone3.  In the
# --enable-static-binary build this runs the static binary (scripts/check
# runs it there too).
. "$top_srcdir/tests/system/lib.sh"
need_root
TD=$(tracing_dir) || skip "no tracefs"
E=$(target enosys-exec)
LT=$(target leak-target)
CHECK=$top_srcdir/tests/system/leak-check.py
REAL=$FAULTLINE_BIN
# The interpreter itself: a pyenv shim does not run under the filter.
PY=$(python3 -c 'import sys; print(sys.executable)')

# The filter is in force and answers what it is asked to (and is allowed
# here at all: a seccomp-less kernel or a policy forbidding filters skips).
for e in ENOSYS EPERM; do
	"$E" -e "$e" true 2>"$T/filter.err" ||
		skip "no seccomp filter: $(cat "$T/filter.err")"
	got=$("$E" -e "$e" "$PY" -c '
import errno, os
try:
    os.getrandom(1)
    print("none")
except OSError as x:
    print(errno.errorcode[x.errno])' 2>/dev/null)
	expect_eq "$got" "$e" "getrandom under the filter (-e $e)"
done

run_fl features
expect_eq "$rc" 0 "features without the filter: exit"
cp "$T/out" "$T/features.base"

# variant NAME ENOSYS-EXEC-OPTIONS...: the tools under that filter.
variant() {
	local name=$1 pid fd fl nperf
	shift
	fl_wrap "$REAL" "$E" "$@"

	run_fl features
	expect_eq "$rc" 0 "$name: features exit"
	cmp -s "$T/features.base" "$T/out" || {
		diff "$T/features.base" "$T/out" | head -20
		fail "$name: features differs from the unfiltered run"
	}

	run_fl leak --json -T 100 -c "$LT leaks"
	expect_eq "$rc" 0 "$name: leak -c exit"
	grep '^{' "$T/out" >"$T/$name-leak.json"
	grep '^site' "$T/out" >"$T/$name-leak.truth"
	python3 "$CHECK" "$T/$name-leak.json" "$T/$name-leak.truth" ||
		fail "$name: leak -c is not the truth"

	run_fl record -e leak -o "$T/$name.rec" -c "$LT leaks"
	expect_eq "$rc" 0 "$name: record exit"
	expect_line "^faultline record: [0-9,]+ samples \\(0 lost\\) of leak in $T/$name.rec, [0-9,]+ B( \\([0-9.]+ [KMGT]iB\\))?$" "$T/err"
	grep '^site' "$T/out" >"$T/$name-rec.truth"
	run_fl report -i "$T/$name.rec" leak --json -T 100
	expect_eq "$rc" 0 "$name: report exit"
	python3 "$CHECK" "$T/out" "$T/$name-rec.truth" ||
		fail "$name: report of the recording is not the truth"

	# cleanup after SIGKILL: uprobes (the tracepoints masked) left in
	# tracefs by a faultline killed under the filter, removed by one
	# running under it.
	spawn "$name-victim" env FAULTLINE_MASK='syscalls:*' "$FAULTLINE" mmap -a 60
	pid=$spawned
	wait_ready "$T/$name-victim.err" "$name victim"
	grep -q ":faultline_$pid/" "$TD/uprobe_events" || fail "$name: the victim made no probes"
	# Its perf events are close-on-exec, by PERF_FLAG_FD_CLOEXEC or,
	# where the kernel refuses that flag, by fcntl (fdinfo's flags are
	# octal; O_CLOEXEC is 02000000).
	nperf=0
	for fd in /proc/"$pid"/fd/*; do
		[ "$(readlink "$fd")" = "anon_inode:[perf_event]" ] || continue
		nperf=$((nperf + 1))
		fl=$(sed -n 's/^flags:[[:space:]]*//p' "/proc/$pid/fdinfo/${fd##*/}")
		[ $((0$fl & 02000000)) -ne 0 ] || fail "$name: perf fd ${fd##*/} not close-on-exec (flags $fl)"
	done
	[ "$nperf" -gt 0 ] || fail "$name: the victim holds no perf event"
	kill -KILL "$pid"
	wait_exit "$pid" "$name victim"
	run_fl cleanup
	expect_eq "$rc" 0 "$name: cleanup exit"
	expect_line "^removed faultline_$pid: 4 probes of dead faultline process $pid$" "$T/out"
	assert_no_probes_of "$pid"
}

variant enosys -e ENOSYS
variant eperm -e EPERM -E clone3
# And perf_event_open refusing PERF_FLAG_FD_CLOEXEC with EINVAL, as a
# vanilla 3.10 does (RHEL 7 has the flag backported).
variant perf310 -e ENOSYS -P

# EPERM for clone3 too: no thread can start; one line says why, and no
# probe is left (the exit trap checks).
fl_wrap "$REAL" "$E" -e EPERM
run_fl leak -c "$LT leaks"
[ "$rc" -ne 0 ] || fail "leak under EPERM for clone3: exit 0"
expect_eq "$(grep -c -v -E '^(enosys-exec: |faultline leak: probing )' "$T/err")" 1 \
	"leak under EPERM for clone3: lines on stderr beside the probing line"
expect_line '^faultline leak: cannot start the ring reader thread: Operation not permitted: the clone3 system call is refused with EPERM .*answer ENOSYS' "$T/err"

# perf_event_open answering E2BIG (an attr bigger than the kernel's, before
# 3.7): one line that says so, non-zero, no probe left.
fl_wrap "$REAL" "$E" -e ENOSYS -Z
run_fl leak -c "$LT leaks"
[ "$rc" -ne 0 ] || fail "leak under E2BIG: exit 0"
expect_eq "$(grep -c -v -E '^(enosys-exec: |faultline leak: probing )' "$T/err")" 1 \
	"leak under E2BIG: lines on stderr beside the probing line"
expect_line "^faultline leak: perf_event_open of '.*': the kernel's perf_event_attr is [0-9]+ bytes, and faultline sets a field past them \\(E2BIG\\)" "$T/err"
pass_or_fail
