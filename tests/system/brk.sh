#!/bin/sh
# faultline brk against brk-target, whose brk(2) calls are known exactly:
# counts per stack, the requested breaks, the final break, the functions
# in the stack, in -c and -p modes, with threads born after attaching, on
# both rungs of the ladder (tracepoint, and libc uprobes), and the -T,
# --folded and --json outputs.
. "$top_srcdir/tests/system/lib.sh"
need_root
BT=$(target brk-target)

truth() { sed -n "s/^$1=//p" "$2" | head -n 1; }

# check_stack JSONFILE PID COUNT REQMIN REQMAX FRAME...: exactly one stack
# object of PID begins with these frames (function names), with that count
# and requested range.
check_stack() {
	python3 - "$@" <<'PY' || fail "stack check: $*"
import json, sys
path, pid, count, rmin, rmax = sys.argv[1:6]
frames = sys.argv[6:]
found = []
for line in open(path):
    line = line.strip()
    if not line.startswith("{"):
        continue
    o = json.loads(line)
    if o.get("type") != "stack" or o["pid"] != int(pid):
        continue
    names = [f["sym"].split("+")[0].split(" ")[0] for f in o["stack"]]
    if names[:len(frames)] == frames:
        found.append(o)
if len(found) != 1:
    sys.exit("want one stack %s of pid %s, found %d" % (frames, pid, len(found)))
o = found[0]
errs = []
if o["count"] != int(count):
    errs.append("count %d, want %s" % (o["count"], count))
if rmin != "-" and int(o["requested_min"], 16) != int(rmin, 16):
    errs.append("requested_min %s, want %s" % (o["requested_min"], rmin))
if rmax != "-" and int(o["requested_max"], 16) != int(rmax, 16):
    errs.append("requested_max %s, want %s" % (o["requested_max"], rmax))
if errs:
    sys.exit("; ".join(errs))
PY
}

# check_process JSONFILE PID LAST_BREAK: the process line agrees with the
# stacks (calls = sum of counts) and ends at the target's final break.
check_process() {
	python3 - "$@" <<'PY' || fail "process check: $*"
import json, sys
path, pid, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 16)
procs, total = [], 0
for line in open(path):
    line = line.strip()
    if not line.startswith("{"):
        continue
    o = json.loads(line)
    if o.get("pid") != pid:
        continue
    if o["type"] == "stack":
        total += o["count"]
    elif o["type"] == "process":
        procs.append(o)
if len(procs) != 1:
    sys.exit("want one process line, found %d" % len(procs))
p = procs[0]
if p["calls"] != total:
    sys.exit("calls %d != sum of stack counts %d" % (p["calls"], total))
if int(p["last_break"], 16) != last:
    sys.exit("last_break %s != final_break %#x" % (p["last_break"], last))
PY
}

hex_add() { printf '0x%x' $(($1 + $2)); }

# 1. -c, tracepoint rung, JSON.
run_fl brk --json -c "$BT"
expect_eq "$rc" 0 "brk -c status"
grep '^{' "$T/out" >"$T/out.json"
expect_json_lines "$T/out.json"
pid=$(truth pid "$T/out")
init=$(truth initial_break "$T/out")
final=$(truth final_break "$T/out")
expect_eq "$(truth brk_calls_grow "$T/out")" 7 "target's own count"
check_stack "$T/out" "$pid" 7 "$(hex_add "$init" 65536)" "$final" \
	grow_heap_by_brk run_brk_scenario main
check_stack "$T/out" "$pid" 1 0x0 0x0 query_break
check_process "$T/out" "$pid" "$final"
expect_line '"type":"summary".*"lost":0' "$T/out"
expect_line "tracepoint syscalls:sys_enter_brk" "$T/err"

# 2. Text output of the same run: BCC stackcount layout.
run_fl brk -c "$BT --count 5 --step 8192"
expect_eq "$rc" 0 "brk text status"
pid=$(truth pid "$T/out")
final=$(truth final_break "$T/out")
awk '/^  grow_heap_by_brk\+0x[0-9a-f]+ \[brk-target\]$/ { g = NR }
     g && NR == g + 1 && /^  run_brk_scenario\+0x[0-9a-f]+ \[brk-target\]$/ { r = NR }
     r && NR == r + 1 && /^  main\+0x[0-9a-f]+ \[brk-target\]$/ { ok = 1 }
     END { exit !ok }' "$T/out" || fail "text stack grow_heap_by_brk <- run_brk_scenario <- main missing"
