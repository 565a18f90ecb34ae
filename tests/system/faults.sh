#!/bin/sh
# faultline faults against fault-target, whose page touches are known
# exactly: each toucher's stack takes exactly its touched pages minus those
# the allocator had already faulted in (fault-target measures both), the
# forked child's copy-on-write writes show under the child's pid, the file
# read shows as a major fault; on both rungs (tracepoint, software event),
# with --major/--minor, --folded, and the per-process totals; ffaults
# names the file, on both of its rungs.
. "$top_srcdir/tests/system/lib.sh"
need_root
FT=$(target fault-target)

# check JSONFILE OUTFILE RUNG: per toucher, the stack whose innermost frame
# is the toucher has exactly touched_pages - before_touch faults.
check() {
	python3 - "$@" <<'PY' || fail "faults check: $*"
import json, re, sys
path, out, rung = sys.argv[1:4]
touched, resident, truth = {}, {}, {}
for l in open(out):
    l = l.strip()
    m = re.match(r"site fn=(\w+) kind=\w+ bytes=\d+ touched_pages=(\d+)$", l)
    if m: touched[m.group(1)] = int(m.group(2))
    m = re.match(r"resident fn=(\w+) before_touch=(\d+)$", l)
    if m: resident[m.group(1)] = int(m.group(2))
    m = re.match(r"(\w+)=(\d+)$", l)
    if m: truth[m.group(1)] = int(m.group(2))
toucher = {"alloc_heap": "touch_heap", "alloc_big": "touch_big", "alloc_zeroed": "touch_zeroed",
           "map_anon": "touch_anon", "fork_buffer": "touch_fork"}
stacks, procs = [], {}
for l in open(path):
    if l.startswith("{"):
        o = json.loads(l)
        if o["type"] == "stack":
            o["names"] = [f["sym"].split("+")[0] for f in o["stack"]]
            stacks.append(o)
        elif o["type"] == "process":
            procs[o["pid"]] = o
        elif o["type"] == "summary" and o["lost"]:
            sys.exit("lost %d events" % o["lost"])
errs = []
def faults_of(fn, pid):
    return sum(s["faults"] for s in stacks if s["pid"] == pid and s["names"] and s["names"][0] == fn)
pid, child = truth["pid"], truth["child_pid"]
for site, fn in toucher.items():
    want = touched[site] - resident[site]
    got = faults_of(fn, pid)
    if got != want:
        errs.append("%s: %d faults, want %d (%d touched, %d resident)" % (fn, got, want, touched[site], resident[site]))
if faults_of("touch_small", pid) != touched["alloc_small"] - resident["alloc_small"]:
    errs.append("touch_small: %d faults" % faults_of("touch_small", pid))
got = faults_of("child_write", child)
if got != 64:
    errs.append("child_write (copy-on-write in pid %d): %d faults, want 64" % (child, got))
# The file was evicted: its read faults, at least once, are major (the
# kernel maps the 16 pages around one fault, so count pages elsewhere).
rf = [s for s in stacks if s["pid"] == pid and s["names"] and s["names"][0] == "read_file"]
if not rf or sum(s["major"] for s in rf) < 1:
    errs.append("read_file: no major fault: %s" % rf)
if rung == "tracepoint" and procs.get(child, {}).get("faults", 0) < 64:
    errs.append("child process total below 64")
# Per-process totals agree with the stacks.
for p, o in procs.items():
    total = sum(s["faults"] for s in stacks if s["pid"] == p)
    if total != o["faults"]:
        errs.append("pid %d: process total %d != sum of stacks %d" % (p, o["faults"], total))
if errs:
    sys.exit("; ".join(errs))
PY
}

# 1. The tracepoint rung, DWARF stacks.
run_fl faults --json -c "$FT"
expect_eq "$rc" 0 "faults status"
check "$T/out" "$T/out" tracepoint
expect_line '^Executing .* with tracepoint exceptions:page_fault_user' "$T/err"

# 2. The software-event rung, forced.
FAULTLINE_MASK='exceptions:page_fault_user' run_fl faults --json -c "$FT"
expect_eq "$rc" 0 "faults software rung status"
check "$T/out" "$T/out" software
expect_line 'falling back to software events page-faults' "$T/err"

# 3. --major: only the file read remains.
run_fl faults --json --major -c "$FT"
expect_eq "$rc" 0 "faults --major status"
python3 - "$T/out" <<'PY' || fail "--major: a stack other than read_file"
import json, sys
names = [json.loads(l)["stack"][0]["sym"].split("+")[0] for l in open(sys.argv[1])
         if l.startswith('{"type":"stack"')]
if not names or any(n != "read_file" for n in names):
    sys.exit("stacks: %s" % names)
PY

# 4. Text and folded output.
run_fl faults -c "$FT"
expect_eq "$rc" 0 "faults text status"
expect_line '^  touch_big\+0x[0-9a-f]+ \[fault-target\]$' "$T/out"
expect_line '^    99 \(minor 99, major 0\)$' "$T/out"
expect_line '^PID +COMM +FAULTS +MINOR +MAJOR$' "$T/out"
run_fl faults --folded -c "$FT"
expect_line '^fault-target;.*main;run_fault_scenario;touch_anon 32$' "$T/out"

# 5. ffaults: the file the target maps and reads after evicting it shows
# by name with a major fault, on both rungs; so does its own executable.
for mask in "" "filemap:*"; do
	FAULTLINE_MASK=$mask run_fl ffaults --json -c "$FT"
	expect_eq "$rc" 0 "ffaults (mask '$mask') status"
	file=$(sed -n 's/^file=//p' "$T/out")
	python3 - "$T/out" "$file" "$FT" <<'PY' || fail "ffaults (mask '$mask')"
import json, sys
path, file, exe = sys.argv[1:4]
files = {}
for l in open(path):
    if l.startswith('{"type":"file"'):
        o = json.loads(l)
        files[o["path"]] = o
f = files.get(file)
if not f or f["faults"] < 1 or f["major"] < 1:
    sys.exit("%s: %s (files: %s)" % (file, f, sorted(files)))
if exe not in files:
    sys.exit("the executable %s is missing: %s" % (exe, sorted(files)))
PY
done

# 6. Usage.
run_fl faults --minor --major -c "$FT"
expect_eq "$rc" 2 "--minor --major: usage error"

pass_or_fail
