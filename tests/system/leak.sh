#!/bin/sh
# faultline leak against leak-target and kleak-target, whose allocations
# are known exactly: bytes and counts per allocation site, with the site
# as the innermost frame and main below it, for malloc, calloc, a realloc
# chain, posix_memalign, aligned_alloc, blocks above the mmap threshold,
# threads, reallocarray; nothing for blocks freed (in another thread too),
# realloc(p, 0), failed allocations; -a addresses; -s sampling within its
# stated error; -z/-Z; -o; fork and exec; frees of blocks allocated before
# attaching; both unwinders and fp; the BCC text, --json and --folded
# outputs; kernel mode on pipes made and closed.
. "$top_srcdir/tests/system/lib.sh"
need_root
LT=$(target leak-target)
KT=$(target kleak-target)

# check JSONFILE TRUTHFILE [PID]: leak-check.py says the stacks are the
# truth's.
check() {
	python3 "$top_srcdir/tests/system/leak-check.py" "$@" || fail "leak check: $*"
}

# summary JSONFILE KEY: a field of the leak_summary object.
summary() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o.get("type") == "leak_summary":
            print(o[sys.argv[2]])
' "$1" "$2"
}

split_out() {
	grep '^{' "$T/out" >"$T/$1.json" || :
	grep -E '^(site|addr|outstanding|early|pid|child_pid|aged|inherited|preexec)' "$T/out" >"$T/$1.truth" || :
}

# 1. Every kind of leak, -c, DWARF stacks with each unwinder, and fp.
for cg in "--unwinder libdw" "--unwinder libunwind" "--call-graph fp"; do
	run_fl leak --json -a -T 100 $cg -c "$LT leaks"
	expect_eq "$rc" 0 "leak $cg status"
	split_out leaks
	check "$T/leaks.json" "$T/leaks.truth"
	expect_eq "$(summary "$T/leaks.json" failed)" 1 "leak $cg: failed calls (malloc of SIZE_MAX/2)"
done

# -a: every kept block's address and size, under its site.
python3 - "$T/leaks.json" "$T/leaks.truth" <<'PY' || fail "-a addresses"
import json, re, sys
want = set()
for l in open(sys.argv[2]):
    m = re.match(r"addr fn=\w+ addr=(0x[0-9a-f]+) size=(\d+)$", l.strip())
    if m:
        want.add((int(m.group(1), 16), int(m.group(2))))
got = set()
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        for a in o.get("allocs", []):
            got.add((int(a["addr"], 16), a["size"]))
missing = want - got
if not want or missing:
    sys.exit("%d of %d kept blocks missing from -a: %s" % (len(missing), len(want), sorted(missing)[:4]))
PY

# 2. The BCC memleak text format.
run_fl leak -T 3 -c "$LT leaks"
expect_eq "$rc" 0 "leak text status"
expect_line '^\[[0-9]{2}:[0-9]{2}:[0-9]{2}\] Top 3 stacks with outstanding allocations:$' "$T/out"
expect_line '^	2097152 bytes in 2 allocations from stack$' "$T/out"
expect_line '^		0x[0-9a-f]{16}	leak_big\+0x[0-9a-f]+ \[leak-target\]$' "$T/out"
expect_no_line 'bytes in 7 allocations' "$T/out"
expect_line '^Executing .* and tracing allocations with ' "$T/err"

# 3. A target that frees everything: none of its sites remains.
run_fl leak --json -T 100 -c "$LT clean"
expect_eq "$rc" 0 "leak clean status"
python3 - "$T/out" <<'PY' || fail "clean target: a site of the target is outstanding"
import json, sys
sites = {"leak_malloc_small", "leak_calloc", "leak_realloc_chain", "leak_big", "leak_posix_memalign",
         "leak_aligned_alloc", "thread_leak", "reallocarray_site", "produce_blocks", "temp_alloc"}
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o.get("type") == "stack" and sites & {f["sym"].split("+")[0] for f in o["stack"]}:
            sys.exit("outstanding: %s" % o)
