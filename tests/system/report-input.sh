#!/bin/sh
# What report -i accepts: a regular file holding one recording, and
# nothing else, each refusal in one line with exit 1.  A FIFO (with a
# writer or none: it must never block), a directory and a device are not
# read; bytes after the END record are refused as docs/record-format.md
# says ("data after the end record"), where report took them silently; a
# regular file given as /dev/stdin is read.
. "$top_srcdir/tests/system/lib.sh"
need_root
BT=$(target brk-target)

one_line() {	# WHAT REGEX
	expect_eq "$rc" 1 "$1: exit status"
	expect_eq "$(grep -c . "$T/err")" 1 "$1: lines on stderr"
	expect_line "$2" "$T/err"
	[ -s "$T/out" ] && fail "$1: output on stdout: $(head -n 2 "$T/out")"
	return 0
}

run_fl record -e brk -o "$T/brk.rec" -c "$BT --count 5"
expect_eq "$rc" 0 "record status"
run_fl report -i "$T/brk.rec" brk
expect_eq "$rc" 0 "report of the recording: status"
cp "$T/out" "$T/want"
calls=$(sed -n 's/^  *\([0-9][0-9]*\) calls, .*/\1/p' "$T/want" | awk '{ n += $1 } END { print n + 0 }')
[ "$calls" -ge 5 ] || fail "report brk: $calls brk calls, brk-target made 5 and more"

# A FIFO with no writer: open(2) would wait for one forever.
mkfifo "$T/rec.fifo"
run_fl report -i "$T/rec.fifo" brk
one_line "FIFO without a writer" "^faultline report: cannot read '.*rec.fifo': it is a FIFO, and a recording is read from a regular file \(save it to one first\)$"
# ... and with one, which is never read (the writer is left waiting).
spawn writer sh -c "cat '$T/brk.rec' >'$T/rec.fifo'"
run_fl report -i "$T/rec.fifo" brk
one_line "FIFO with a writer" "^faultline report: cannot read '.*rec.fifo': it is a FIFO"
run_fl report -i "$T/brk.rec" diff "$T/rec.fifo"
one_line "diff's old recording a FIFO" "^faultline report diff: cannot read '.*rec.fifo': it is a FIFO"
run_fl report -i "$T" brk
one_line "a directory" "^faultline report: cannot read '$T': it is a directory"
run_fl report -i /dev/null brk
one_line "a device" "^faultline report: cannot read '/dev/null': it is a device"
# A pipe on stdin is a FIFO too; a regular file there is read.
rc=0
cat "$T/brk.rec" | "$FAULTLINE" report -i /dev/stdin brk >"$T/out" 2>"$T/err" || rc=$?
one_line "a pipe as /dev/stdin" "it is a FIFO"
rc=0
"$FAULTLINE" report -i /dev/stdin brk <"$T/brk.rec" >"$T/out" 2>"$T/err" || rc=$?
expect_eq "$rc" 0 "a regular file as /dev/stdin: status"
cmp -s "$T/out" "$T/want" || fail "a regular file as /dev/stdin: not the same report"

# Data after END: one byte, and a second recording glued on.
size=$(wc -c <"$T/brk.rec")
{ cat "$T/brk.rec"; printf x; } >"$T/tail1.rec"
run_fl report -i "$T/tail1.rec" brk
expect_eq "$rc" 1 "one byte after END: status"
expect_eq "$(grep -c . "$T/err")" 1 "one byte after END: lines on stderr"
expect_line "^faultline brk: .*tail1.rec: offset $size: data after the end record$" "$T/err"
cat "$T/brk.rec" "$T/brk.rec" >"$T/two.rec"
run_fl report -i "$T/two.rec" info
expect_eq "$rc" 1 "two recordings glued: status"
expect_line "two.rec: offset $size: data after the end record$" "$T/err"
# The recording itself still reads cleanly.
run_fl report -i "$T/brk.rec" info
expect_eq "$rc" 0 "report info: status"
pass_or_fail
