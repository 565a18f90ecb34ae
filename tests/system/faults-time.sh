#!/bin/sh
# Faults by stack over time (faultline faults --interval-faults, live and
# from a recording) against fault-steps' own count of the pages it wrote.
# faultline attaches (-p) while the target waits on its --go FIFO, with
# everything but the steps' pages faulted in already, so the only faults
# traced are the steps': 4 (N + 2) + 10 a step, and intervals of that many
# faults are the steps.  In step i rise_touch wrote 4 i pages, fall_touch
# 4 (N + 2 - i), steady_touch 10: each interval's per-stack faults are
# exactly those.  The rate rule ranks rise_touch first and rising (rose in
# N - 1 intervals, never fell, most in the last), then the others, not
# rising, by their most faults in an interval: fall_touch, steady_touch.
. "$top_srcdir/tests/system/lib.sh"
need_root
FS=$(target fault-steps)
STEPS=6
PER=$((4 * (STEPS + 2) + 10))

# check FILE TRUTH WHAT: faults --interval-faults $PER --json -n 3's objects.
check() {
	python3 - "$1" "$2" "$STEPS" <<'PY' || fail "$3: the intervals or the ranking are not the target's"
import json, sys
out, truth_file, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
truth = dict(l.strip().split("=", 1) for l in open(truth_file) if "=" in l)
per = int(truth["step_faults"])
iv, rk = [], []
for l in open(out):
    if l.startswith("{"):
        o = json.loads(l)
        if o["type"] == "faults_interval":
            iv.append(o)
        elif o["type"] == "faults_rise":
            rk.append(o)
errs = []
def want(what, got, exp):
    if got != exp:
        errs.append("%s: %r, want %r" % (what, got, exp))
want("truth steps", int(truth["steps"]), steps)
want("ranked intervals", len([o for o in iv if o["ranked"]]), steps)
if len(iv) > steps:  # what came after the steps (the exit), not ranked
    sys.stderr.write("after the steps: %r\n" % iv[-1])
    want("intervals", len(iv), steps + 1)
    want("after the steps", (iv[-1]["ranked"], iv[-1]["faults"] < per, iv[-1]["stacks"]), (False, True, [0, 0, 0]))
    iv = iv[:steps]
want("ranked stacks shown", len(rk), 3)
names = [g["stack"][0]["sym"].split("+")[0] for g in rk]
want("ranking", names, ["rise_touch", "fall_touch", "steady_touch"])
want("rising", [g["rising"] for g in rk], [True, False, False])
key = {"rise_touch": "rise_", "fall_touch": "fall_", "steady_touch": "steady_"}
for g in rk:
    n = g["stack"][0]["sym"].split("+")[0]
    if n not in key:
        continue
    series = [int(truth["%s%d" % (key[n], i)]) for i in range(1, steps + 1)]
    want(n + " faults", g["faults"], sum(series))
    want(n + " first/last", (g["first"], g["last"]), (series[0], series[-1]))
    want(n + " rise", g["rise"], series[-1] - series[0])
    want(n + " highest", g["highest"], max(series))
    want(n + " intervals", g["intervals"], steps)
want("rise_touch rises/falls", (rk[0]["rises"], rk[0]["falls"]) if rk else None, (steps - 1, 0))
want("fall_touch rises/falls", (rk[1]["rises"], rk[1]["falls"]) if len(rk) > 1 else None,
     (0, steps - 1))
for k, o in enumerate(iv):
    i = k + 1
    exp = [int(truth["%s%d" % (p, i)]) for p in ("rise_", "fall_", "steady_")]
    want("interval %d stacks" % i, o["stacks"], exp)
    want("interval %d faults" % i, o["faults"], per)
    want("interval %d ranked" % i, o["ranked"], True)
    want("interval %d index" % i, o["index"], k)
if errs:
    sys.exit("\n".join(errs))
PY
}

go_fifo fs
# 1. Live.
spawn_at_fifo fs "$FS" --go "$fifo" --steps "$STEPS"
pid=$spawned
run_fl_go "$fifo" faults --interval-faults "$PER" -n 3 --json -p "$pid"
expect_eq "$rc" 0 "live faults --interval-faults status"
wait_exit "$pid" "fault-steps (live)"
expect_eq "$rc" 0 "fault-steps status (live)"
expect_json_lines "$T/out"
expect_eq "$(sed -n 's/^step_faults=//p' "$T/fs.out")" "$PER" "target's faults per step"
check "$T/out" "$T/fs.out" "live"

