#!/bin/sh
# drain-rt.sh: the thread that empties the rings runs SCHED_FIFO (priority
# 1), so a busy host cannot delay it until a ring is full, and so do its
# rings' watchers (priority 2, one a CPU); the reader and
# the traced command do not (SCHED_RESET_ON_FORK, and the command is forked
# before the thread starts); --no-realtime keeps it in the normal class.
# Read from /proc/PID/task/TID/stat (policy, field 41; rt_priority, 40)
# while faultline traces a target held on a FIFO.
. "$top_srcdir/tests/system/lib.sh"
need_root
LT=$(target leak-target)

# policies PID: "TID POLICY RTPRIO" for each thread of PID.
policies() {
	for st in /proc/"$1"/task/*/stat; do
		# comm may hold spaces: fields counted after its closing ')'.
		sed 's/^\([0-9]*\) (.*) /\1 /' "$st" | awk '{ print $1, $40, $39 }'
	done
}

# traced NAME [OPTION]: leak [OPTION] -c of a target waiting on a FIFO; the
# threads' policies of faultline and of the target in $T/NAME.fl / .tg.
traced() {
	local name=$1 fl tg
	go_fifo "$name"
	spawn "fl-$name" "$FAULTLINE" leak $2 -c "$LT leaks --go $fifo"
	fl=$spawned
	# -c's banner comes once tracing is live, the drain thread started.
	wait_until "$FL_READY_TIMEOUT" grep -q "^Executing '" "$T/fl-$name.err" ||
		fail "$name: faultline not tracing: $(cat "$T/fl-$name.err")"
	tg=$(pgrep -P "$fl" -x leak-target) || fail "$name: no target under faultline"
	policies "$fl" >"$T/$name.fl"
	policies "$tg" >"$T/$name.tg"
	release "$fifo"
	wait_exit "$fl" "leak ($name)"
	expect_eq "$rc" 0 "$name: leak status"
	expect_line ', lost 0 events' "$T/fl-$name.out"
	echo "$name: faultline's threads (tid policy rtprio):" $(cat "$T/$name.fl")
}

# The rings' watchers (drain-absent.sh), one a CPU, at SCHED_FIFO 2.
ncpu=$(getconf _NPROCESSORS_ONLN)
traced rt
expect_eq "$(awk '$2 == 1 && $3 == 1' "$T/rt.fl" | wc -l)" 1 "threads of faultline at SCHED_FIFO 1"
expect_eq "$(awk '$2 == 1 && $3 == 2' "$T/rt.fl" | wc -l)" "$ncpu" "threads of faultline at SCHED_FIFO 2"
expect_eq "$(awk '$2 != 0' "$T/rt.tg" | wc -l)" 0 "the target's threads not real-time"
expect_eq "$(wc -l <"$T/rt.fl")" $((2 + ncpu)) "faultline's threads: the reader, the drain, the watchers"
expect_eq "$(awk '$2 == 0' "$T/rt.fl" | wc -l)" 1 "the reader's policy is SCHED_OTHER"

traced nort --no-realtime
expect_eq "$(awk '$2 != 0' "$T/nort.fl" | wc -l)" 0 "--no-realtime: no real-time thread"
pass_or_fail
