#!/bin/sh
# faultline shm against shm-target, which makes a known sequence of shmget,
# shmat, shmdt and shmctl calls from named functions (one failing with
# ENOENT) and prints each call's ground truth: every call must appear once,
# in order, with its exact return and arguments, from the right function
# (-g), on the tracepoint rung and on the libc uprobe rung, live and from a
# recording; strace -f is a second truth for the calls and their returns.
. "$top_srcdir/tests/system/lib.sh"
need_root
ST=$(target shm-target)

# check_calls OUTFILE RUNG [STACKS]: the JSON calls of the target's pid are
# its truth lines, one to one and in order; RUNG uprobe: a failed call
# returns libc's -1; STACKS: libc's wrapper then the named function.
check_calls() {
	python3 - "$@" <<'PY' || fail "call check ($2 ${3:-})"
import json, sys
path, rung = sys.argv[1], sys.argv[2]
stacks = len(sys.argv) > 3
truth, recs, summary, pid, ncalls = [], [], None, None, None
for line in open(path):
    line = line.rstrip("\n")
    if line.startswith("{"):
        o = json.loads(line)
        if o["type"] == "call":
            recs.append(o)
        elif o["type"] == "summary":
            summary = o
    elif line.startswith("shm "):
        truth.append(dict(kv.split("=", 1) for kv in line[4:].split()))
    elif line.startswith("pid="):
        pid = int(line[4:])
    elif line.startswith("calls="):
        ncalls = int(line[6:])
errs = []
mine = [r for r in recs if r["pid"] == pid]
if ncalls is None or len(truth) != ncalls or ncalls < 8:
    errs.append("target printed %s truth lines, says calls=%s" % (len(truth), ncalls))
if len(mine) != len(truth):
    errs.append("%d records for pid %s, truth has %d calls" % (len(mine), pid, len(truth)))
names = {"SHMGET": ("key", "size", "shmflg"), "SHMAT": ("shmid", "shmaddr", "shmflg"),
         "SHMDT": ("shmaddr",), "SHMCTL": ("shmid", "cmd", "buf")}
for i, (t, r) in enumerate(zip(truth, mine)):
    want_ret = int(t["ret"])
    if rung == "uprobe" and want_ret < 0:
        want_ret = -1
    if r["sys"] != t["sys"] or r["ret"] != want_ret:
        errs.append("call %d: %s ret %s, want %s ret %s" % (i, r["sys"], r["ret"], t["sys"], want_ret))
        continue
    for k, a in zip(names[t["sys"]], ("a0", "a1", "a2")):
        if r[k] != int(t[a], 16):
            errs.append("call %d %s: %s %#x, want %s" % (i, t["sys"], k, r[k], t[a]))
    if stacks:
        fr = [f["sym"].split("+")[0].split(" ")[0] for f in r.get("stack", [])]
        if len(fr) < 2 or fr[0] != t["sys"].lower() or fr[1] != t["fn"]:
            errs.append("call %d stack %s, want %s then %s" % (i, fr[:3], t["sys"].lower(), t["fn"]))
failed = len([t for t in truth if int(t["ret"]) < 0])
if summary is None:
    errs.append("no summary")
elif (summary["calls"], summary["failed"], summary["lost"], summary["unpaired"]) != (len(truth), failed, 0, 0):
    errs.append("summary %s, want %d calls, %d failed, none lost or unpaired" % (summary, len(truth), failed))
if errs:
    sys.exit("\n".join(errs))
PY
}

# 1. The tracepoint rung, with stacks (DWARF walks through libc's wrapper).
run_fl shm --json -g -c "$ST"
expect_eq "$rc" 0 "shm status"
grep '^{' "$T/out" >"$T/json"
expect_json_lines "$T/json"
check_calls "$T/out" tracepoint stacks

# 2. strace -f as a second truth: the same calls, in the same order, with
#    the same returns (strace prints -1 and the errno name for a failure).
run_fl shm --json -- strace -f -qq -e trace=shmget,shmat,shmdt,shmctl -o "$T/strace" "$ST" --rounds 5
expect_eq "$rc" 0 "shm under strace status"
python3 - "$T/out" "$T/strace" <<'PY' || fail "strace comparison"
import json, re, sys
out, st = sys.argv[1], sys.argv[2]
pid = int([l for l in open(out) if l.startswith("pid=")][0][4:])
mine = [(o["sys"], o["ret"]) for o in (json.loads(l) for l in open(out) if l.startswith("{"))
        if o["type"] == "call" and o["pid"] == pid]
