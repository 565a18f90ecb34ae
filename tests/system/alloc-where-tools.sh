#!/bin/sh
# Every allocation tool finds the allocator where the program has it, and
# counts what the program says it did, exactly: leak, heap, flamegraph,
# faults --by-alloc, and record -e leak with report leak, on alloc-where
# (tests/targets/alloc-where.c) built against
#   static glibc        alloc-where-static, -c
#   static musl         musl-gcc -static, -c
#   jemalloc linked in  libjemalloc_pic.a, -c
#   tcmalloc linked in  libtcmalloc.a (and libunwind, which its stack
#                       walker calls), -c
#   jemalloc preloaded  LD_PRELOAD=libjemalloc.so.2, -p
#   a library dlopen'ed alloc-where-dl dlopen's liblate-alloc.so after
#                       faultline attached (-p), and calls it
# alloc-where prints its own account: per allocating function (grab,
# churn, make) its calls, frees, temporary allocations (freed as the very
# next event), bytes outstanding at the program's peak and at the end, and
# grab's block, whose pages wholly inside it touch writes once each.
# alloc-where-check.py holds each tool's output to it: leak's blocks per
# site and its malloc-family totals; heap's calls, temporary, peak and
# leaked per site and in its summary; the flame graph's four weights under
# each site's frame and at its root; faults --by-alloc's faults at grab's
# block outside the allocator, one per page touched (none resident
# before).  Where the process allocates before main (tcmalloc's
# constructors and libstdc++'s exception pool, in a tcmalloc program) or
# the dynamic linker allocates for dlopen, those blocks are told apart by
# their stacks (no main frame; a dlopen frame) and the totals are the
# target's plus theirs; elsewhere the totals are the target's alone.
# Each run's first line names the functions probed and the object, the
# file itself (its path resolved), and the allocator's kind; the dlopen
# case's names libc, and its later line the library.  The recording's
# report leak is the live leak's, to the byte, and its report heap the
# target's account; the dlopen case's recording defines the library's
# events where they were added, and report script prints their samples.
. "$top_srcdir/tests/system/lib.sh"
need_root
. "$top_srcdir/tests/system/alloc-where-lib.sh"
CHECK=$top_srcdir/tests/system/alloc-where-check.py
LIBC=$(readlink -f "$(${CC:-cc} -print-file-name=libc.so.6)")
[ -f "$LIBC" ] || fail "no libc.so.6 to name ($LIBC)"

GLIBC_STATIC="malloc, calloc, realloc, aligned_alloc, valloc, pvalloc, posix_memalign, free"
GLIBC="malloc, calloc, realloc, reallocarray, aligned_alloc, valloc, pvalloc, posix_memalign, free"
MUSL="malloc, calloc, realloc, aligned_alloc, free"
JE="malloc, calloc, realloc, aligned_alloc, memalign, valloc, mallocx, rallocx, free, dallocx, sdallocx"
# Preloaded, its C++ operators are the process's too.
JE_SO="$JE, new, delete"
# tcmalloc's aligned_alloc and posix_memalign are its memalign (one address).
TC="malloc, calloc, realloc, memalign, valloc, pvalloc, free, sdallocx, new, delete"

# tool_run ARGS...: faultline ARGS on the case's target ($how -c or -p,
# $cmd its command line, $dl the library it dlopen's, or ""): stdout in
# $T/out, stderr in $T/err, status in $rc, the target's account in
# $T/truth.  -p: attached while the target waits on --go; alloc-where-dl
# waits again after its dlopen (--probed) until faultline said it probes
# the library.
tool_run() {
	local apid fpid go probed=
	if [ "$how" = -c ]; then
		run_fl "$@" -c "$cmd"
		# The target shares stdout; faultline's lines there are JSON.
		grep -v '^{' "$T/out" >"$T/truth"
		return 0
	fi
	echo "+ faultline $* -p ($cmd)"
	go_fifo go
	go=$fifo
	if [ -n "$dl" ]; then
		go_fifo probed
		probed=$fifo
	fi
	# shellcheck disable=SC2086 # $cmd is words
	spawn_at_fifo aw $cmd --go "$go" ${probed:+--probed "$probed"}
	apid=$spawned
	spawn fl "$FAULTLINE" "$@" -p "$apid"
	fpid=$spawned
	if wait_ready "$T/fl.err" "$*"; then
		release "$go"
		if [ -n "$dl" ]; then
			wait_until "$FL_READY_TIMEOUT" grep -q "dlopen'ed by pid $apid" "$T/fl.err" ||
				fail "$*: no line probing $dl: $(tail -n 3 "$T/fl.err")"
			release "$probed"
		fi
	fi
	wait_exit "$apid" "alloc-where under $*"
	wait_exit "$fpid" "faultline $* -p"
	cp "$T/fl.out" "$T/out"
	cp "$T/fl.err" "$T/err"
	cp "$T/aw.out" "$T/truth"
}

