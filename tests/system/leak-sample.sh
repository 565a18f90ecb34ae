#!/bin/sh
# leak -s N sampled in the kernel (agg/alloc-sample.h): with glibc on the
# tracefs rung and N a power of two, the return and free probes carry a
# filter that keeps every block of 1 KiB or more and the blocks whose
# address bits 7..7+log2(N)-1 are all set, reading the size from glibc's
# chunk header; no entry probe is traced but realloc's.  Checked:
#   - the kernel wrote about 1 in N of the samples (the session's counts,
#     -s 64 against the same run unsampled), and the estimate of 10,000
#     blocks of 32 bytes (usable size 40) is within its error;
#   - the allocator's own mmaps for blocks above its threshold are not the
#     program's regions (no entry event says a call is in flight: the
#     return probe's trampoline on the syscall's stack does), with DWARF
#     and frame-pointer stacks; the program's own mmaps are counted as
#     unsampled;
#   - record -e leak -s 64, read back by report leak and report heap at
#     that rate, refused by the other tools; heap --sample-rate 64;
#   - where it cannot be done in the kernel, it is done here and said so:
#     N not a power of two, the uprobe PMU rung, jemalloc (no header).
. "$top_srcdir/tests/system/lib.sh"
need_root
LT=$(target leak-target)
MT=$(target mmap-target)

# field FILE TYPE KEY: KEY of the first JSON object of type TYPE.
field() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o.get("type") == sys.argv[2]:
            v = o
            for k in sys.argv[3].split("."):
                v = v[k]
            print(str(v).lower() if isinstance(v, bool) else v)
            sys.exit(0)
sys.exit("no %s object with %s" % (sys.argv[2], sys.argv[3]))
' "$@" || fail "no $2 $3 in $1"
}

# 1. 10,000 blocks of 32 bytes, kept: sampled in the kernel, about 1 in
# 64 of the return samples written.  glibc's 48-byte chunks put bits 7-12
# of successive addresses through every value (3 chunks in 8 step to the
# next), so the estimate is off by a few blocks of 64: +-5% is wide.
run_fl leak --json -c "$LT many"
expect_eq "$rc" 0 "leak many status"
full=$(field "$T/out" summary samples)
run_fl leak --json -s 64 -c "$LT many"
expect_eq "$rc" 0 "leak -s 64 many status"
expect_eq "$(field "$T/out" leak_summary sampled_in_kernel)" true "sampled in the kernel"
sampled=$(field "$T/out" summary samples)
events=$(field "$T/out" leak_summary sampled_events)
echo "samples: $full unsampled, $sampled with -s 64 ($events return and free samples)"
[ "$full" -ge 20000 ] || fail "the unsampled run wrote $full samples, want 20,000 and more"
[ "$events" -ge 100 ] && [ "$events" -le 400 ] ||
	fail "-s 64: $events return and free samples of 10,000 blocks, want about 156"
[ $((sampled * 32)) -le "$full" ] || fail "-s 64 wrote $sampled samples of $full: not filtered in the kernel"
python3 - "$T/out" <<'PY' || fail "-s 64 estimate"
import json, sys
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o.get("type") == "stack" and o["stack"] and o["stack"][0]["sym"].startswith("leak_many+"):
            if not (9500 <= o["allocations"] <= 10500 and o["bytes"] == 40 * o["allocations"]):
                sys.exit("estimate %d bytes in %d, want 10000 blocks +-5%% of 40 bytes (usable)"
                         % (o["bytes"], o["allocations"]))
            sys.exit(0)
sys.exit("no leak_many stack")
PY

# 2. Blocks above glibc's mmap threshold are its mmaps, not the program's,
# with either kind of stack: leak_big's two, whole, at their usable size
# (1 MiB + 4 KiB of mapping, less the 16 of the chunk header); the
# realloc chain's last block (1000 bytes asked, a 1008-byte chunk) and
# the calloc blocks as the filter picks them.
for cg in dwarf fp; do
	run_fl leak --json -s 64 -T 100 --call-graph $cg -c "$LT leaks"
	expect_eq "$rc" 0 "leak -s 64 --call-graph $cg status"
	expect_line '"bytes":2105312,"allocations":2,.*leak_big\+' "$T/out"
	expect_eq "$(field "$T/out" leak_summary kinds.mmap.allocations)" 0 \
		"--call-graph $cg: the allocator's mmaps taken for the program's"
	expect_eq "$(field "$T/out" leak_summary kinds.brk.allocations)" 0 \
		"--call-graph $cg: the allocator's brk taken for the program's"
	expect_eq "$(field "$T/out" leak_summary kinds.malloc.mapped_allocations)" 2 \
		"--call-graph $cg: blocks in their own mmap"
done

# The program's own anonymous mappings are regions, never sampled: the
# same under -s 64 as without.
run_fl leak --json -c "$MT"
expect_eq "$rc" 0 "leak mmap-target status"
want=$(field "$T/out" leak_summary kinds.mmap)
run_fl leak --json -s 64 -c "$MT"
expect_eq "$rc" 0 "leak -s 64 mmap-target status"
expect_eq "$(field "$T/out" leak_summary kinds.mmap)" "$want" "the program's own mmaps under -s 64"

