#!/bin/sh
# exited-early.sh: a system-wide session names and symbolizes a process
# that was running before it started and exited before the reader reached
# its samples (a busy machine, a short program): the session reads every
# process's comm and maps when it starts, as perf record -a does, since no
# side-band record will say them and /proc is gone by then.
#
# Deterministic, no sleep: touch-pages waits on its FIFO; faultline faults
# -a starts and says it is tracing; faultline is stopped (SIGSTOP), the
# target released, and it touches its 64 pages and exits while nothing
# reads the rings; then faultline continues and is stopped with SIGINT.
# The target's pid must be reported under its name, with its touch_all
# stack symbolized and its 64 faults exact.
. "$top_srcdir/tests/system/lib.sh"
need_root

TP=$(target touch-pages)
go_fifo tp
spawn_at_fifo tp "$TP" --pages 64 --go "$fifo"
tpid=$spawned
spawn fl "$FAULTLINE" faults -a --json --call-graph fp -m 4096
fl=$spawned
wait_ready "$T/fl.err" "faults -a" || { pass_or_fail; exit 1; }
kill -STOP "$fl"
release "$fifo"
wait_exit "$tpid" "touch-pages"
expect_eq "$rc" 0 "touch-pages status"
[ -d "/proc/$tpid" ] && fail "touch-pages (pid $tpid) still exists"
kill -CONT "$fl"
kill -INT "$fl"
wait_exit "$fl" "faults -a"
expect_stopped INT faults "$T/fl.err" "faults -a"
python3 - "$T/fl.out" "$tpid" <<'PY' || fail "the exited target's faults"
import json, sys
pid = int(sys.argv[2])
evs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
lost = [e for e in evs if e.get("type") == "lost"]
if lost:
    sys.exit("events lost: %s" % lost)
mine = [e for e in evs if e.get("type") == "stack" and e["pid"] == pid]
if not mine:
    sys.exit("no stack of pid %d" % pid)
names = {e["comm"] for e in mine}
if names != {"touch-pages"}:
    sys.exit("pid %d reported as %s, not touch-pages" % (pid, sorted(names)))
touch = sum(e["faults"] for e in mine
            if e["stack"] and e["stack"][0]["sym"].startswith("touch_all+"))
if touch != 64:
    sys.exit("touch_all: %d faults, the target touched 64 pages" % touch)
print("pid %d: touch-pages, touch_all 64 faults, %d stacks" % (pid, len(mine)))
PY
pass_or_fail