PY

# 4. Sampling one in 10: 10,000 blocks of 32 bytes.  Sampling by address
# keeps each block with probability 1/10, so the estimate's relative
# standard error is sqrt(0.9 / 1000) = 3%: +-10% is over three of them.
run_fl leak --json -s 10 -c "$LT many"
expect_eq "$rc" 0 "leak -s status"
python3 - "$T/out" <<'PY' || fail "-s 10 estimate"
import json, sys
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        if o.get("type") == "stack" and o["stack"] and o["stack"][0]["sym"].startswith("leak_many+"):
            if not (288000 <= o["bytes"] <= 352000 and 9000 <= o["allocations"] <= 11000):
                sys.exit("estimate %d bytes in %d, want 320000 in 10000 +-10%%" % (o["bytes"], o["allocations"]))
            sys.exit(0)
sys.exit("no leak_many stack")
PY

# 4b. Sampling keeps every block of 1 KiB or more whole: leak_big's two
# 1 MiB blocks are both counted under -s 64 (by count alone they would be
# 0 or 128 MiB), the small blocks' stacks estimates; both said.  -s 64
# samples in the kernel, sizes read from glibc's chunk header: a block's
# usable size, 1 MiB + 4 KiB - 16 each in its own mmap (leak-sample.sh).
run_fl leak --json -s 64 -T 100 -c "$LT leaks"
expect_eq "$rc" 0 "leak -s 64 status"
expect_line '"bytes":2105312,"allocations":2,.*leak_big\+' "$T/out"
expect_line '"sample_rate":64,.*"estimates":true,"sample_whole_bytes":1024,"sampled_in_kernel":true' "$T/out"
run_fl leak -s 64 -c "$LT leaks"
expect_line '^	\(sampled in the kernel: every block of 1024 bytes or more \(its usable size, from glibc.s chunk header\) and 1 smaller block in 64 \(address bits 7-12 all set\), by the return and free probes. filters: bytes and counts are estimates\)$' "$T/out"
expect_line '^	2105312 bytes in 2 allocations from stack$' "$T/out"

# 5. -z/-Z: only blocks of 1000 to 2000 bytes: the realloc chain's 1000
# (realloc is filtered in faultline, malloc in the kernel).
run_fl leak --json -T 100 -z 1000 -Z 2000 -c "$LT leaks"
expect_eq "$rc" 0 "leak -z -Z status"
n=$(grep -c '"type":"stack"' "$T/out" || :)
expect_eq "$n" 1 "-z 1000 -Z 2000: stacks"
expect_line 'leak_realloc_chain\+' "$T/out"

# 6. fork and exec: the child's leaks under its pid; the parent's blocks
# from before its exec are gone with the old image.
run_fl leak --json -T 100 -c "$LT fork"
expect_eq "$rc" 0 "leak fork status"
split_out fork
parent=$(sed -n 's/^pid=//p' "$T/fork.truth" | head -n 1)
child=$(sed -n 's/^child_pid=//p' "$T/fork.truth" | head -n 1)
grep '^site pid=' "$T/fork.truth" >"$T/fork-child.truth"
check "$T/fork.json" "$T/fork-child.truth" "$child"
grep -v '^site pid=' "$T/fork.truth" >"$T/fork-exec.truth"
check "$T/fork.json" "$T/fork-exec.truth" "$parent"
expect_no_line 'parent_leak' "$T/fork.json"
[ "$(summary "$T/fork.json" dropped_at_exec)" -ge 2 ] || fail "fork: parent_leak's 2 blocks not dropped at exec"

