#!/bin/sh
# How targets are chosen and how tracing ends: system-wide (-a) until a
# duration or Ctrl-C, a command's exit status, tracefs mounted by faultline
# itself when absent, and lost events counted when the ring is too small.
. "$top_srcdir/tests/system/lib.sh"
need_root
BT=$(target brk-target)

truth() { sed -n "s/^$1=//p" "$2" | head -n 1; }

# sum_counts FILE PID FRAME: total count of JSON stacks of PID whose
# innermost frame is FRAME.
sum_counts() {
	python3 - "$@" <<'PY'
import json, sys
path, pid, frame = sys.argv[1], int(sys.argv[2]), sys.argv[3]
n = 0
for line in open(path):
    if line.startswith("{"):
        o = json.loads(line)
        if o.get("type") == "stack" and o["pid"] == pid and o["stack"] and \
           o["stack"][0]["sym"].split("+")[0] == frame:
            n += o["count"]
print(n)
PY
}

# 1. -a: faultline says when it is live; a process started after that is
#    seen whole; SIGINT ends the trace with the report.
spawn fl "$FAULTLINE" brk --json -a
fl=$spawned
wait_ready "$T/fl.err" "-a"
"$BT" --count 5 >"$T/bt.out"
pid=$(truth pid "$T/bt.out")
kill -INT "$fl"
wait_exit "$fl" "-a"
expect_stopped INT brk "$T/fl.err" "-a"
expect_eq "$(sum_counts "$T/fl.out" "$pid" grow_heap_by_brk)" 5 "-a: grow_heap_by_brk calls of pid $pid"

# 2. -a with a duration: stops by itself.
run_fl brk -a 1
expect_eq "$rc" 0 "-a 1 exit status"
expect_line "^[0-9,]+ samples, lost [0-9,]+ events" "$T/out"

# 3. A command's failure is reported, faultline still reports and exits
#    with the command's status (exit-status.sh has the rest).
run_fl brk -c "$BT --count 0 --bogus-option"
expect_eq "$rc" 2 "exit status when the command fails (the command's)"
expect_line "exited with status 2$" "$T/err"

# 4. No tracefs mounted: faultline mounts it (private mount namespace, so
#    the rest of the machine keeps its mount).
TD=$(tracing_dir) || skip "no tracefs"
if command -v unshare >/dev/null 2>&1; then
	rc=0
	unshare -m --propagation private sh -c '
		umount "$1" || exit 99
		grep -q " tracefs " /proc/mounts && exit 98
		"$2" brk -c "$3 --count 2" || exit $?
		grep -q " tracefs " /proc/mounts || exit 97' sh "$TD" "$FAULTLINE" "$BT" \
		>"$T/out" 2>"$T/err" || rc=$?
	expect_eq "$rc" 0 "tracing with tracefs unmounted at start"
	expect_line "^    2 calls, requested break" "$T/out"
fi

# 5. A ring of one page cannot hold a burst of 20000 calls: whatever is
#    dropped is counted, never silent.  Either nothing was lost and every
#    call is there, or the loss shows and the count falls short.
run_fl brk --json -m 1 -c "$BT --count 20000 --step 4096"
expect_eq "$rc" 0 "-m 1 exit status"
pid=$(truth pid "$T/out")
got=$(sum_counts "$T/out" "$pid" grow_heap_by_brk)
lost=$(sed -n 's/.*"type":"summary".*"lost":\([0-9]*\).*/\1/p' "$T/out")
if [ "${lost:-x}" = 0 ]; then
	expect_eq "$got" 20000 "calls with no loss"
elif [ -n "$lost" ] && [ "$got" -lt 20000 ]; then
	echo "lost $lost events, saw $got of 20000 calls"
else
	fail "-m 1: lost '$lost' and $got of 20000 calls do not add up"
fi
pass_or_fail
