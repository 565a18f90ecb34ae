#!/bin/sh
# uprobe-pmu.sh: leak, brk and mmap through the perf uprobe PMU, the rung
# left when tracefs is closed (lockdown=confidentiality; the guest checks
# that for real in tests/vm/lockdown.sh): probes by perf_event_open, their
# arguments from the sampled registers.  FAULTLINE_MASK=tracefs makes this
# host look locked down (no tracefs: no tracefs uprobes and no syscall
# tracepoints, so leak's own mmap/munmap/brk come from libc's wrappers);
# FAULTLINE_MASK=uprobes leaves the syscall tracepoints.  The figures are
# the targets' own, exactly as on the tracefs rung: leak-target's every
# site (DWARF and fp), its forked child's leak (a PMU uprobe cannot be
# inherited: fork would fail with EFAULT), brk-target's 5 breaks and final
# break, mmap-target's every call, -p of a target beside a busy process
# born before the attach, -p of a target (its threads, and in fork mode
# its child) beside short-lived processes born after it, in a cgroup of
# its own that it leaves when faultline ends (or, faultline killed, at
# `faultline cleanup`), and -c of a target that waits while another
# process makes 100,000 malloc/free pairs.
. "$top_srcdir/tests/system/lib.sh"
. "$top_srcdir/tests/vm/lib-checks.sh"
need_root
[ -r /sys/bus/event_source/devices/uprobe/type ] || skip "no perf uprobe PMU (/sys/bus/event_source/devices/uprobe)"
LT=$(target leak-target)

FAULTLINE_MASK=tracefs
export FAULTLINE_MASK
run_fl features
for t in leak brk mmap; do
	expect_line "^$t +perf uprobe PMU " "$T/out"
done

pmu_tools "pmu, no tracefs"
run_fl leak -T 100 -c "$LT fork"
expect_eq "$rc" 0 "leak fork status (a fork that failed makes it 1)"
child=$(sed -n 's/^child_pid=//p' "$T/out")
expect_eq "$(grep -B1 '^		0x[0-9a-f]*	child_leak+' "$T/out" | awk 'NR == 1 { print $1, $4, $10 }')" \
	"72 3 $child" "the forked child's leak (bytes allocations pid)"

# -p beside a busy allocator that started after the target (so "born
# after the target" would keep it) but before the attach: the PMU
# uprobes are the target's cgroup's, so the other process's mallocs never
# take ring space.  With a filter on "born after the target" this lost
# about a thousand events to the churn's samples.
go_fifo pmu-p
spawn_at_fifo target "$LT" leaks --go "$fifo"
tpid=$spawned
spawn churn "$(target malloc-churn)" --count 2000000000
churn=$spawned
run_fl_go "$fifo" leak -T 100 -p "$tpid"
kill "$churn" 2>/dev/null; wait "$churn" 2>/dev/null
expect_eq "$rc" 0 "leak -p status"
cat "$T/target.out" >>"$T/out"
check_sites "pmu -p, a busy allocator beside"

# -p beside noise: a loop of short-lived processes that malloc, each born
# after the attach.  The PMU events are the target's cgroup's (its own,
# faultline_<flpid>, where the process was moved with its threads), so
# the threads the target starts are traced from their first call and no
# noise sample is written.  (The PMU rung's filter before, "the target's
# threads or any task born after the attach", let every noise sample in.)
# The reader is held (its main thread in a ptrace stop) and the spools
# are capped at 128 KiB, so the rings are all the room there is, as on a
# host whose reader falls behind: 4 MiB a CPU (fp samples), which the
# target's ~3,200 samples fit and the noise's 150,000 (~37 MB) would
# overflow.  Meanwhile the noise runs (10 malloc-churns of 5,000 pairs,
# one after the other) and, once its first process is done, the target
# makes its allocations and waits at its --end FIFO; faultline, let go,
# reads it all and is stopped with SIGINT, which puts the target back in
# the cgroup it came from.
go_fifo noise-go
go=$fifo
go_fifo noise-end
spawn_at_fifo target "$LT" leaks --go "$go" --end "$fifo"
tpid=$spawned
tend=$fifo
cg_before=$(cat "/proc/$tpid/cgroup")
spawn fl-noise env FAULTLINE_SPOOL_CAP=131072 "$FAULTLINE" leak -T 100 -o 0 --call-graph fp \
	-p "$tpid" 3600
