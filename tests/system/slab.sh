#!/bin/sh
# faultline slab against slab-target, which creates and stats N files in a
# directory of the test's: each file takes one dentry and one inode of the
# filesystem's inode cache (the stats find both cached), so the target's
# allocations into those caches are N, within 1% (the kernel may allocate
# a few more for its own lookups, never fewer); with -C dentry -g, those
# allocations come from the open path's lookup (d_alloc_parallel ->
# __d_alloc under path_openat).  Also: slabtop's columns against
# /proc/slabinfo, the /proc/slabinfo rung, and a recording.
. "$top_srcdir/tests/system/lib.sh"
need_root
[ -r /proc/slabinfo ] || skip "no readable /proc/slabinfo"
ST=$(target slab-target)
D=$T/files
case $(stat -f -c %T "$T") in
ext2/ext3) icache=ext4_inode_cache ;;
tmpfs) icache=shmem_inode_cache ;;
xfs) icache=xfs_inode ;;
*) icache= ;;
esac

# check_total OUTFILE CACHE N: the run's allocations into CACHE are N to N+1%.
check_total() {
	python3 - "$@" <<'PY' || fail "allocations into $2"
import json, sys
path, cache, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
tot, summary = None, None
for line in open(path):
    if not line.startswith("{"):
        continue
    o = json.loads(line)
    if o["type"] == "cache" and o["name"] == cache:
        tot = o["total_allocs"]
    elif o["type"] == "summary":
        summary = o
if summary is None or summary["lost"] != 0:
    sys.exit("summary %s: want one, nothing lost" % summary)
if tot is None or not n <= tot <= n + n // 100:
    sys.exit("%s: %s allocations, want %d to %d" % (cache, tot, n, n + n // 100))
PY
}

# 1. 100,000 files: the dentry and inode allocations of that process.
mkdir "$D"
run_fl slab --json -C "dentry${icache:+,$icache}" -c "$ST $D"
expect_eq "$rc" 0 "slab status"
grep '^{' "$T/out" >"$T/json"
expect_json_lines "$T/json"
expect_line '^files=100000$' "$T/out"
check_total "$T/out" dentry 100000
[ -n "$icache" ] && check_total "$T/out" "$icache" 100000
rm -rf "$D"

# 2. -C dentry -g: the allocating stacks, d_alloc under the path lookup.
mkdir "$D"
run_fl slab -C dentry -g -c "$ST $D --files 2000"
expect_eq "$rc" 0 "slab -g status"
python3 - "$T/out" <<'PY' || fail "dentry stacks"
import re, sys
text = open(sys.argv[1]).read()
part = text.split("Kernel stacks allocating from dentry:\n", 1)
if len(part) != 2:
    sys.exit("no stack section")
best = 0
for block in part[1].strip().split("\n\n"):
    lines = block.split("\n")
    frames = [l.strip().split("+")[0] for l in lines[:-1]]
    count = int(lines[-1])
    if any(re.fullmatch(r"_*d_alloc", f) for f in frames) and \
       any(f in ("path_openat", "lookup_open", "d_alloc_parallel") for f in frames):
        best = max(best, count)
if not 2000 <= best <= 2020:
    sys.exit("the lookup stack of d_alloc has %d allocations, want 2000 to 2020" % best)
PY
rm -rf "$D"

# 3. The whole system: slabtop's columns, the caches as /proc/slabinfo
#    lists them (objects per slab and object size cannot change), sorted.
run_fl slab -r 0 -s objects 1 1
expect_eq "$rc" 0 "slab system status"
expect_line '^[0-9:]{8}  SReclaimable: [0-9]+ kB  SUnreclaim: [0-9]+ kB  allocs: [0-9]+  frees: [0-9]+' "$T/out"
expect_line '^  OBJS ACTIVE  USE OBJ SIZE  SLABS OBJ/SLAB CACHE SIZE   ALLOCS    FREES NAME$' "$T/out"
python3 - "$T/out" <<'PY' || fail "rows against /proc/slabinfo"
import re, sys
info = {}
for l in open("/proc/slabinfo"):
    w = l.split()
    if len(w) > 5 and not l.startswith(("#", "slabinfo")):
        info[w[0]] = (int(w[3]), int(w[4]))
rows = []
for l in open(sys.argv[1]):
    m = re.match(r" *(\d+) +(\d+) +\d+% +([\d.]+)K +(\d+) +(\d+) +(\d+)K +(\d+) +(\d+) (\S+)$", l)
    if m:
        rows.append(m)
if len(rows) < len(info) * 9 // 10:
    sys.exit("%d rows, /proc/slabinfo has %d caches" % (len(rows), len(info)))
objs = [int(m.group(1)) for m in rows]
if objs != sorted(objs, reverse=True):
    sys.exit("-s objects: not sorted by objects")
for m in rows:
    name = m.group(9)
    if name in info and (int(m.group(5)), round(info[name][0] / 1024, 2)) != (info[name][1], float(m.group(3))):
        sys.exit("%s: objsize/objperslab %s/%s, slabinfo %s" % (name, m.group(3), m.group(5), info[name]))
PY

# 4. The /proc/slabinfo rung: active objects' change, no events.
FAULTLINE_MASK='kmem:*' run_fl slab -C dentry 1 1
expect_eq "$rc" 0 "slabinfo rung status"
expect_line 'falling back to /proc/slabinfo \(system-wide\)' "$T/err"
expect_line '^  OBJS ACTIVE  USE OBJ SIZE  SLABS OBJ/SLAB CACHE SIZE    ACTIVE\+ NAME$' "$T/out"
expect_line '^ *[0-9]+ +[0-9]+ +[0-9]+% +[0-9.]+K +[0-9]+ +[0-9]+ +[0-9]+K +[-+][0-9]+ dentry$' "$T/out"

# 5. A recording: the same allocations, and stacks, from the file.
mkdir "$D"
run_fl record -e slab -o "$T/slab.rec" -c "$ST $D --files 2000"
expect_eq "$rc" 0 "record -e slab status"
run_fl report -i "$T/slab.rec" slab --json -C dentry
expect_eq "$rc" 0 "report slab status"
check_total "$T/out" dentry 2000
rm -rf "$D"

# 6. Bad command lines.
run_fl slab -g
expect_eq "$rc" 2 "-g without -C"
expect_line '^faultline slab: -g needs -C CACHE' "$T/err"
run_fl slab -s size
expect_eq "$rc" 2 "-s size"
pass_or_fail