seen = []
for l in open(st):
    m = re.match(r"(\d+) +(shm\w+)\(.*\) += (-?\w+)( (E\w+))?", l)
    if not m or int(m.group(1)) != pid:
        continue
    ret = m.group(3)
    ret = int(ret, 16) if ret.startswith("0x") else int(ret)
    if ret == -1 and m.group(5) == "ENOENT":
        ret = -2
    seen.append((m.group(2).upper(), ret))
if len(seen) < 36 or seen != mine:
    sys.exit("strace saw %d calls, faultline %d:\n%s\n%s" % (len(seen), len(mine), seen, mine))
PY

# 3. The uprobe rung: libc's wrappers, entry and return.
FAULTLINE_MASK='syscalls:*' run_fl shm --json -g -c "$ST"
expect_eq "$rc" 0 "shm uprobe rung status"
expect_line "falling back to uprobes\+uretprobes libc shmget/shmat/shmdt/shmctl" "$T/err"
check_calls "$T/out" uprobe stacks

# 4. Text: shmsnoop's columns, RET in hex, the flags named.
run_fl shm -c "$ST --rounds 1"
expect_eq "$rc" 0 "shm text status"
pid=$(sed -n 's/^pid=//p' "$T/out")
expect_line "^PID +COMM +SYS +RET ARGs$" "$T/out"
expect_line "^$pid +shm-target +SHMGET +[0-9a-f]+ key: 0x5f1e[0-9a-f]{4}, size: 12288, shmflg: 0x780 \(IPC_CREAT\|IPC_EXCL\|0600\)$" "$T/out"
expect_line "^$pid +shm-target +SHMAT +[0-9a-f]{9,} shmid: 0x[0-9a-f]+, shmaddr: 0x0, shmflg: 0x1000 \(SHM_RDONLY\)$" "$T/out"
expect_line "^$pid +shm-target +SHMDT +0 shmaddr: 0x[0-9a-f]{9,}$" "$T/out"
expect_line "^$pid +shm-target +SHMCTL +0 shmid: 0x[0-9a-f]+, cmd: 0, buf: 0x0$" "$T/out"
expect_line "^$pid +shm-target +SHMGET +fffffffffffffffe key: 0x5f1e[0-9a-f]{3}f, size: 4096, shmflg: 0x180 \(0600\)$" "$T/out"
expect_line "^shm summary:$" "$T/err"
expect_line "^  calls: +8 \(shmget 2, shmat 2, shmdt 2, shmctl 2\)$" "$T/err"
expect_line "^  failed: +1$" "$T/err"
expect_line "^  unpaired: +0 returns without their entry$" "$T/err"
expect_line "^  lost events: +0$" "$T/err"

# 5. -t TID (the first column is then the TID) and -T, on a running
#    process; -n NAME that matches nothing shows nothing.
go_fifo shm
spawn_at_fifo shm "$ST" --go "$fifo"
run_fl_go "$fifo" shm -T -p "$spawned" -t "$spawned" -n shm-tar
wait_exit "$spawned" "shm-target"
expect_eq "$rc" 0 "shm -t status"
expect_line "^TIME\(s\) +TID +COMM +SYS +RET ARGs$" "$T/out"
expect_eq "$(grep -Ec "^[0-9]+\.[0-9]{9} +$spawned +shm-target +SHM" "$T/out")" 22 "-t calls"
run_fl shm -n nomatch -c "$ST"
expect_eq "$(grep -Ec "^[0-9]+ +shm-target" "$T/out")" 0 "-n nomatch calls"
expect_line "^  calls: +0 \(shmget 0, shmat 0, shmdt 0, shmctl 0\)$" "$T/err"

# 6. Record, then report: the same calls from the recording.
run_fl record -e shm -o "$T/shm.rec" -c "$ST"
expect_eq "$rc" 0 "record -e shm status"
cp "$T/out" "$T/rec-truth"
run_fl report -i "$T/shm.rec" shm --json -g
expect_eq "$rc" 0 "report shm status"
cat "$T/rec-truth" >>"$T/out"
check_calls "$T/out" tracepoint stacks
pass_or_fail