fl=$spawned
wait_ready "$T/fl-noise.err" "noise: leak -p"
grep "/faultline_$fl\$" "/proc/$tpid/cgroup" >"$T/noise.cg" ||
	fail "noise: the target is not in a faultline_$fl cgroup: $(cat "/proc/$tpid/cgroup")"
cat >"$T/noise-during" <<EOF
#!/bin/sh
# Each line of the noise's and the target's account awaited (a safety net
# of 60 s each), never a sleep deciding what happens.
await() {
	n=0
	until grep -q "\$1" "\$2"; do
		n=\$((n + 1))
		[ "\$n" -le 6000 ] || { echo "no '\$1' in \$2" >&2; exit 1; }
		sleep 0.01
	done
}
(
	for i in 1 2 3 4 5 6 7 8 9 10; do
		"$(target malloc-churn)" --count 5000
	done
	echo noise_done=1
) >"$T/noise.out" 2>&1 &
await '^pid=' "$T/noise.out"
echo go >"$go"
await '^pid=' "$T/target.out"
wait
EOF
chmod +x "$T/noise-during"
rc=0
"$(target hold-thread)" "$fl" "$T/noise-during" 2>"$T/hold.err" || rc=$?
expect_eq "$rc" 0 "noise: the noise and the target under the held reader ($(cat "$T/hold.err"))"
expect_eq "$(grep -c '^pairs=5000$' "$T/noise.out")" 10 "noise: malloc-churns done"
kill -INT "$fl"
wait_exit "$fl" "noise: leak -p"
expect_stopped INT leak "$T/fl-noise.err" "noise: leak -p"
expect_eq "$(cat "/proc/$tpid/cgroup")" "$cg_before" "noise: the target's cgroups after faultline ended"
cgdir=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)$(sed 's/^0:://' "$T/noise.cg")
[ -s "$T/noise.cg" ] && [ -d "$cgdir" ] && fail "noise: $cgdir left after faultline ended"
release "$tend"
wait_exit "$tpid" "noise: leak-target"
cp "$T/fl-noise.out" "$T/out"
cat "$T/target.out" >>"$T/out"
check_sites "pmu -p, 50,000 malloc/free pairs of short-lived processes born after the attach"
# No event lost, and no ", N samples of other processes dropped".
tail -n 1 "$T/fl-noise.out" | grep -Eq '^[0-9,]+ samples, lost 0 events, [0-9,]+ unknown frames of [0-9,]+$' ||
	fail "noise: the report's last line: $(tail -n 1 "$T/fl-noise.out")"
for p in $(sed -n 's/^pid=//p' "$T/noise.out"); do
	grep -q "of pid $p " "$T/fl-noise.out" && fail "noise: a stack of noise process $p reported"
done
echo "RESULT noise: its mean $(awk -F= '$1 == "ns_per_pair" { s += $2; n++ } END { print "ns_per_pair=" int(s / n) }' "$T/noise.out"); $(tail -n 1 "$T/fl-noise.out")"

# -p of a target that forks: the child is born in the target's cgroup,
# so its allocations are traced from its first, as the tracefs rung's
# inherited events trace it.
go_fifo pmu-fork
spawn_at_fifo target "$LT" fork --go "$fifo"
tpid=$spawned
run_fl_go "$fifo" leak -T 100 -p "$tpid"
expect_eq "$rc" 0 "leak -p fork status"
child=$(sed -n 's/^child_pid=//p' "$T/target.out")
expect_eq "$(grep -B1 '^		0x[0-9a-f]*	child_leak+' "$T/out" | awk 'NR == 1 { print $1, $4, $10 }')" \
	"72 3 $child" "-p: the forked child's leak (bytes allocations pid)"