# 7. Attached with -p after 25 blocks were made: their frees are counted
# as frees of blocks not seen allocated, and only the later leak shows.
# The target waits on a FIFO until faultline says it is tracing.
go_fifo prealloc
spawn_at_fifo target "$LT" prealloc --go "$fifo"
run_fl_go "$fifo" leak --json -p "$spawned"
expect_eq "$rc" 0 "leak -p status"
cp "$T/target.out" "$T/pre.truth"
check "$T/out" "$T/pre.truth"
expect_eq "$(summary "$T/out" untracked_frees)" 25 "frees of blocks allocated before attaching"

# 8. -o: a block freed after living longer than the age threshold is
# gone; the report at Ctrl-C hides blocks younger than -o, the report
# after a -c command exits shows them all.  For the Ctrl-C report the
# target works once faultline is tracing (--go), then stays (--end, never
# opened) until killed.
run_fl leak --json -c "$LT aged"
expect_eq "$rc" 0 "leak aged status"
split_out aged
check "$T/aged.json" "$T/aged.truth"
go_fifo aged-end
end=$fifo
for older in 600000 0; do
	go_fifo aged
	spawn_at_fifo target "$LT" aged --go "$fifo" --end "$end"
	tpid=$spawned
	spawn fl "$FAULTLINE" leak --json -o "$older" -p "$tpid"
	fpid=$spawned
	if wait_ready "$T/fl.err" "-o $older"; then
		grep -q '^pid=' "$T/target.out" && fail "-o $older: the target worked before its --go"
		release "$fifo"
		wait_until "$FL_READY_TIMEOUT" grep -q '^pid=' "$T/target.out" ||
			fail "-o $older: target did not finish its work"
	fi
	kill -INT "$fpid"
	wait_exit "$fpid" "-o $older"
	expect_stopped INT leak "$T/fl.err" "-o $older"
	expect_line '"type":"summary"' "$T/fl.out"
	if [ "$older" = 0 ]; then
		expect_line 'young_leak\+' "$T/fl.out"
	else
		expect_no_line 'young_leak\+' "$T/fl.out"
	fi
	kill "$tpid" 2>/dev/null || :
	wait_exit "$tpid" "-o $older: target"
done

# 9. --folded: FlameGraph input weighted by bytes, outermost frame first.
run_fl leak --folded -T 100 -c "$LT leaks"
expect_eq "$rc" 0 "leak --folded status"
expect_line '^leak-target;.*main;run_leaks;leak_malloc_small 280$' "$T/out"
expect_line '^leak-target;.*;thread_leak 1440$' "$T/out"

# 10. -t: every call as it happens, in memleak's words.
run_fl leak -t -T 1 -c "$LT leaks"
expect_eq "$rc" 0 "leak -t status"
# (leak_malloc_small's seven, and temp_alloc's malloc(40) among 1..1000)
n=$(grep -c 'alloc exited, size = 40, result = ' "$T/out" || :)
expect_eq "$n" 8 "-t: the eight malloc(40) returns"
expect_line ' free entered, address = [0-9a-f]+, size = ' "$T/out"

# 11. Kernel mode: 100 pipes are two kmallocs each in alloc_pipe_info
# (the pipe and its buffer array) while they are open, none once closed.
# The pipes are made once faultline is tracing (--go) and kept open
# (--end, never opened: the target is killed) for the Ctrl-C report.  The
# FIFOs' own pipes are allocated and freed around the target's opens.
go_fifo kleak
go=$fifo
go_fifo kleak-end
spawn_at_fifo target "$KT" 100 --go "$go" --end "$fifo"
tpid=$spawned
spawn fl "$FAULTLINE" leak -k --json -o 0 -p "$tpid"
fpid=$spawned
if wait_ready "$T/fl.err" kernel; then
	grep -q '^pipes=' "$T/target.out" && fail "kernel: the target made its pipes before its --go"
	release "$go"
	wait_until "$FL_READY_TIMEOUT" grep -q '^pid=' "$T/target.out" || fail "kernel: no pipes made"
