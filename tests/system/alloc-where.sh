#!/bin/sh
# faultline leak finds the allocator where the program has it, without -O:
# in a static glibc executable, a static and a dynamic musl one, jemalloc and tcmalloc
# linked into the executable, jemalloc preloaded (-c and -p); and says in
# one line, exit 1, that a program without malloc has nothing to probe.
#
# alloc-where keeps 100 blocks of 4096 B and 50 of 128 B and frees the
# rest (calloc, realloc, aligned_alloc, malloc), then prints its own
# "outstanding BYTES COUNT".  Leak's malloc-family total must be exactly
# that for static glibc (whose start-up blocks, _dl_non_dynamic_init's,
# are left out as ld.so's are in a dynamic program), static musl, jemalloc
# linked in, and jemalloc preloaded under -p; under tcmalloc linked in and
# jemalloc preloaded under -c, libstdc++ is loaded and its emergency pool
# (a 72704 B malloc in its constructor, before main) is the process's
# block too, so there the blocks whose stack runs through main must be
# exactly the target's, and every other one must come from before main.
# The allocator's own mmap regions are not blocks.  The first stderr line names the object and
# the kind of allocator probed.
#
# The static glibc and no-allocator builds come from Makefile.am; the musl,
# jemalloc and tcmalloc builds are made here (their toolchains are test
# packages, scripts/install-deps): a case whose toolchain is missing fails,
# as the packages are this test's dependencies.
. "$top_srcdir/tests/system/lib.sh"
need_root
[ "$(uname -m)" = x86_64 ] || skip "the targets are built for x86-64"
SRC=$top_srcdir/tests/targets/alloc-where.c
COPTS="-O0 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls"
CC=${CC:-cc}
AW=$(target alloc-where)
NM=$(target no-malloc)

# check NAME WANT_WHAT: leak's --json output in $T/out against the
# target's own line (in it too: the target shares stdout) and the probing
# line of $T/err.
check() {
	expect_eq "$rc" 0 "$1: status"
	expect_line "^faultline leak: probing malloc, .*free.* in .* \\($2\\)\$" "$T/err"
	python3 "$top_srcdir/tests/system/leak-check.py" main "$T/out" ||
		fail "$1: leak's blocks against the target's account"
	return 0
}

# 1. Static glibc: malloc is __libc_malloc (one address, one probe).
run_fl leak --json -T 1000 -c "$(target alloc-where-static)"
check "static glibc" "static glibc"
expect_eq "$(leak_nums "$T/out" bytes blocks)" "416000 150" "static glibc: totals"
python3 -c 'import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{\"type\":\"leak_summary")]
sys.exit(0 if s and s[-1]["startup_blocks"] > 0 else 1)' "$T/out" ||
	fail "static glibc: no start-up block counted as left out"

# A recording of it reports the same: the spec and the start-up functions
# found at record time are the recording's (meta alloc.spec, alloc.startup).
run_fl record -e leak -o "$T/static.rec" -c "$(target alloc-where-static)"
expect_eq "$rc" 0 "static glibc: record status"
expect_line "^faultline leak: probing malloc, .* \(static glibc\)\$" "$T/err"
run_fl report -i "$T/static.rec" leak --json
expect_eq "$(leak_nums "$T/out" bytes blocks)" "416000 150" "static glibc, recorded: totals"

# 2. Static musl.
if command -v musl-gcc >/dev/null 2>&1; then
	musl-gcc $COPTS -static -o "$T/aw-musl" "$SRC" || fail "musl-gcc failed"
	run_fl leak --json -T 1000 -c "$T/aw-musl"
	check "static musl" "static musl"
	# All of musl's blocks are main's: nothing before main allocates.
	expect_eq "$(leak_nums "$T/out" bytes blocks)" "416000 150" "musl: totals"
	# Dynamic musl: its dynamic linker is its libc ("libc.so" in DT_NEEDED).
	if musl-gcc $COPTS -o "$T/aw-musl-dyn" "$SRC" && "$T/aw-musl-dyn" >/dev/null; then
		run_fl leak --json -T 1000 -c "$T/aw-musl-dyn"
		check "dynamic musl" "musl"
		expect_eq "$(leak_nums "$T/out" bytes blocks)" "416000 150" "dynamic musl: totals"
	else
		fail "musl-gcc built no dynamic program that runs"
	fi
