#!/bin/sh
# faultline hfaults holds its -c and -p process at its exit (ptrace's exit
# stop, src/trace/exit-hold.c) until every fault is looked up: huge-target
# --thp 32 touches 32 THPs and exits at once; without the hold most of its
# faults were read after its memory was gone (19, 0, 21 of 32 in three
# runs).  Now the THP count equals the target's own smaps count
# (AnonHugePages) in every one of 5 runs with -c and 3 with -p, with no
# fault unresolved for a process gone.  The held target's signals still
# reach it: a SIGSTOP stops it, SIGCONT resumes it, SIGTERM kills it (and
# faultline says so); and a faultline killed with SIGKILL leaves no target
# stuck in its hold.  Uprobes still fire on a held target: leak -p beside
# hfaults -p sees leak-target's sites exactly.
. "$top_srcdir/tests/system/lib.sh"
need_root
HT=$(target huge-target)
case $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null) in
*"[never]"* | "") skip "THP is off or absent (/sys/kernel/mm/transparent_hugepage/enabled)" ;;
esac

# check TRUTH JSON WHAT: the target's THP count is its smaps truth, 32,
# none unresolved for an exited process, nothing lost.
check() {
	python3 - "$1" "$2" <<'PY' || fail "hfaults exit hold: $3"
import json, re, sys
truth = dict(m.groups() for m in (re.match(r"(\w+)=(\S+)$", l.strip()) for l in open(sys.argv[1])) if m)
pid, thp = int(truth["pid"]), int(truth["thp_pages"])
procs, summary, unres = {}, None, None
for l in open(sys.argv[2]):
    if l.startswith("{"):
        o = json.loads(l)
        if o["type"] == "process": procs[o["pid"]] = o
        elif o["type"] == "summary": summary = o
        elif o["type"] == "unresolved": unres = o
errs = []
if thp != 32:
    errs.append("the target got %d THPs of 32 (smaps)" % thp)
if not summary or summary["lost"]:
    errs.append("summary %s" % summary)
if not unres or unres["process_exited"]:
    errs.append("unresolved %s" % unres)
p = procs.get(pid)
if not p or p["thp"] != thp:
    errs.append("pid %d: %s, want thp %d" % (pid, p, thp))
if errs:
    sys.exit("; ".join(errs))
PY
}

# 1. -c, the target exits as soon as it has printed its truth.
for i in 1 2 3 4 5; do
	run_fl hfaults --json -c "$HT --thp 32"
	expect_eq "$rc" 0 "run $i: status"
	check "$T/out" "$T/out" "-c run $i"
	expect_no_line 'cannot hold' "$T/err"
done

# 2. -p, the same target released once faultline traces; faultline ends
# with it.
for i in 1 2 3; do
	go_fifo ht
	spawn_at_fifo ht "$HT" --thp 32 --go "$fifo"
	htpid=$spawned
	spawn fl "$FAULTLINE" hfaults --json -p "$htpid"
	fl=$spawned
	wait_ready "$T/fl.err" "hfaults -p" && release "$fifo"
	wait_exit "$fl" "hfaults -p run $i"
	expect_eq "$rc" 0 "-p run $i: status"
	check "$T/ht.out" "$T/fl.out" "-p run $i"
	wait_exit "$htpid" "huge-target -p run $i"
	expect_eq "$rc" 0 "huge-target -p run $i: status"
done

# 3. Signals of a held target: stopped, continued, terminated.
state() { sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null; }
stopped() { case $(state "$1") in T | t) return 0 ;; esac; return 1; }
running() { case $(state "$1") in S | R) return 0 ;; esac; return 1; }
go_fifo end
spawn fl "$FAULTLINE" hfaults --json -c "$HT --thp 32 --end $fifo"
fl=$spawned
wait_until "$FL_TIMEOUT" grep -q '^pid=' "$T/fl.out" || fail "signals: the target did not finish"
htpid=$(sed -n 's/^pid=//p' "$T/fl.out")
kill -STOP "$htpid"
wait_until "$FL_TIMEOUT" stopped "$htpid" || fail "SIGSTOP did not stop the held target ($(state "$htpid"))"
kill -CONT "$htpid"
wait_until "$FL_TIMEOUT" running "$htpid" || fail "SIGCONT did not resume the held target ($(state "$htpid"))"
kill -TERM "$htpid"
wait_exit "$fl" "hfaults, target terminated"
expect_eq "$rc" 143 "signals: status (the command's: SIGTERM, 128+15)"
expect_line "^faultline hfaults: '.*huge-target --thp 32 --end .*' was killed by signal 15 " "$T/fl.err"
check "$T/fl.out" "$T/fl.out" "target terminated"

# 4. faultline killed: the kernel lets its tracee go, which then ends as
# it would have.
spawn fl "$FAULTLINE" hfaults --json -c "$HT --thp 32 --end $fifo"
fl=$spawned
wait_until "$FL_TIMEOUT" grep -q '^pid=' "$T/fl.out" || fail "SIGKILL: the target did not finish"
htpid=$(sed -n 's/^pid=//p' "$T/fl.out")
kill -KILL "$fl"
wait_exit "$fl" "hfaults killed"
release "$fifo"
wait_until "$FL_TIMEOUT" _fl_gone "$htpid" || fail "the target of a killed faultline is still there ($(state "$htpid"))"

# 5. Uprobes under the hold: leak -p on a target hfaults -p has seized
# (TracerPid set) sees its allocations as without it: leak-target's
# leak_malloc_small site, 7 x 40 bytes, and its calloc site, 3 x 500.
LT=$(target leak-target)
go_fifo lt
spawn_at_fifo lt "$LT" leaks --go "$fifo"
ltpid=$spawned
spawn hf "$FAULTLINE" hfaults --json -p "$ltpid"
hf=$spawned
wait_ready "$T/hf.err" "hfaults -p (leak-target)"
spawn lk "$FAULTLINE" leak --json -T 100 -p "$ltpid"
lk=$spawned
wait_ready "$T/lk.err" "leak -p under the hold"
tracer=$(sed -n 's/^TracerPid:[[:space:]]*//p' "/proc/$ltpid/status")
expect_eq "$tracer" "$hf" "leak-target's tracer"
release "$fifo"
wait_exit "$ltpid" "leak-target"
expect_eq "$rc" 0 "leak-target under the hold: status"
wait_exit "$lk" "leak -p"
expect_eq "$rc" 0 "leak -p under the hold: status"
wait_exit "$hf" "hfaults -p (leak-target)"
expect_eq "$rc" 0 "hfaults -p (leak-target): status"
for want in 'leak_malloc_small 280 7' 'leak_calloc 1500 3'; do
	set -- $want
	grep "^site fn=$1 bytes=$2 count=$3\$" "$T/lt.out" >/dev/null ||
		fail "leak-target's truth has no '$want'"
	expect_line "^\{\"type\":\"stack\",\"pid\":$ltpid,[^}]*\"bytes\":$2,\"allocations\":$3,\"stack\":\[\{\"addr\":\"0x[0-9a-f]+\",\"sym\":\"$1\+" "$T/lk.out"
done

# 6. -a holds nothing and says nothing about it.
run_fl hfaults --json -a 0.1
expect_eq "$rc" 0 "-a: status"
expect_no_line 'hold' "$T/err"

pass_or_fail