grep -q ', lost 0 events' "$T/out" || fail "-p fork: events lost: $(tail -n 1 "$T/out")"

# -p, faultline killed: the target stays in faultline's cgroup until
# `faultline cleanup` puts it back in the one it came from.
go_fifo pmu-pkill
spawn_at_fifo target "$LT" leaks --go "$fifo"
tpid=$spawned
cg_before=$(cat "/proc/$tpid/cgroup")
spawn fl-pkill "$FAULTLINE" leak -p "$tpid"
fl=$spawned
wait_ready "$T/fl-pkill.err" "-p, killed"
grep -q "/faultline_$fl\$" "/proc/$tpid/cgroup" ||
	fail "-p, killed: the target is not in a faultline_$fl cgroup: $(cat "/proc/$tpid/cgroup")"
kill -KILL "$fl"
wait "$fl" 2>/dev/null
"$FAULTLINE" cleanup >"$T/cleanup-p.out" 2>&1
expect_line "^removed cgroup .*/faultline_$fl of a dead faultline process\$" "$T/cleanup-p.out"
expect_eq "$(cat "/proc/$tpid/cgroup")" "$cg_before" "-p, killed: the target's cgroups after cleanup"
release "$fifo"
wait_exit "$tpid" "-p, killed: leak-target"

# -c while another process calls malloc heavily (the issue's `leak -c
# 'sleep 2'` here counted 20,754 of its events as lost): the command waits
# at its --go FIFO while a malloc-churn started before it makes its
# 100,000 malloc/free pairs under the probes (every process's on this
# rung), to its end (its account: pairs=); then the command does its
# work.  No event lost, every site the command's own.
go_fifo churn-go
spawn_at_fifo churn "$(target malloc-churn)" --count 100000 --go "$fifo"
churn=$spawned
churn_go=$fifo
go_fifo quiet
spawn fl-busy "$FAULTLINE" leak -T 100 -c "$LT leaks --go $fifo"
fl=$spawned
wait_until "$FL_READY_TIMEOUT" grep -q "^Executing '" "$T/fl-busy.err" ||
	fail "busy: faultline not tracing: $(cat "$T/fl-busy.err")"
tg=$(pgrep -P "$fl" -x leak-target) || fail "busy: no leak-target under faultline"
wait_until "$FL_READY_TIMEOUT" _fl_at_fifo "$tg" || fail "busy: leak-target never at its --go FIFO"
release "$churn_go"
wait_exit "$churn" "busy: malloc-churn"
expect_eq "$(sed -n 's/^pairs=//p' "$T/churn.out")" 100000 "busy: malloc-churn's pairs"
kill -0 "$fl" 2>/dev/null || fail "busy: faultline ended before its command"
release "$fifo"
wait_exit "$fl" "busy: leak -c"
expect_eq "$rc" 0 "busy: leak -c status"
cp "$T/fl-busy.out" "$T/out"
check_sites "pmu -c, 100,000 malloc/free pairs of another process while the command waited"
# The report at the command's exit (leak's 5 s reports may come before).
tail -n 1 "$T/out" | grep -Eq '^[0-9,]+ samples, lost 0 events, ' ||
	fail "busy: the last report lost events: $(tail -n 1 "$T/out")"
echo "RESULT busy: malloc-churn beside, $(grep ^ns_per_pair= "$T/churn.out"); $(grep '^  outstanding: ' "$T/out" | tail -n 1 | sed 's/^ *//'); $(tail -n 1 "$T/out")"

