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
# is the toucher has exactly touched_pages - before_touch faults
# (faults-check.py stacks, shared with record.sh).
check() {
	python3 "$top_srcdir/tests/system/faults-check.py" stacks "$@" || fail "faults check: $*"
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

# by_alloc JSONFILE OUTFILE RUNG: --by-alloc, every site exact against the
# truth (faults-check.py by-alloc, shared with record.sh).
by_alloc() {
	python3 "$top_srcdir/tests/system/faults-check.py" by-alloc "$@" ||
		fail "faults --by-alloc check: $*"
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
expect_line '^    fault-target \[[0-9]+\]  mmap, 1 allocation, 8,388,608 B \(8\.00 MiB\)$' "$T/out"
expect_line '^    100 faults, 100 pages \(minor 100, major 0; first touch 100, copy-on-write 0; 1 inside the allocator\)$' "$T/out"
expect_line '^    fault-target \[[0-9]+\]  mmap, made in the parent before fork$' "$T/out"
expect_line '^PID +COMM +REGION +FAULTS +PAGES +MAJOR +FIRST +COW +PATH$' "$T/out"
expect_line '^[0-9,]+ faults: [0-9,]+ in allocations \([0-9,]+ inside the allocator\), [0-9,]+ in regions of the maps$' "$T/out"
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
