#!/bin/sh
# The static binary of `configure --enable-static-binary`: no dynamic
# section (no NEEDED entry, no interpreter), and, copied alone into an
# empty directory with no probe spec anywhere it looks, it runs features,
# leak -c (glibc.probes built in), flamegraph -c (its page built in) and
# brk on its uprobe rung (libc-syscalls.probes built in).  Skipped in other
# builds.
. "$top_srcdir/tests/system/lib.sh"
[ "${FAULTLINE_STATIC:-no}" = yes ] || skip "not a --enable-static-binary build"
command -v readelf >/dev/null 2>&1 || skip "no readelf (binutils)"

readelf -dW "$FAULTLINE_BIN" >"$T/dynamic" 2>&1
expect_no_line 'NEEDED' "$T/dynamic"
expect_line 'There is no dynamic section' "$T/dynamic"
readelf -lW "$FAULTLINE_BIN" >"$T/segments" 2>&1
expect_no_line 'INTERP|Requesting program interpreter' "$T/segments"
if command -v file >/dev/null 2>&1; then
	file -b "$FAULTLINE_BIN" >"$T/file"
	expect_line 'statically linked' "$T/file"
fi

need_root
# Alone on the "host": a fresh directory, no FAULTLINE_PROBES_DIR, nothing
# beside the binary, and (checked) no installed spec.
for f in glibc libc-syscalls; do
	[ ! -e "$FAULTLINE_PKGDATADIR/probes/$f.probes" ] ||
		skip "$FAULTLINE_PKGDATADIR/probes/$f.probes is installed: the built-in specs cannot be told apart"
done
mkdir "$T/host"
cp "$FAULTLINE_BIN" "$T/host/faultline"
fl_wrap "$T/host/faultline"
unset FAULTLINE_PROBES_DIR
cd "$T/host" || exit 99

run_fl features
expect_eq "$rc" 0 "features: exit status"
expect_line '^tracefs +yes' "$T/out"
expect_line '^leak ' "$T/out"

DEMO=$(target demo)
run_fl leak -c "$DEMO"
expect_eq "$rc" 0 "leak -c demo: exit status"
tb=$(sed -n 's/^leaked_thumbnail_bytes=//p' "$T/out")
db=$(sed -n 's/^leaked_decode_bytes=//p' "$T/out")
[ -n "$tb" ] && [ -n "$db" ] || fail "demo printed no truth"
expect_eq "$(leak_total "$T/out" outstanding)" "$((tb + db)) 7" "demo: bytes and allocations outstanding"
expect_line '^  outstanding: .* in 7 allocations from 2 stacks$' "$T/out"
expect_eq "$(leak_total "$T/out" 'malloc family')" "$((tb + db)) 7" "demo: the malloc family's bytes and blocks"
expect_line 'load_thumbnail[.a-z0-9]*\+0x[0-9a-f]+ \[demo\]' "$T/out"

# The flame graph page is built in too: written by the binary alone.
run_fl flamegraph -o "$T/host/demo.html" -c "$DEMO"
expect_eq "$rc" 0 "flamegraph -c demo: exit status"
expect_line '^<!DOCTYPE html>' "$T/host/demo.html"
expect_line '"n":"load_thumbnail[.a-z0-9]*","v":\[[1-9]' "$T/host/demo.html"

# --libc: sbrk through libc, which the uprobe rung sees (3 calls, and
# libc's own brk(NULL) query before the first).
FAULTLINE_MASK='syscalls:*' run_fl brk -c "$(target brk-target) --libc --count 3"
expect_eq "$rc" 0 "brk on its uprobe rung: exit status"
expect_line 'falling back to uprobe libc brk' "$T/err"
pid=$(sed -n 's/^pid=//p' "$T/out")
calls=$(awk -v pid="$pid" '$1 == pid && $2 == "brk-target" { print $3 }' "$T/out")
[ -n "$calls" ] && [ "$calls" -ge 3 ] ||
	fail "brk on its uprobe rung: '$calls' calls of brk-target (pid '$pid'), expected 3 or more"
pass_or_fail
