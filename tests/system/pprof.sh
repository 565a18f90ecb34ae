#!/bin/sh
# faultline report -i FILE pprof, read back by Debian's `go tool pprof`
# (golang-go), against the targets' truth and faultline's own reports of
# the same recording.
#
# Heap (record -e leak of leak-target leaks):
#   - go tool pprof shows Type inuse_space by default, names the profile
#     after leak-target with its build-id (readelf -n);
#   - -top, for each of the four sample types, totals: alloc_objects is
#     `report heap`'s calls, inuse_space its leaked bytes, inuse_objects
#     its leaked blocks;
#   - -top, per function, the target's truth: each leaking site's bytes and
#     blocks in use (inuse_space, inuse_objects), temp_alloc's 1000 calls
#     of 1..1000 bytes (alloc_objects 1000, alloc_space 500500) with
#     nothing in use, leak_malloc_small's 7 x 40 bytes, produce_blocks' 10
#     x 200, all freed; the first line of -top is leak_big (inuse) and
#     temp_alloc (alloc_objects);
#   - -traces: every stack with its value equals `report heap --json`'s
#     stacks (by function names, inlined frames aside: the text reports do
#     not show them) and their calls and leaked bytes.
# Faults (record -e faults of fault-target): -top's faults by function are
# the target's truth (each toucher's pages touched less those resident
# before, the child's 64 copy-on-write writes), its total and its stacks
# `report faults --json`'s.  A recording of both (record -e leak,faults of
# fault-target) gives the heap (each malloc-family site's bytes in use, as
# the target counts them) and, with --faults, the faults, both exact.  And
# the bad inputs: no -o, an unwritable -o,
# --faults on a recording without faults.
# Labels, as go tool pprof reads them: -tags lists, for each of pid, tid
# and comm, every value with the sum of the samples carrying it, as
# pprof-check.py decodes the same file (the heap's: pid and comm); on
# thread-touch (faults in two threads), -tagfocus=tid=T keeps the touching
# thread's 64 thread_touch faults and none of main_touch, the main
# thread's tid its 128 and none of thread_touch; -tagfocus=comm=NAME keeps
# every sample, another name none.
#
# No go (golang-go, scripts/install-deps installs it), or a faultline built
# without protobuf-c: skipped, with the reason.
. "$top_srcdir/tests/system/lib.sh"
need_root
command -v go >/dev/null 2>&1 || skip "no go (Debian golang-go; scripts/install-deps installs it)"
command -v python3 >/dev/null 2>&1 || skip "no python3"
LT=$(target leak-target)
FT=$(target fault-target)
CHECK=$top_srcdir/tests/system/pprof-check.py
# go keeps a build cache; keep it in the test's directory.
GOCACHE=$T/gocache HOME=$T
export GOCACHE HOME

# check WHAT MODE DIR: pprof-check.py MODE DIR; its differences go into the
# failure line, so that a CI log's tail of failures shows them.
check() {
	what=$1
	shift
	python3 "$CHECK" "$@" 2>"$T/check.err" ||
		fail "$what: $(tr '\n' ';' <"$T/check.err")"
}

# pp OUT ARGS...: go tool pprof ARGS into $T/OUT.
pp() {
	out=$1
	shift
	go tool pprof "$@" >"$T/$out" 2>"$T/$out.err" || fail "go tool pprof $*: status $?"
}

# ---- heap ----
run_fl record -e leak -o "$T/l.rec" -c "$LT leaks"
expect_eq "$rc" 0 "record -e leak status"
expect_line '^faultline record: [0-9,]+ samples \(0 lost\) of leak in ' "$T/err"
cp "$T/out" "$T/leak.truth"
report_pprof "$T/l.rec" "$T/heap.pb.gz" "report pprof status"
expect_line '^faultline report pprof: [0-9,]+ samples, [0-9,]+ allocations, [0-9,]+ B( \([0-9.]+ [KMGTPE]iB\))? in use at the end in .*heap\.pb\.gz$' "$T/err"
run_fl report -i "$T/l.rec" heap --json -l -n 1000 -s 1000
expect_eq "$rc" 0 "report heap status"
cp "$T/out" "$T/heap.json"

pp default.top -top "$T/heap.pb.gz"
expect_line '^Type: inuse_space$' "$T/default.top"
expect_line '^File: leak-target$' "$T/default.top"
bid=$(readelf -n "$LT" 2>/dev/null | sed -n 's/^ *Build ID: *\([0-9a-f]*\)$/\1/p')
[ -n "$bid" ] && expect_line "^Build ID: $bid\$" "$T/default.top"
# -unit=B: bytes as bytes, not rounded to kB and MB.
for s in alloc_objects alloc_space inuse_objects inuse_space; do
	u=
	case $s in *_space) u=-unit=B ;; esac
	# shellcheck disable=SC2086 # $u is one word or none
	pp "$s.top" -top $u -nodefraction=0 -nodecount=1000 -sample_index=$s "$T/heap.pb.gz"
	expect_line "^Type: $s\$" "$T/$s.top"
	# shellcheck disable=SC2086
	pp "$s.traces" -traces $u -sample_index=$s "$T/heap.pb.gz"
done

check "heap profile: not the truth or not faultline heap's figures" heap "$T"
pp heap.tags -tags -unit=B "$T/heap.pb.gz"
expect_line '^ comm: Total ' "$T/heap.tags"
expect_no_line '^ tid: ' "$T/heap.tags"
check "heap profile: -tags" tags "$T/heap.pb.gz" "$T/heap.tags"