# 2b. record -e leak -s 64 records the sampled probes' events alone (the
# allocator's own mmaps told from the frames kept: the trampoline's), and
# report leak reads them at that rate; no other tool reads them, nor leak
# at another rate.
for cg in dwarf fp; do
	run_fl record -e leak -s 64 --call-graph $cg -o "$T/s.rec" -c "$LT leaks"
	expect_eq "$rc" 0 "record -s 64 --call-graph $cg status"
	expect_line '^faultline leak: -s 64: sampled in the kernel: every block of 1024 bytes or more' "$T/err"
	run_fl report -i "$T/s.rec" leak --json -T 100
	expect_eq "$rc" 0 "report leak of a sampled recording ($cg)"
	expect_line '"bytes":2105312,"allocations":2,.*leak_big\+' "$T/out"
	expect_eq "$(field "$T/out" leak_summary sample_rate)" 64 "$cg recording: report leak's rate"
	expect_eq "$(field "$T/out" leak_summary sampled_in_kernel)" true "$cg recording: sampled in the kernel"
	expect_eq "$(field "$T/out" leak_summary kinds.mmap.allocations)" 0 \
		"$cg recording: the allocator's mmaps taken for the program's"
	expect_eq "$(field "$T/out" leak_summary kinds.brk.allocations)" 0 \
		"$cg recording: the allocator's brk taken for the program's"
done
run_fl report -i "$T/s.rec" heap --json
expect_eq "$rc" 0 "report heap of a sampled recording"
expect_line '"type":"heap_summary",.*"estimates":true,"sample_rate":64,"sampled_in_kernel":true' "$T/out"
for t in "faults --by-alloc" "flamegraph -o $T/s.html"; do
	run_fl report -i "$T/s.rec" $t
	expect_eq "$rc" 1 "report $t of a sampled recording"
	expect_line "^faultline [a-z]+: its allocations were recorded sampled \(record -s 64\): only 'report leak' and 'report heap' read them$" "$T/err"
	[ ! -e "$T/s.html" ] || fail "report $t of a sampled recording wrote its page"
done
run_fl report -i "$T/s.rec" leak -s 16
expect_eq "$rc" 1 "report leak -s 16 of a recording at 64"
expect_line "^faultline leak: its allocations were recorded sampled at -s 64: not -s 16$" "$T/err"
run_fl record -e faults -s 64 -o "$T/f.rec" -c "$LT leaks"
expect_eq "$rc" 2 "record -s without leak"
expect_line "^faultline record: -s samples leak's allocations: not without leak in -e$" "$T/err"

# 2c. heap --sample-rate 64: heaptrack's figures as estimates, from the
# same kernel filter: leak_many's 10,000 blocks (usable size 40) within
# 5%, no temporary allocation counted (the events between two kept ones
# are not seen), said.  --interval follows every call: refused.
run_fl heap --json --sample-rate 64 -c "$LT many"
expect_eq "$rc" 0 "heap --sample-rate 64 status"
python3 - "$T/out" <<'PY' || fail "heap --sample-rate 64 estimate"
import json, sys
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o.get("type") == "heap_summary":
            ok = (9500 <= o["leaked_blocks"] <= 10500 and o["leaked_bytes"] == 40 * o["leaked_blocks"]
                  and o["temporary"] == 0 and o["estimates"] and o["sample_rate"] == 64
                  and o["sampled_in_kernel"])
            sys.exit(0 if ok else "heap summary %s" % o)
sys.exit("no heap_summary")
PY
run_fl heap --sample-rate 64 -c "$LT many"
expect_line '^\(sampled in the kernel: .*: calls, bytes and peaks are estimates; temporary allocations are not counted\)$' "$T/out"
run_fl heap --sample-rate 64 --interval 1 -c "$LT many"
expect_eq "$rc" 2 "heap --sample-rate --interval status"
expect_line "^faultline heap: --interval and --interval-calls follow every call: not with --sample-rate$" "$T/err"
run_fl report -i "$T/s.rec" heap --interval 1
[ "$rc" -ne 0 ] || fail "report heap --interval of a sampled recording: status 0"
expect_line "^faultline heap: --interval and --interval-calls follow every call: not with sampled allocations$" "$T/err"

# 3. Sampled here, and said: N not a power of two.
run_fl leak -s 10 -c "$LT many"
expect_eq "$rc" 0 "leak -s 10 status"
expect_line '^	\(sampled in user space: every block of 1024 bytes or more and 1 smaller block in 10 \(by a hash of its address\), every event still written: N is not a power of two \(the kernel.s filter picks by address bits\): bytes and counts are estimates\)$' "$T/out"

# The uprobe PMU rung has no fetchargs: sampled here, and said; the
# sizes are then the ones asked (entries traced).
if [ -r /sys/bus/event_source/devices/uprobe/type ]; then
	FAULTLINE_MASK=tracefs run_fl leak -s 64 -T 100 -c "$LT leaks"
	expect_eq "$rc" 0 "PMU leak -s 64 status"
	expect_line '^	\(sampled in user space: .*every event still written: the uprobe PMU has no fetchargs and runs no filter in the kernel: bytes and counts are estimates\)$' "$T/out"
	expect_line '^	2097152 bytes in 2 allocations from stack$' "$T/out"
else
	echo "no uprobe PMU here: its case left out"
fi

# jemalloc keeps no size before its blocks: sampled here, and said.
je=$(ldconfig -p | awk '/libjemalloc\.so\.2 .*x86-64/ { print $NF; exit }')
[ -n "$je" ] || fail "no libjemalloc.so.2 (scripts/install-deps installs libjemalloc2)"
run_fl leak -s 64 -O "$je" -c "env LD_PRELOAD=$je $LT many"
expect_eq "$rc" 0 "jemalloc leak -s 64 status"
expect_line '^	\(sampled in user space: .*every event still written: this allocator.s blocks have no size header a kernel filter can read' "$T/out"
pass_or_fail
