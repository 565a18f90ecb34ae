#!/bin/sh
# tracefs-errlog.sh: a probe the kernel refuses is reported in one line
# that quotes the kernel's error_log entry of that very command, written
# by that run: not an older entry, even one of the same command text.
#
# leak --probes with a spec whose malloc_enter reads a register that does
# not exist (%zz: "Invalid register name"), on a copy of libc at $T/lib.
# Just before faultline runs (a wrapper that then execs it, so the pid and
# hence the group name faultline_PID are the same), the log is given two
# older entries: another command's ("Invalid register name" too) and the
# very command faultline is about to write, refused while $T/lib was
# missing ("Failed to find the given file").  The line must quote the
# entry of faultline's own write.  (The unit test, test-probe-line, checks
# the entries the log held before a write are never quoted, on real logs.)
. "$top_srcdir/tests/system/lib.sh"
need_root
dir=$(tracing_dir) || skip "no tracefs"
[ -w "$dir/dynamic_events" ] || skip "no dynamic_events (kernel before 5.0)"
[ -r "$dir/error_log" ] || skip "no tracefs error_log (kernel before 5.4)"
libc=$(ldd "$(target leak-target)" | awk '$1 == "libc.so.6" { print $3 }')
[ -f "$libc" ] || skip "no libc.so.6 to copy"
grep -q '^probe malloc_enter .* size=%di:u64 sp=%sp:x64$' "$FAULTLINE_PROBES_DIR/glibc.probes" ||
	skip "glibc.probes' malloc_enter is not the one this test edits"
sed 's/^\(probe malloc_enter .*\) size=%di:u64 /\1 size=%zz:u64 /' \
	"$FAULTLINE_PROBES_DIR/glibc.probes" >"$T/bad.probes"
LIB=$T/lib/libc.so.6
mkdir "$T/lib"
cp "$libc" "$LIB"

# The command's text but for the group: its offset, from a first run.
run_fl leak --probes "$T/bad.probes" -O "$LIB" -c true
expect_eq "$rc" 125 "leak with a bad fetcharg: status"
off=$(sed -n "s|.*cannot create probe 'faultline_[0-9]*/malloc_enter' at '$LIB:\(0x[0-9a-f]*\)'.*|\1|p" "$T/err")
[ -n "$off" ] || fail "no malloc_enter probe refused: $(cat "$T/err")"
off=$(printf '0x%016x' "$off")
args='size=%zz:u64 sp=%sp:x64'

cat >"$T/plant" <<EOF
#!/bin/sh
# Older entries, then faultline in this very process.
echo "p:fltest_\$\$/other /bin/true:0x10 a=%yy:u64" >>'$dir/dynamic_events' 2>/dev/null
mv '$LIB' '$LIB.away'
echo "p:faultline_\$\$/malloc_enter $LIB:$off $args" >>'$dir/dynamic_events' 2>/dev/null
mv '$LIB.away' '$LIB'
exec '$FAULTLINE' "\$@"
EOF
chmod +x "$T/plant"
echo "+ plant; faultline leak --probes bad.probes -O $LIB -c true"
rc=0
"$T/plant" leak --probes "$T/bad.probes" -O "$LIB" -c true >"$T/out" 2>"$T/err" || rc=$?
expect_eq "$rc" 125 "leak with a bad fetcharg, older entries in the log: status"
pid=$(sed -n "s|^faultline leak: cannot create probe 'faultline_\([0-9]*\)/.*|\1|p" "$T/err")
[ -n "$pid" ] || fail "no probe refused: $(cat "$T/err")"
cmd="p:faultline_$pid/malloc_enter $LIB:$off $args"
cp "$dir/error_log" "$T/error_log"
# The premise: both older entries are there, before faultline's own.
grep -A1 'error: Failed to find the given file' "$T/error_log" | grep -qxF "  Command: $cmd" ||
	fail "the older entry of the same command is not in the log"
grep -A1 'error: Invalid register name' "$T/error_log" | grep -qF "  Command: p:fltest_$pid/other " ||
	fail "the other command's entry is not in the log"
grep -A1 'error: Invalid register name' "$T/error_log" | grep -qxF "  Command: $cmd" ||
	fail "faultline's own write left no entry"
expect_eq "$(grep -c . "$T/err")" 1 "lines on stderr"
expect_line "^faultline leak: cannot create probe 'faultline_$pid/malloc_enter' at '$LIB:0x[0-9a-f]+': Invalid argument: kernel says: trace_uprobe: error: Invalid register name\$" "$T/err"
expect_no_line "Failed to find" "$T/err"
assert_no_probes_of "$pid"
echo "RESULT: $(cat "$T/err")"
pass_or_fail