# check TOOL CHECK: the run's status, its probing lines, and
# alloc-where-check.py CHECK of $T/out (flame: the page) against the
# target's account.
check() {
	local out=$T/out
	expect_eq "$rc" 0 "$case: $1 status"
	if [ -n "$dl" ]; then
		aw_probing "$1" "$GLIBC" "$LIBC" glibc "$T/err"
		aw_probing "$1" "$MUSL" "$dl" dlopen "$T/err"
	else
		aw_probing "$1" "$syms" "$obj" "$kind" "$T/err"
	fi
	[ "$2" = flame ] && out=$T/f.html
	python3 "$CHECK" "$2" "$out" "$T/truth" "$others" ||
		fail "$case: $1 against the target's account"
}

# run_case NAME OTHERS SYMS OBJECT KIND -c|-p CMD [DL]: every tool on it.
run_case() {
	case=$1 others=$2 syms=$3 obj=$4 kind=$5 how=$6 cmd=$7 dl=${8:-}
	echo "=== $case"
	tool_run leak --json -T 1000
	check leak leak
	leak_nums "$T/out" bytes blocks allocs frees >"$T/live.nums"
	if [ "$case" = "static glibc" ]; then
		# Its start-up blocks (_dl_non_dynamic_init's) are left out, and
		# counted as such, as ld.so's are in a dynamic program.
		python3 -c 'import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{\"type\":\"leak_summary")]
sys.exit(0 if s and s[-1]["startup_blocks"] > 0 else 1)' "$T/out" ||
			fail "static glibc: no start-up block counted as left out"
	fi
	tool_run heap --json -n 1000 -s 1000
	check heap heap
	rm -f "$T/f.html"
	tool_run flamegraph -o "$T/f.html"
	check flamegraph flame
	tool_run faults --by-alloc --json
	check faults faults
	# The recording holds what a live leak sees: its report is the same.
	rm -f "$T/r.rec"
	tool_run record -e leak -o "$T/r.rec"
	expect_eq "$rc" 0 "$case: record status"
	if [ -n "$dl" ]; then
		aw_probing leak "$GLIBC" "$LIBC" glibc "$T/err"
		aw_probing leak "$MUSL" "$dl" dlopen "$T/err"
	else
		aw_probing leak "$syms" "$obj" "$kind" "$T/err"
	fi
	cp "$T/truth" "$T/rec.truth"
	run_fl report -i "$T/r.rec" leak --json -T 1000
	cp "$T/rec.truth" "$T/truth"
	expect_eq "$rc" 0 "$case: report status"
	python3 "$CHECK" leak "$T/out" "$T/truth" "$others" ||
		fail "$case: report leak against the target's account"
	expect_eq "$(leak_nums "$T/out" bytes blocks allocs frees)" "$(cat "$T/live.nums")" \
		"$case: report leak against the live leak (bytes blocks allocs frees)"
	run_fl report -i "$T/r.rec" heap --json -n 1000 -s 1000
	expect_eq "$rc" 0 "$case: report heap status"
	python3 "$CHECK" heap "$T/out" "$T/truth" "$others" ||
		fail "$case: report heap against the target's account"
	if [ -n "$dl" ]; then
		# The library's events came once the run went on: report script
		# prints their samples too, an entry for each call the target
		# made through the library.
		run_fl report -i "$T/r.rec" script
		expect_eq "$rc" 0 "$case: report script status"
		expect_eq "$(grep -cE ': 1 faultline_[0-9]+:(malloc|calloc|realloc|aligned_alloc)_enter_l1: ' "$T/out")" \
			"$(sed -n 's/^calls=\([0-9]*\) .*/\1/p' "$T/truth")" \
			"$case: report script's entries into the library against the target's calls"
	fi
}

AW=$(target alloc-where)
run_case "static glibc" none "$GLIBC_STATIC" "$(target alloc-where-static)" "static glibc" \
	-c "$(target alloc-where-static)"
aw_build musl &&
	run_case "static musl" none "$MUSL" "$T/aw-musl" "static musl" -c "$T/aw-musl"
aw_build je &&
	run_case "jemalloc linked in" none "$JE" "$T/aw-je" "jemalloc, linked in" -c "$T/aw-je"
aw_build tc &&
	run_case "tcmalloc linked in" premain "$TC" "$T/aw-tc" "tcmalloc, linked in" -c "$T/aw-tc"
if path=$(preload_lib libjemalloc.so.2); then
	run_case "jemalloc preloaded" none "$JE_SO" "$path" "jemalloc, preloaded" \
		-p "env LD_PRELOAD=$path $AW"
else
	fail "libjemalloc.so.2 not installed (scripts/install-deps)"
fi
LIB=$(target liblate-alloc.so)
[ -f "$LIB" ] || fail "no $LIB (make builds it)"
run_case "dlopen'ed" dlopen "" "" "" -p "$(target alloc-where-dl) $LIB" "$LIB"

assert_no_stale_probes
pass_or_fail