# ---- faults ----
run_fl record -e faults -o "$T/f.rec" -c "$FT"
expect_eq "$rc" 0 "record -e faults status"
expect_line '^faultline record: [0-9,]+ samples \(0 lost\) of faults in ' "$T/err"
cp "$T/out" "$T/faults.truth"
report_pprof "$T/f.rec" "$T/faults.pb.gz" "report pprof (faults) status"
expect_line '^faultline report pprof: [0-9,]+ samples, [0-9,]+ faults \((exceptions:page_fault_user|page-faults)\) in .*faults\.pb\.gz$' "$T/err"
run_fl report -i "$T/f.rec" faults --json
expect_eq "$rc" 0 "report faults status"
cp "$T/out" "$T/faults.json"
pp faults.top -top -nodefraction=0 -nodecount=1000 "$T/faults.pb.gz"
expect_line '^Type: faults$' "$T/faults.top"
expect_line '^File: fault-target$' "$T/faults.top"
pp faults.traces -traces "$T/faults.pb.gz"

check "faults profile: not the truth or not faultline faults' figures" faults "$T"
pp faults.tags -tags "$T/faults.pb.gz"
expect_line '^ tid: Total ' "$T/faults.tags"
check "faults profile: -tags" tags "$T/faults.pb.gz" "$T/faults.tags"

# ---- labels: two threads' faults ----
TT=$(target thread-touch)
run_fl record -e faults -o "$T/t.rec" -c "$TT"
expect_eq "$rc" 0 "record -e faults (thread-touch) status"
cp "$T/out" "$T/tt.truth"
report_pprof "$T/t.rec" "$T/t.pb.gz" "report pprof (thread-touch) status"
pp t.tags -tags "$T/t.pb.gz"
check "thread-touch: -tags" tags "$T/t.pb.gz" "$T/t.tags"
ttid=$(sed -n 's/^site fn=thread_touch pages=[0-9]* tid=\([0-9]*\)$/\1/p' "$T/tt.truth")
ttpid=$(sed -n 's/^pid=//p' "$T/tt.truth")
ttcomm=$(sed -n 's/^comm=//p' "$T/tt.truth")
expect_line "^ +[0-9.]+ \( *[0-9.]+%\): $ttid\$" "$T/t.tags"
expect_line "^ +[0-9.]+ \( *[0-9.]+%\): $ttcomm\$" "$T/t.tags"
pp t-thread.top -top -nodefraction=0 -nodecount=1000 -tagfocus="tid=$ttid" "$T/t.pb.gz"
expect_line '^ +64 +[0-9.]+% +[0-9.]+% +64 +[0-9.]+% +thread_touch$' "$T/t-thread.top"
expect_no_line ' main_touch$' "$T/t-thread.top"
pp t-main.top -top -nodefraction=0 -nodecount=1000 -tagfocus="tid=$ttpid" "$T/t.pb.gz"
expect_line '^ +128 +[0-9.]+% +[0-9.]+% +128 +[0-9.]+% +main_touch$' "$T/t-main.top"
expect_no_line ' thread_touch$' "$T/t-main.top"
pp t-comm.top -top -tagfocus="comm=$ttcomm" "$T/t.pb.gz"
pp t-all.top -top "$T/t.pb.gz"
expect_eq "$(grep 'Total samples' "$T/t-comm.top")" "$(grep 'Total samples' "$T/t-all.top")" \
	"-tagfocus=comm=$ttcomm: every sample"
pp t-none.top -top -tagfocus=comm=no-such-comm "$T/t.pb.gz"
expect_line 'matched no samples' "$T/t-none.top.err"

# ---- both recorded: the heap by default, the faults with --faults ----
mkdir -p "$T/both"
run_fl record -e leak,faults -o "$T/b.rec" -c "$FT"
expect_eq "$rc" 0 "record -e leak,faults status"
expect_line '^faultline record: [0-9,]+ samples \(0 lost\) of leak,faults in ' "$T/err"
cp "$T/out" "$T/both/faults.truth"
report_pprof "$T/b.rec" "$T/both.pb.gz" "report pprof (leak,faults) status"
pp both/inuse_space.top -top -unit=B -nodefraction=0 -nodecount=1000 "$T/both.pb.gz"
expect_line '^Type: inuse_space$' "$T/both/inuse_space.top"
check "leak,faults recording: not fault-target's heap" sites "$T/both"
run_fl report -i "$T/b.rec" pprof --faults -o "$T/both-faults.pb.gz"
expect_eq "$rc" 0 "report pprof --faults status"
run_fl report -i "$T/b.rec" faults --json
cp "$T/out" "$T/both/faults.json"
pp both/faults.top -top -nodefraction=0 -nodecount=1000 "$T/both-faults.pb.gz"
expect_line '^Type: faults$' "$T/both/faults.top"
pp both/faults.traces -traces "$T/both-faults.pb.gz"
check "leak,faults recording, --faults: not the truth" faults "$T/both"

# ---- bad input: one line on stderr, non-zero ----
run_fl report -i "$T/l.rec" pprof
expect_eq "$rc" 2 "pprof without -o: status"
expect_eq "$(wc -l <"$T/err")" 1 "pprof without -o: lines on stderr"
run_fl report -i "$T/l.rec" pprof -o "$T/no/such/dir/x.pb.gz"
expect_eq "$rc" 1 "pprof -o into a missing directory: status"
expect_line "^faultline report pprof: cannot create '.*x\.pb\.gz'" "$T/err"
expect_eq "$(wc -l <"$T/err")" 1 "pprof -o into a missing directory: lines on stderr"
run_fl report -i "$T/l.rec" pprof --faults -o "$T/x.pb.gz"
expect_eq "$rc" 1 "pprof --faults without faults: status"
expect_line '^faultline report pprof: the recording holds no page faults' "$T/err"

pass_or_fail