fi
kill -INT "$fpid"
wait_exit "$fpid" kernel
expect_stopped INT leak "$T/fl.err" "kernel"
expect_line '"type":"summary"' "$T/fl.out"
python3 - "$T/fl.out" <<'PY' || fail "kernel: pipes"
import json, sys
counts = []
for l in open(sys.argv[1]):
    if l.startswith("{"):
        o = json.loads(l)
        # kmalloc called from alloc_pipe_info itself (not the slab
        # pages a kmalloc in there happened to need)
        if o.get("type") == "stack" and len(o["stack"]) > 1 and \
           o["stack"][1]["sym"].startswith("alloc_pipe_info+"):
            counts.append(o["allocations"])
if sorted(counts) != [100, 100]:
    sys.exit("alloc_pipe_info stacks with %s allocations, want two of 100" % counts)
PY
kill "$tpid" 2>/dev/null || :
wait_exit "$tpid" "kernel: target"
# The frees are close(2)'s own (pipe_release, free_pipe_info): traced
# before the command exits, whatever the machine's load.
run_fl leak -k --json -T 1000 -c "$KT 100"
expect_eq "$rc" 0 "leak -k -c status"
expect_no_line '^\{"type":"stack".*"stack":\[\{[^}]*\},\{"addr":"[^"]*","sym":"alloc_pipe_info\+' "$T/out"
expect_line '"sym":"alloc_pipe_info\+' "$T/fl.out"

# 12. Other allocators, preloaded into the same target and traced with
# -O LIB (which also picks their probe spec): the same sites, exactly.
# jemalloc's posix_memalign is not probed (its spec says why), so that
# site is left out of its truth.
for lib in libjemalloc.so.2 libtcmalloc_minimal.so.4; do
	path=$(preload_lib "$lib") || {
		fail "$lib not installed (scripts/install-deps installs it)"
		continue
	}
	run_fl leak --json -T 100 -O "$path" -c "env LD_PRELOAD=$path $LT leaks"
	expect_eq "$rc" 0 "leak -O $lib status"
	split_out "$lib"
	case $lib in
	libjemalloc*) grep -v 'fn=leak_posix_memalign ' "$T/$lib.truth" >"$T/$lib.t2" ;;
	*) cp "$T/$lib.truth" "$T/$lib.t2" ;;
	esac
	STRIP_MODULE=${lib%%.so*}
	export STRIP_MODULE
	check "$T/$lib.json" "$T/$lib.t2"
	unset STRIP_MODULE
done

# 13. The quickstart's demo: outstanding at its exit is exactly what it
# leaks on purpose, from its two sites, and nothing else (the loader's own
# start-up regions are left out and counted).
DEMO=$(target demo)
run_fl leak --json -c "$DEMO"
expect_eq "$rc" 0 "leak demo status"
tb=$(sed -n 's/^leaked_thumbnail_bytes=//p' "$T/out")
db=$(sed -n 's/^leaked_decode_bytes=//p' "$T/out")
expect_eq "$(summary "$T/out" outstanding_bytes)" "$((tb + db))" "demo: outstanding bytes"
expect_eq "$(summary "$T/out" stacks)" 2 "demo: stacks"
expect_line '"bytes":'"$tb"',"allocations":6,"stack":\[\{[^]]*load_thumbnail' "$T/out"
[ "$(summary "$T/out" loader_regions)" -ge 1 ] || fail "demo: no loader region counted"

# 14. Bad input: one line, non-zero exit.
run_fl leak -O /nonexistent/libfoo.so -c "$LT clean"
[ "$rc" -ne 0 ] || fail "-O missing library: status 0"
expect_eq "$(wc -l <"$T/err")" 1 "-O missing library: one line"
run_fl leak --probes nosuchspec -c "$LT clean"
[ "$rc" -ne 0 ] || fail "--probes missing spec: status 0"
run_fl leak -s 0 -c "$LT clean"
expect_eq "$rc" 2 "-s 0: usage error"

pass_or_fail
