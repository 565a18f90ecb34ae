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

# by_alloc JSONFILE OUTFILE RUNG: --by-alloc.  Per site (its allocation
# stack's innermost frame is the site function): faults outside the
# allocator = touched_pages - before_touch exactly (the toucher's faults);
# all faults = the site's touched pages that no earlier site's blocks
# share (the allocator faults the rest, inside the call: headers, top
# chunk); requested bytes, allocations and class as made; the forked
# child's copy-on-write writes on its copy of fork_buffer's block; every
# fault counted once, in an allocation or a region; the file's major
# fault in the file region with its path.
by_alloc() {
	python3 - "$@" <<'PY' || fail "faults --by-alloc check: $*"
import json, re, sys
path, out, rung = sys.argv[1:4]
sites, resident, truth, addrs = {}, {}, {}, {}
for l in open(out):
    l = l.strip()
    m = re.match(r"site fn=(\w+) kind=(\w+) bytes=(\d+) touched_pages=(\d+)$", l)
    if m: sites[m.group(1)] = (m.group(2), int(m.group(3)), int(m.group(4)))
    m = re.match(r"resident fn=(\w+) before_touch=(\d+)$", l)
    if m: resident[m.group(1)] = int(m.group(2))
    m = re.match(r"addr fn=(\w+) start=(0x[0-9a-f]+) end=(0x[0-9a-f]+)$", l)
    if m: addrs.setdefault(m.group(1), []).append((int(m.group(2), 16), int(m.group(3), 16)))
    m = re.match(r"(\w+)=(\S+)$", l)
    if m: truth[m.group(1)] = m.group(2)
pid, child = int(truth["pid"]), int(truth["child_pid"])
got, regions, summary = {}, [], None
for l in open(path):
    if not l.startswith("{"): continue
    o = json.loads(l)
    if o["type"] == "site":
        fn = o["stack"][0]["sym"].split("+")[0] if o["stack"] else "?"
        if fn == "mmap" and len(o["stack"]) > 1:   # libc's mmap wrapper: its caller
            fn = o["stack"][1]["sym"].split("+")[0]
        got[(o["pid"], fn)] = o
    elif o["type"] == "region":
        regions.append(o)
    elif o["type"] == "by_alloc_summary":
        summary = o
    elif o["type"] == "summary" and o["lost"]:
        sys.exit("lost %d events" % o["lost"])
def pages(ranges):
    return {p for s, e in ranges for p in range(s >> 12, ((e - 1) >> 12) + 1)}
classes = {"small": "small", "heap": "heap", "mmap": "mmap", "zeroed": "mmap,zeroed", "anon": "anon"}
errs, seen = [], set()
order = ["alloc_small", "alloc_heap", "alloc_big", "alloc_zeroed", "map_anon", "map_file", "fork_buffer"]
for fn in order:
    kind, nbytes, touched = sites[fn]
    mine = pages(addrs[fn])
    if kind == "file":
        seen |= mine
        continue
    # Touched pages of this site no earlier site's blocks share.
    touched_own = touched - len(mine & seen)
    seen |= mine
    o = got.get((pid, fn))
    if not o:
        errs.append("%s: no site" % fn); continue
    want = {"faults": touched_own, "toucher": touched - resident[fn], "bytes": nbytes,
            "class": classes[kind], "allocations": len(addrs[fn]), "major": 0}
    have = {"faults": o["faults"], "toucher": o["faults"] - o["in_allocator"], "bytes": o["bytes"],
            "class": o["class"], "allocations": o["allocations"], "major": o["major"]}
    if rung == "tracepoint":
        want["first_touch"], have["first_touch"] = touched_own, o["first_touch"]
        want["cow"], have["cow"] = 0, o["cow"]
    elif "first_touch" in o:
        errs.append("%s: fault kinds on the software rung" % fn)
    if want != have:
        errs.append("%s: %s, want %s" % (fn, have, want))
c = got.get((child, "fork_buffer"))
want = {"faults": 64, "pages": 64, "allocations": 0, "class": "mmap"}
have = {k: c[k] for k in want} if c else None
if rung == "tracepoint" and c:
    want["cow"], have["cow"] = 64, c["cow"]
if have != want:
    errs.append("child fork_buffer copy-on-write: %s, want %s" % (have, want))
f = [r for r in regions if r["pid"] == pid and r["region"] == "file" and r["path"] == truth["file"]]
if not f or f[0]["major"] < 1:
    errs.append("the read file's region: %s" % f)
if not summary or summary["faults"] != summary["to_allocations"] + summary["to_regions"] or summary["waiting"]:
    errs.append("summary: %s" % summary)
elif summary["to_allocations"] != sum(o["faults"] for o in got.values()):
    errs.append("sites' faults do not add up to the summary's: %s" % summary)
elif summary["to_regions"] != sum(r["faults"] for r in regions):
    errs.append("regions' faults do not add up to the summary's: %s" % summary)
if errs:
    sys.exit("; ".join(errs))
PY
}

# 6. --by-alloc on both rungs; text and folded.
run_fl faults --by-alloc --json -c "$FT"
expect_eq "$rc" 0 "faults --by-alloc status"
by_alloc "$T/out" "$T/out" tracepoint
FAULTLINE_MASK='exceptions:page_fault_user' run_fl faults --by-alloc --json -c "$FT"
expect_eq "$rc" 0 "faults --by-alloc software rung status"
by_alloc "$T/out" "$T/out" software
run_fl faults --by-alloc -c "$FT"
expect_eq "$rc" 0 "faults --by-alloc text status"
expect_line '^  alloc_big\+0x[0-9a-f]+ \[fault-target\]$' "$T/out"
expect_line '^    fault-target \[[0-9]+\]  mmap, 1 allocation, 8388608 bytes$' "$T/out"
expect_line '^    100 faults, 100 pages \(minor 100, major 0; first touch 100, copy-on-write 0; 1 inside the allocator\)$' "$T/out"
expect_line '^    fault-target \[[0-9]+\]  mmap, made in the parent before fork$' "$T/out"
expect_line '^PID +COMM +REGION +FAULTS +PAGES +MAJOR +FIRST +COW +PATH$' "$T/out"
expect_line '^[0-9]+ faults: [0-9]+ in allocations \([0-9]+ inside the allocator\), [0-9]+ in regions of the maps$' "$T/out"
run_fl faults --by-alloc --folded -c "$FT"
expect_line '^fault-target;.*main;run_fault_scenario;alloc_zeroed 65$' "$T/out"

# 7. Usage.
run_fl faults --minor --major -c "$FT"
expect_eq "$rc" 2 "--minor --major: usage error"
run_fl faults --by-alloc -a 1
expect_eq "$rc" 2 "--by-alloc without a process: usage error"
expect_line 'give -p PID or -c CMD' "$T/err"
run_fl faults -O libc.so.6 -c "$FT"
expect_eq "$rc" 2 "-O without --by-alloc: usage error"

pass_or_fail