# -c: the command gets a cgroup of its own (faultline_<pid>, below its
# own, in the perf_event hierarchy) and the PMU events are that cgroup's,
# so no other process's sample is written; removed when faultline ends,
# and by `faultline cleanup` when faultline was killed.  pmu_cg NAME:
# leak -c of leak-target held on a FIFO; its cgroup line in $T/NAME.cg.
pmu_cg() {
	go_fifo "$1"
	spawn "fl-$1" "$FAULTLINE" leak -T 100 -c "$LT leaks --go $fifo"
	fl=$spawned
	wait_until "$FL_READY_TIMEOUT" grep -q "^Executing '" "$T/fl-$1.err" ||
		fail "$1: faultline not tracing: $(cat "$T/fl-$1.err")"
	tg=$(pgrep -P "$fl" -x leak-target) || fail "$1: no leak-target under faultline"
	grep "/faultline_$fl\$" "/proc/$tg/cgroup" >"$T/$1.cg"
}
# (Here perf_event is cgroup2's: no v1 mount has it; a host where one
# does gets its cgroup there, which this part does not look for.)
awk '$3 == "cgroup" && $4 ~ /(^|,)perf_event(,|$)/ { f = 1 } END { exit !f }' /proc/self/mounts &&
	fail "perf_event is mounted as cgroup v1 here: this part reads cgroup2 paths"
pmu_cg cg
[ -s "$T/cg.cg" ] || fail "the command is not in a faultline_$fl cgroup: $(cat "/proc/$tg/cgroup")"
release "$fifo"
wait_exit "$fl" "leak -c (cgroup)"
expect_eq "$rc" 0 "leak -c (cgroup) status"
cp "$T/fl-cg.out" "$T/out"
check_sites "pmu, the command's cgroup"
mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
cgdir=$mnt$(sed 's/^0:://' "$T/cg.cg")
[ -d "$cgdir" ] && fail "$cgdir left after faultline ended"

# Killed: the cgroup stays, with the command in it; cleanup moves the
# command back to its parent cgroup and removes it.
pmu_cg killed
kill -KILL "$fl"
wait "$fl" 2>/dev/null
cgdir=$mnt$(sed 's/^0:://' "$T/killed.cg")
[ -d "$cgdir" ] || fail "no $cgdir after SIGKILL (the test needs one to clean)"
"$FAULTLINE" cleanup >"$T/cleanup.out" 2>&1
expect_line "^removed cgroup $cgdir of a dead faultline process\$" "$T/cleanup.out"
[ -d "$cgdir" ] && fail "$cgdir left after cleanup"
grep -q "/faultline_$fl\$" "/proc/$tg/cgroup" && fail "the command still in the removed cgroup"
kill "$tg" 2>/dev/null

# A fault (SIGSEGV, sent): the emergency handler removes the cgroup too,
# async-signal-safe, the command moved back to its parent's first, as
# `faultline cleanup` would have to after a SIGKILL.  (The sanitizer
# build's ASan would take the re-raised SIGSEGV: left to its default.)
ulimit -c 0
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
export ASAN_OPTIONS
pmu_cg segv
cgdir=$mnt$(sed 's/^0:://' "$T/segv.cg")
[ -d "$cgdir" ] || fail "no $cgdir before the SIGSEGV (the test needs one)"
kill -SEGV "$fl"
wait_exit "$fl" "leak -c (cgroup), SIGSEGV"
expect_eq "$rc" 139 "leak -c (cgroup), SIGSEGV: status (death by the signal)"
expect_line "^faultline: fatal signal SIGSEGV: probes removed$" "$T/fl-segv.err"
[ -d "$cgdir" ] && fail "$cgdir left after SIGSEGV"
grep -q "/faultline_$fl\$" "/proc/$tg/cgroup" && fail "the command still in the removed cgroup after SIGSEGV"
kill "$tg" 2>/dev/null

# Syscall tracepoints present, tracefs uprobes masked.
FAULTLINE_MASK=uprobes
run_fl leak -T 100 -c "$LT leaks"
expect_eq "$rc" 0 "leak status"
check_sites "pmu, syscall tracepoints"
unset FAULTLINE_MASK
pass_or_fail
