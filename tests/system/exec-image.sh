#!/bin/sh
# A -c command that execs another program: `setarch -R exec-target PROG`
# is three images under one pid (setarch, exec-target, PROG).  What each
# made before its exec is named in its own maps (not the next program's,
# where the same addresses hold other code: with setarch -R both
# executables start at 0x555555554000), under its own name, and it is gone
# with its image: not outstanding, not leaked, and no fault of the next
# program's is attributed to it, although PROG's first heap blocks lie on
# the very pages exec-target's did.  Live and from a recording, for
# faults --by-alloc, leak and heap, each exact against the programs' own
# accounts (exec-check.py; faults-check.py and leak-check.py for PROG).
. "$top_srcdir/tests/system/lib.sh"
need_root
ET=$(target exec-target)
FT=$(target fault-target)
LT=$(target leak-target)
CHECK=$top_srcdir/tests/system/exec-check.py
setarch -R true 2>/dev/null || skip "setarch -R does not run here (no personality(2) ADDR_NO_RANDOMIZE)"

# ok WHAT ARGS...: run_fl ARGS, which must succeed and lose nothing.
ok() {
	local what=$1
	shift
	run_fl "$@"
	expect_eq "$rc" 0 "$what: status"
	expect_no_line 'lost [1-9]|[1-9][0-9]* events? lost' "$T/err"
}

# check_faults WHAT: $T/out is faults --by-alloc --json of ET FT; $T/truth
# the programs' accounts.
check_faults() {
	python3 "$top_srcdir/tests/system/faults-check.py" by-alloc "$T/out" "$T/truth" tracepoint ||
		fail "$1: fault-target's sites not exact after the exec"
	python3 "$CHECK" faults "$T/out" "$T/truth" || fail "$1: exec-target's sites"
}

# 1. faults --by-alloc, live.
ok "faults --by-alloc" faults --by-alloc --json -c "setarch -R $ET $FT"
cp "$T/out" "$T/truth"
check_faults "faults --by-alloc"
# The text names the sites after their programs too.
run_fl faults --by-alloc -c "setarch -R $ET $FT"
expect_line '^  pre_big\+0x[0-9a-f]+ \[exec-target\]$' "$T/out"
expect_line '^    exec-target \[[0-9]+\]  mmap, 1 allocation, 1,048,576 B \(1\.00 MiB\)$' "$T/out"
expect_line '^    8 faults, 8 pages \(minor 8, major 0; first touch 8, copy-on-write 0; 1 inside the allocator\)$' "$T/out"
expect_no_line '^  \[unknown\]$' "$T/out"
run_fl faults --by-alloc --folded -c "setarch -R $ET $FT"
expect_line '^exec-target;_start;__libc_start_main;__libc_start_call_main;main;before_exec;pre_big 8$' "$T/out"
expect_line '^fault-target;.*main;run_fault_scenario;alloc_big 100$' "$T/out"
expect_no_line '^fault-target;.*(pre_big|pre_small|before_exec)' "$T/out"

# 2. leak and heap, live, against leak-target alone.
ok "leak alone" leak --json -T 100 -c "setarch -R $LT leaks"
cp "$T/out" "$T/leak-alone.json"
ok "leak" leak --json -T 100 -c "setarch -R $ET $LT leaks"
cp "$T/out" "$T/leak.json"
grep -E '^(site|addr|outstanding)' "$T/out" >"$T/leak.truth" || :
python3 "$top_srcdir/tests/system/leak-check.py" "$T/leak.json" "$T/leak.truth" ||
	fail "leak: leak-target's leaks not exact after the exec"
python3 "$CHECK" leak "$T/leak.json" "$T/out" "$T/leak-alone.json" || fail "leak: exec-target's blocks"
ok "heap alone" heap --json -c "setarch -R $LT leaks"
cp "$T/out" "$T/heap-alone.json"
ok "heap" heap --json -c "setarch -R $ET $LT leaks"
python3 "$CHECK" heap "$T/out" "$T/out" "$T/heap-alone.json" || fail "heap: exec-target's sites"

# 3. The same from recordings (every tool's events: the default).
ok "record fault-target" record -o "$T/f.rec" -c "setarch -R $ET $FT"
cp "$T/out" "$T/truth"
ok "report faults --by-alloc" report -i "$T/f.rec" faults --by-alloc --json
check_faults "report faults --by-alloc"
ok "record leak-target" record -o "$T/l.rec" -c "setarch -R $ET $LT leaks"
cp "$T/out" "$T/l.truth"
grep -E '^(site|addr|outstanding)' "$T/out" >"$T/leak.truth" || :
ok "report leak" report -i "$T/l.rec" leak --json -T 100
python3 "$top_srcdir/tests/system/leak-check.py" "$T/out" "$T/leak.truth" ||
	fail "report leak: leak-target's leaks not exact after the exec"
python3 "$CHECK" leak "$T/out" "$T/l.truth" "$T/leak-alone.json" ||
	fail "report leak: exec-target's blocks"
ok "report heap" report -i "$T/l.rec" heap --json
python3 "$CHECK" heap "$T/out" "$T/l.truth" "$T/heap-alone.json" ||
	fail "report heap: exec-target's sites"

pass_or_fail