# 1b. Live on the software-event rung (page-faults with the address).
spawn_at_fifo fs "$FS" --go "$fifo" --steps "$STEPS"
pid=$spawned
FAULTLINE_MASK='exceptions:page_fault_user' run_fl_go "$fifo" faults --interval-faults "$PER" -n 3 --json -p "$pid"
expect_eq "$rc" 0 "live faults --interval-faults (software rung) status"
expect_line 'falling back to software events page-faults' "$T/err"
wait_exit "$pid" "fault-steps (software rung)"
check "$T/out" "$T/fs.out" "live, software rung"

# 2. Recorded, then reported: the same, and the text.
spawn_at_fifo fs "$FS" --go "$fifo" --steps "$STEPS"
pid=$spawned
run_fl_go "$fifo" record -e faults -o "$T/f.rec" -p "$pid"
expect_eq "$rc" 0 "record -e faults status"
wait_exit "$pid" "fault-steps (record)"
expect_eq "$rc" 0 "fault-steps status (record)"
run_fl report -i "$T/f.rec" faults --interval-faults "$PER" -n 3 --json
expect_eq "$rc" 0 "report faults --interval-faults status"
expect_json_lines "$T/out"
check "$T/out" "$T/fs.out" "report"
run_fl report -i "$T/f.rec" faults --interval-faults "$PER" -n 3
expect_eq "$rc" 0 "report faults --interval-faults text status"
expect_line '^FAULTS OVER TIME$' "$T/out"
expect_line "^ +$STEPS +[0-9.]+ +$PER +24 +8 +10\$" "$T/out"
expect_eq "$(grep -A 3 '^#1 ' "$T/out" | sed -E 's/\[[0-9]+\]/[PID]/')" "#1 rising: +20 faults per interval over 6 intervals (rose in 5, fell in 0)
    first, last: 4, 24
    most:        24 in interval 6
    faults:      84 in all, fault-steps [PID], from" "#1's words and figures"
expect_line '^  rise_touch\+0x[0-9a-f]+ \[fault-steps\]$' "$T/out"
expect_line '^#3 not rising: \+0 faults per interval' "$T/out"

# 3. By time: however the run falls into intervals, they add up to every
# fault of the process, each stack's share to its total (the touchers':
# the pages they wrote); the last one is ranked when it is whole (the run
# went on past it, without a fault), not when the run ended inside it (it
# ends with the run, off the 0.0002 s grid).
run_fl report -i "$T/f.rec" faults --interval 0.0002 -n 100 --json
expect_eq "$rc" 0 "report faults --interval status"
python3 - "$T/out" "$T/fs.out" <<'PY' || fail "faults --interval: intervals disagree with the totals"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
truth = dict(l.strip().split("=", 1) for l in open(sys.argv[2]) if "=" in l)
iv = [o for o in objs if o["type"] == "faults_interval"]
rk = [o for o in objs if o["type"] == "faults_rise"]
procs = [o for o in objs if o["type"] == "process"]
assert iv and rk and procs, "no intervals, ranking or process"
assert sum(o["faults"] for o in iv) == sum(p["faults"] for p in procs), [o["faults"] for o in iv]
steps = int(truth["steps"])
for g in rk:
    n = g["stack"][0]["sym"].split("+")[0]
    for name, key in (("rise_touch", "rise_"), ("fall_touch", "fall_"), ("steady_touch", "steady_")):
        if n == name:
            assert g["faults"] == sum(int(truth["%s%d" % (key, i)]) for i in range(1, steps + 1)), g
for j, g in enumerate(rk):
    assert sum(o["stacks"][j] for o in iv) == g["faults"], g
for o in iv:
    assert sum(o["stacks"]) == o["faults"], o
assert [o["index"] for o in iv] == list(range(len(iv)))
last = iv[-1]["end_s"] / 0.0002
assert [o["ranked"] for o in iv] == [True] * (len(iv) - 1) + [len(iv) == 1 or abs(last - round(last)) < 1e-6], iv
PY

# 4. Bad combinations: usage errors.
run_fl faults --interval 1 --interval-faults 4 -c true
expect_eq "$rc" 2 "--interval with --interval-faults: usage error"
run_fl faults --interval-faults 4 --major -c true
expect_eq "$rc" 2 "--interval-faults with --major: usage error"
run_fl faults -n 3 -c true
expect_eq "$rc" 2 "-n without an interval: usage error"
run_fl faults --interval-faults 0 -c true
expect_eq "$rc" 2 "--interval-faults 0: usage error"
pass_or_fail
