#!/bin/sh
# report-bad-time.sh: a recording whose 100th sample's time is 2^56 ns (2.3
# years after its start; the rest of it lasts 0.3 s) is replayed up to its
# real end, not in 720 million empty 100 ms rounds: report leak, heap and
# flamegraph each print exactly what they print for the same recording
# with that sample removed, plus one line on stderr naming the malformed
# record, and the footer counts it; a long replay (20 hours of rounds)
# stops at SIGINT or SIGTERM, and so does a replay of heap or flamegraph
# signalled as it starts.  The recording is the golden alloc-a
# (tests/golden/data; no root needed).
# Env: FAULTLINE, top_srcdir, top_builddir. Exit 0 pass, 1 fail, 77 skip.

. "$top_srcdir/tests/system/lib.sh"
command -v python3 >/dev/null || skip "no python3"
EDIT=$top_srcdir/tests/system/rec-edit.py

gzip -dc "$top_srcdir/tests/golden/data/alloc-a.rec.gz" >"$T/a.rec" || fail "alloc-a.rec.gz"
python3 "$EDIT" "$T/a.rec" "$T/time.rec" time 100 72057594037927936 || fail "rec-edit time"
python3 "$EDIT" "$T/a.rec" "$T/drop.rec" drop 100 || fail "rec-edit drop"
off=$(python3 - "$T/a.rec" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off, k = struct.unpack_from("<I", d, 16)[0], 0
while True:
    t, l = struct.unpack_from("<II", d, off)
    k += t == 9
    if k == 100:
        print(off)
        break
    off += 8 + l
PY
)

for what in leak heap "flamegraph -o @"; do
	name=${what%% *}
	for rec in time drop; do
		# (timeout: before the fix this ran for hours, past SIGTERM)
		FL_TIMEOUT=20 run_fl report -i "$T/$rec.rec" $(echo "$what" | sed "s|@|$T/$name-$rec.html|")
		expect_eq "$rc" 0 "$name of $rec.rec: exit status"
		cp "$T/out" "$T/$name-$rec.out"
		cp "$T/err" "$T/$name-$rec.err"
	done
	expect_eq "$(grep -c . "$T/$name-time.err")" 1 "$name: lines on stderr"
	expect_line "^faultline report: warning: 1 malformed record skipped: timed after the recording's end \(0\.303 s\); the first at offset $off, 72035842\.[0-9]+ s$" "$T/$name-time.err"
	[ -s "$T/$name-drop.err" ] && fail "$name of drop.rec: stderr: $(cat "$T/$name-drop.err")"
	# The same report, but for the footer's "some records malformed".
	sed 's/, some records malformed//' "$T/$name-time.out" | diff -u "$T/$name-drop.out" - ||
		fail "$name: the report with the bad time is not the one without the sample"
	[ "$name" = flamegraph ] && { cmp -s "$T/$name-time.html" "$T/$name-drop.html" ||
		fail "flamegraph: the pages differ"; }
done
expect_line '^[0-9,]+ samples, lost 0 events, [0-9,]+ unknown frames of [0-9,]+, some records malformed' "$T/leak-time.out"

# A long replay stops at SIGINT and SIGTERM, as a live run does, its report
# printed.  long.rec is alloc-a with its last timed record (an EXIT) 20
# hours after its last sample: within the bounds (a day between records),
# so `leak 0.1` has 720,000 interval reports to print.  The signal goes
# once the first is out; the replay must end long before the last.
python3 - "$T/a.rec" "$T/long.rec" <<'PY' || fail "making long.rec"
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
off, last, tmax = struct.unpack_from("<I", d, 16)[0], None, 0
while off + 8 <= len(d):
    t, l = struct.unpack_from("<II", d, off)
    if t == 9:
        tmax = max(tmax, struct.unpack_from("<Q", d, off + 24)[0])
    if t == 7:
        last = off
    off += 8 + l
struct.pack_into("<Q", d, last + 24, tmax + 20 * 3600 * 10**9)
open(sys.argv[2], "wb").write(d)
PY
for sig in INT TERM; do
	spawn "long-$sig" "$FAULTLINE" report -i "$T/long.rec" leak 0.1
	p=$spawned
	wait_until "$FL_READY_TIMEOUT" grep -q '^\[.*\] Top ' "$T/long-$sig.out" ||
		fail "SIG$sig: no interval report from the long replay"
	kill -"$sig" "$p"
	wait_exit "$p" "report of long.rec, SIG$sig"
	expect_stopped "$sig" report "$T/long-$sig.err" "SIG$sig during a replay"
	n=$(grep -c '^\[.*\] Top ' "$T/long-$sig.out")
	echo "SIG$sig: the replay stopped after $n of 720,001 interval reports"
	[ "$n" -lt 720001 ] || fail "SIG$sig: the replay ran to its end ($n reports)"
	expect_line '^[0-9,]+ samples, lost 0 events' "$T/long-$sig.out"
done

# Every replay stops at SIGINT and SIGTERM, whatever the tool: heap and
# flamegraph too.  The signal is sent at report's last open of the
# recording, the replay's own (its handlers installed by then), where
# open-hook holds it: no clock.  The replay must stop at once: the report
# of what it replayed by then (nothing: "0 samples", where the whole
# recording says 103) printed, the page written, the stop line, exit
# 128 + N.  (open-hook counts the opens in a first run, so a change in
# how often report opens the file moves the hook with it.)
OH=$(target open-hook)
nopen=$("$OH" -n 1000 "$T/a.rec" true "$FAULTLINE" report -i "$T/a.rec" heap 2>&1 >/dev/null |
	sed -n 's/^open-hook: .* opened \([0-9]*\) times, not 1000$/\1/p')
[ -n "$nopen" ] || fail "open-hook could not count report's opens of the recording"
for what in heap "flamegraph -o @"; do
	name=${what%% *}
	for sig in INT TERM; do
		rm -f "$T/stop.html"
		echo "+ open-hook -n $nopen (kill -$sig) faultline report -i a.rec $what"
		rc=0
		"$OH" -n "${nopen:-1}" "$T/a.rec" "kill -$sig \$OPEN_HOOK_PID" "$FAULTLINE" report \
			-i "$T/a.rec" $(echo "$what" | sed "s|@|$T/stop.html|") >"$T/out" 2>"$T/err" || rc=$?
		expect_line '^open-hook: hooked$' "$T/err"
		expect_stopped "$sig" report "$T/err" "$name stopped at the replay's start"
		expect_eq "$(grep -vc '^open-hook:' "$T/err")" 1 "$name, SIG$sig: lines on stderr"
		if [ "$name" = heap ]; then
			expect_line '^0 samples, lost 0 events' "$T/out"
		else
			expect_line '</html>' "$T/stop.html"
		fi
	done
done
# Unhooked, the same run replays the whole recording.
run_fl report -i "$T/a.rec" heap
expect_line '^103 samples, lost 0 events' "$T/out"

# --json counts it with the bad records.
run_fl report -i "$T/time.rec" heap --json
expect_line '"type":"summary".*"bad_records":1,' "$T/out"
pass_or_fail