else
	fail "musl-gcc missing (musl-tools: scripts/install-deps)"
fi

# 3. jemalloc and tcmalloc linked into the executable (libc dynamic).
lib=$(ls /usr/lib/*/libjemalloc_pic.a 2>/dev/null | head -n 1)
if [ -n "$lib" ] && $CC $COPTS -o "$T/aw-je" "$SRC" "$lib" -lpthread -ldl -lm -lstdc++; then
	run_fl leak --json -T 1000 -c "$T/aw-je"
	check "static jemalloc" "jemalloc, linked in"
	expect_eq "$(leak_nums "$T/out" bytes blocks)" "416000 150" "static jemalloc: totals"
else
	fail "no libjemalloc_pic.a to link (libjemalloc-dev: scripts/install-deps)"
fi
lib=$(ls /usr/lib/*/libtcmalloc_minimal.a 2>/dev/null | head -n 1)
if [ -n "$lib" ] && $CC $COPTS -o "$T/aw-tc" "$SRC" "$lib" -lstdc++ -lpthread -lm; then
	run_fl leak --json -T 1000 -c "$T/aw-tc"
	check "static tcmalloc" "tcmalloc, linked in"
else
	fail "no libtcmalloc_minimal.a to link (libgoogle-perftools-dev: scripts/install-deps)"
fi

# 4. jemalloc preloaded into a glibc program: what its malloc calls reach,
# not libc's.  -c inherits faultline's LD_PRELOAD; -p reads the process's.
if path=$(preload_lib libjemalloc.so.2); then
	if [ "${FL_SANITIZED:-0}" = 1 ]; then
		# faultline inherits the preload too, and ASan's runtime must come
		# first in its library list: the normal build runs this case.
		echo "sanitizer build: preloaded jemalloc (-c) left to the normal build"
	else
		echo "+ LD_PRELOAD=$path"
		LD_PRELOAD=$path run_fl leak --json -T 1000 -c "$AW"
		check "preloaded jemalloc (-c)" "jemalloc, preloaded"
	fi
	go_fifo go
	spawn_at_fifo aw env LD_PRELOAD="$path" "$AW" --go "$fifo"
	aw=$spawned
	run_fl_go "$fifo" leak --json -T 1000 -p "$aw"
	wait_exit "$aw" "alloc-where under -p"
	cat "$T/aw.out" >>"$T/out"
	rc=0
	check "preloaded jemalloc (-p)" "jemalloc, preloaded"
	expect_eq "$(leak_nums "$T/out" bytes blocks)" "416000 150" "preloaded jemalloc (-p): totals"
else
	fail "libjemalloc.so.2 not installed (scripts/install-deps)"
fi

# 5. No allocator: one line, exit 1, for -c and for -p.
run_fl leak -c "$NM"
expect_eq "$rc" 125 "no allocator (-c): status (faultline failed, a command given)"
expect_eq "$(wc -l <"$T/err")" 1 "no allocator (-c): stderr lines"
expect_line "^faultline leak: no allocator to probe: '.*no-malloc' is a static executable without malloc" "$T/err"
expect_eq "$(wc -c <"$T/out")" 0 "no allocator (-c): stdout bytes"
spawn nm "$NM" wait
nm=$spawned
run_fl leak -p "$nm"
expect_eq "$rc" 1 "no allocator (-p): status"
expect_eq "$(wc -l <"$T/err")" 1 "no allocator (-p): stderr lines"
expect_line "^faultline leak: no allocator to probe: none of the [0-9]+ files process $nm maps defines malloc" "$T/err"
kill "$nm"

# After every run: none of their probes is left in tracefs.
assert_no_stale_probes
pass_or_fail
