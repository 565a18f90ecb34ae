#!/bin/sh
# faultline leak against valgrind on real programs nobody here wrote: perl
# building a hash of 10,000 keys, and Debian's python3 importing json,
# email, http.client, asyncio and decimal.  Each runs under `valgrind
# --run-libc-freeres=no --run-cxx-freeres=no` (else valgrind frees libc's
# own buffers before it counts) and under `faultline leak --json -c` at
# default settings, whose report at the command's exit holds everything
# still allocated.  No event may be lost, and then:
#   - the malloc family's bytes and blocks outstanding are valgrind's "in
#     use at exit";
#   - the malloc family's allocations traced are valgrind's "total heap
#     usage: N allocs" (a realloc is one for both; C++'s new is malloc's).
# Exactly: both see the same calls.  The programs' own anonymous mmaps
# (pymalloc's arenas) are not valgrind's heap and stay out of it.
#
# The two runs must see the same environment, or perl's %ENV differs by a
# few blocks: valgrind adds LD_PRELOAD, LD_LIBRARY_PATH and
# GLIBCXX_FORCE_NEW to its client's, so faultline runs with that
# environment, LD_PRELOAD renamed to a variable of the same length (its
# libraries are valgrind's), and both valgrind runs (the program's and the
# one that shows the client's environment) get one base environment.  Hash seeds are fixed, and python writes no
# bytecode, so that both runs build the same tables from the same files.
#
# LEAK_TRUTH_OPTS adds options to leak (e.g. '--call-graph fp' to check
# the comparison apart from the DWARF path's losses); the default is none.
. "$top_srcdir/tests/system/lib.sh"
need_root
command -v valgrind >/dev/null 2>&1 || skip "no valgrind (scripts/install-deps installs it)"
command -v perl >/dev/null 2>&1 || skip "no perl"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
: "${FL_TIMEOUT:=600}"
opts="${LEAK_TRUTH_OPTS:-} $(busy_opts)"

PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1
export PERL_HASH_SEED PERL_PERTURB_KEYS PYTHONHASHSEED PYTHONDONTWRITEBYTECODE

# vg_num NAME: from $T/vg.log, valgrind's "in use at exit" bytes (inuse)
# and blocks (blocks), or "total heap usage" allocs (allocs), commas out.
vg_num() {
	case $1 in
	inuse) sed -n 's/.*in use at exit: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\1/p' "$T/vg.log" ;;
	blocks) sed -n 's/.*in use at exit: \([0-9,]*\) bytes in \([0-9,]*\) blocks.*/\2/p' "$T/vg.log" ;;
	allocs) sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' "$T/vg.log" ;;
	esac | tr -d , | tail -n 1
}

# fl_num KEY: lib.sh's leak_nums of $T/out.
fl_num() { leak_nums "$T/out" "$1"; }

# with-env FILE CMD...: run CMD with exactly the environment of FILE (env
# -0's output), LD_PRELOAD renamed to LD_PRELOAX.  Both valgrind runs get
# the same base environment (bash sets $_ to each command's path); the
# faultline run gets what valgrind's client gets.
cat >"$T/with-env" <<'EOF'
#!/usr/bin/env python3
import os, sys
env = dict(kv.split("=", 1) for kv in open(sys.argv[1]).read().split("\0") if "=" in kv)
if "LD_PRELOAD" in env:
    env["LD_PRELOAX"] = env.pop("LD_PRELOAD")
os.execvpe(sys.argv[2], sys.argv[2:], env)
EOF
chmod +x "$T/with-env"
env -0 >"$T/base.env"
"$T/with-env" "$T/base.env" valgrind -q /usr/bin/env -0 >"$T/client.env" 2>/dev/null </dev/null ||
	fail "valgrind /usr/bin/env"
cat >"$T/fl-client-env" <<EOF
#!/bin/sh
exec "$T/with-env" "$T/client.env" "$FAULTLINE" "\$@"
EOF
chmod +x "$T/fl-client-env"
FAULTLINE=$T/fl-client-env

# truth NAME CMD: run CMD (a command line, as -c takes it) under both and
# compare.
truth() {
	local name=$1 cmd=$2 vb vn va fb fn fa lost v
	echo "+ valgrind $cmd"
	rc=0
	eval "timeout -k 10 $FL_TIMEOUT \"\$T/with-env\" \"\$T/base.env\" valgrind \
		--run-libc-freeres=no --run-cxx-freeres=no --log-file=\"\$T/vg.log\" $cmd" \
		</dev/null >/dev/null 2>&1 9>&- || rc=$?
	expect_eq "$rc" 0 "$name under valgrind: status"
	vb=$(vg_num inuse) vn=$(vg_num blocks) va=$(vg_num allocs)
	[ -n "$vb" ] && [ -n "$vn" ] && [ -n "$va" ] || {
		fail "$name: no heap summary from valgrind"
		return 0
	}
	cp "$T/vg.log" "$T/$name.vg.log"
	run_fl leak --json $opts -c "$cmd" </dev/null
	expect_eq "$rc" 0 "$name under faultline leak: status"
	cp "$T/out" "$T/$name.out"
	lost=$(fl_num lost) fb=$(fl_num bytes) fn=$(fl_num blocks) fa=$(fl_num allocs)
	echo "$name: in use at exit faultline $fb bytes in $fn blocks, valgrind $vb in $vn;" \
		"allocations faultline $fa, valgrind $va; lost $lost events"
	for v in "$lost" "$fb" "$fn" "$fa"; do
		case $v in
		'' | *[!0-9]*)
			fail "$name: no leak_summary or summary from faultline"
			return 0
			;;
		esac
	done
	expect_eq "$lost" 0 "$name: events lost"
	expect_eq "$fb" "$vb" "$name: malloc-family bytes outstanding at exit against valgrind's in use at exit"
	expect_eq "$fn" "$vn" "$name: malloc-family blocks outstanding at exit against valgrind's"
	expect_eq "$fa" "$va" "$name: malloc-family allocations against valgrind's total heap usage allocs"
	return 0
}

truth perl "perl -e 'my %h; \$h{\$_} = \$_ for 1..10000;'"
truth python3 "/usr/bin/python3 -c 'import json, email, http.client, asyncio, decimal'"
pass_or_fail
