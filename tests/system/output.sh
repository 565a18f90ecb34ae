#!/bin/sh
# --output FILE: the report goes to FILE, a command run with -c or --
# keeps faultline's stdout (a pipe here), FILE is made 0644 (umask 022)
# or truncated; what faultline, running as root where a user said, must
# not write through is refused in one line before anything is traced
# (exit 125, faultline's failure with a command given; no probe group):
# a FIFO (no reader waited for), a symlink (its target untouched), a
# directory, a device.  A write that fails (a full filesystem) is said
# with its errno, exit 125.
. "$top_srcdir/tests/system/lib.sh"
need_root
tracing_dir >/dev/null || skip "no tracefs"
BT=$(target brk-target)
umask 022

# 1. brk's report in a file, the program's stdout through a pipe.
echo "old contents, longer than any report would be ................................" \
	>"$T/old.txt"
run_fl brk --output "$T/old.txt" -- "$BT"
expect_eq "$rc" 0 "brk --output: status ($(head -c 300 "$T/err"))"
expect_line '^PID +COMM +BRK_CALLS' "$T/old.txt"
expect_no_line 'old contents' "$T/old.txt"
expect_no_line '^PID +COMM +BRK_CALLS' "$T/out"
# brk-target's own lines are on faultline's stdout.
expect_line '^brk req=' "$T/out"
"$FAULTLINE" brk --output "$T/new.txt" -- "$BT" 2>"$T/err" | cat >"$T/piped"
expect_line '^brk req=' "$T/piped"
expect_eq "$(stat -c %a "$T/new.txt")" 644 "a new --output file's mode"
expect_line '^PID +COMM +BRK_CALLS' "$T/new.txt"
# The same counts as on stdout without --output.
run_fl brk -- "$BT"
expect_eq "$(grep -A1 '^PID' "$T/new.txt" | tail -n 1 | awk '{print $3}')" \
	"$(grep -A1 '^PID' "$T/out" | tail -n 1 | awk '{print $3}')" "brk calls in the file and on stdout"

# 2. Refused: one line, exit 1, nothing traced.
refused() {	# WHAT PATH KIND
	run_fl brk --output "$2" -- "$BT"
	expect_eq "$rc" 125 "$1: exit status"
	expect_eq "$(grep -c . "$T/err")" 1 "$1: lines on stderr ($(head -c 300 "$T/err"))"
	expect_line "^faultline brk: cannot write the report to '$2': it is $3 \(--output takes a regular file\)$" "$T/err"
	expect_no_line '^brk req=' "$T/out"
}
mkfifo "$T/fifo"
refused "a FIFO" "$T/fifo" "a FIFO"
echo precious >"$T/precious"
ln -s "$T/precious" "$T/link"
refused "a symlink" "$T/link" "a symbolic link, which is not followed"
expect_eq "$(cat "$T/precious")" precious "the symlink's target"
ln -s "$T/nowhere" "$T/dangling"
refused "a dangling symlink" "$T/dangling" "a symbolic link, which is not followed"
[ -e "$T/nowhere" ] && fail "a file made through a dangling symlink"
mkdir "$T/dir"
refused "a directory" "$T/dir" "a directory"
refused "a device" /dev/null "a device"
run_fl brk --output "$T/no/such/dir/f" -- "$BT"
expect_eq "$rc" 125 "a missing directory: status"
expect_line "^faultline brk: cannot write the report to '$T/no/such/dir/f': No such file or directory$" "$T/err"

# 3. A full filesystem: the write's errno at close, exit 1.
mkdir "$T/small"
if mount -t tmpfs -o size=4k tmpfs "$T/small" 2>/dev/null; then
	dd if=/dev/zero of="$T/small/fill" bs=4096 count=1 2>/dev/null
	run_fl leak -o 0 --output "$T/small/r.txt" -c "$(target leak-target) leaks"
	umount "$T/small"
	expect_eq "$rc" 125 "a full filesystem: status"
	expect_line "^faultline leak: cannot write '$T/small/r.txt': No space left on device$" "$T/err"
else
	echo "no tmpfs mount here: the full-filesystem case not run"
fi
assert_no_stale_probes
pass_or_fail