expect_line "^    brk-target \[$pid\]$" "$T/out"
expect_line "^    5 calls, requested break $(hex_add "$(truth initial_break "$T/out")" 8192) \.\. $final$" "$T/out"
expect_line "^$pid +brk-target +[0-9]+ 0x[0-9a-f]+ +$final " "$T/out"
expect_line "^[0-9,]+ samples, lost 0 events, 0 unknown frames of [0-9,]+; stacks: [0-9,]+ complete(, [0-9,]+ no-cfi)?$" "$T/out"

# 3. -p, with threads created after faultline attached (the target
#    starts them once faultline is tracing: --go).
go_fifo bt
spawn_at_fifo bt "$BT" --go "$fifo" --threads 3 --count 4
run_fl_go "$fifo" brk --json -p "$spawned"
expect_eq "$rc" 0 "brk -p status"
wait "$spawned" 2>/dev/null
check_stack "$T/out" "$spawned" 12 - "$(truth final_break "$T/bt.out")" \
	grow_heap_by_brk brk_thread_main
expect_eq "$(truth brk_calls_grow "$T/bt.out")" 12 "target's own count with threads"

# 4. -T: one line per call, as it completes.
run_fl brk -T -c "$BT --count 3"
expect_eq "$rc" 0 "brk -T status"
pid=$(truth pid "$T/out")
n=$(grep -cE "^[0-9]+\.[0-9]{6} +$pid +brk-target +0x[0-9a-f]+ +0x[0-9a-f]+$" "$T/out")
total=$(awk -v p="$pid" '$1 == p && $2 == "brk-target" { print $3 }' "$T/out")
expect_eq "$n" "$total" "-T lines vs the process's brk calls"
grep -q "^brk req=$(sed -n 's/^brk req=\(0x[0-9a-f]*\) .*/\1/p' "$T/out" | tail -n 1) " "$T/out" ||
	fail "no ground truth"
last=$(truth final_break "$T/out")
expect_line "^[0-9.]+ +$pid +brk-target +$last +$last$" "$T/out"

# 5. --folded: FlameGraph input, outermost first.
run_fl brk --folded -c "$BT --count 6"
expect_line "^brk-target;.*main;run_brk_scenario;grow_heap_by_brk 6$" "$T/out"

# 6. The uprobe rung (as on a kernel without syscall tracepoints): only
#    calls through libc's brk are seen: sbrk's priming brk(0) and the 7.
#    DWARF stacks walk through libc (no frame pointers) to the caller.
FAULTLINE_MASK='syscalls:*' run_fl brk --json -c "$BT --libc"
expect_eq "$rc" 0 "uprobe rung status"
expect_line "falling back to uprobe libc brk" "$T/err"
pid=$(truth pid "$T/out")
init=$(truth initial_break "$T/out")
final=$(truth final_break "$T/out")
check_stack "$T/out" "$pid" 7 "$(hex_add "$init" 65536)" "$final" \
	brk sbrk grow_heap_by_sbrk run_brk_scenario main
check_stack "$T/out" "$pid" 1 0x0 0x0 brk sbrk main
check_process "$T/out" "$pid" "$final"

# 7. The same with frame pointers: the probe fires at brk's first
#    instruction, where the walk would skip brk's caller; faultline reads
#    the return address at the stack pointer and puts sbrk back.  (sbrk
#    itself keeps no frame pointer, so the walk stops there.)
FAULTLINE_MASK='syscalls:*' run_fl brk --json --call-graph fp -c "$BT --libc"
expect_eq "$rc" 0 "uprobe rung, fp: status"
pid=$(truth pid "$T/out")
n=$(python3 - "$T/out" "$pid" <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    if line.startswith("{"):
        o = json.loads(line)
        if o.get("type") == "stack" and o["pid"] == int(sys.argv[2]):
            names = [f["sym"].split("+")[0] for f in o["stack"]]
            if names[:2] == ["brk", "sbrk"]:
                n += o["count"]
print(n)
PY
)
expect_eq "$n" 8 "fp calls whose stack keeps brk's caller sbrk"
pass_or_fail
