#!/bin/sh
# faultline's flame graph page, laid out by headless Chromium (Debian's
# chromium): from a `record -e leak` recording of flame-target (whose
# sites differ in every measure: see tests/targets/flame-target.c), from
# `leak --flamegraph` live, and from a `record -e faults` recording of
# fault-target.  The page writes each frame's value and laid-out width
# into data attributes (--dump-dom shows them); flamegraph-check.py holds
# every frame to value / total * width, and the named sites to the
# target's truth, in each weight, zoomed, searched and inverted.  The
# totals are faultline heap's (report heap --json) and faults' (--folded).
# In each weight the legend names what the width is, and the bottom-up
# view draws the top-down tree turned over (checked frame by frame
# against the embedded data), each function next to the root as wide as
# its self weight top-down, the sites at their truth.  The chart of live
# bytes under the graph marks heap's peak at heap's peak time exactly,
# ends at heap's leaks and runtime, in IEC units and seconds, also for a
# run of 19,500 changes drawn from at most 1020 points (growth-target,
# its peak early: a spike, its own count).
# The page loads with no error (its window.onerror counts into the DOM,
# and Chromium's console log is read too) and fetches nothing.  A
# screenshot is kept in the build directory: tests/flamegraph.png.
. "$top_srcdir/tests/system/lib.sh"
need_root
CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	skip "no chromium (scripts/install-deps installs it)"
command -v python3 >/dev/null 2>&1 || skip "no python3"
CHECK=$top_srcdir/tests/system/flamegraph-check.py
FT=$(target flame-target)
W=1200

# dom PAGE HASH: the page as Chromium laid it out, into $T/dom.html; its
# console messages into $T/console.
dom() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$T/chromium" --window-size=$W,900 \
		--enable-logging=stderr --v=0 --dump-dom "file://$1#$2" \
		>"$T/dom.html" 2>"$T/chromium.err" || fail "chromium --dump-dom $1#$2 failed: $(tail -n 2 "$T/chromium.err")"
	grep 'CONSOLE' "$T/chromium.err" >"$T/console" || :
	[ -s "$T/console" ] && fail "console messages on $2: $(head -n 3 "$T/console")"
	return 0
}

# view PAGE HASH WEIGHT [NAME=VALUE]...: dom, then the checks; the frames
# into $T/frames.
view() {
	local page=$1 hash=$2
	shift 2
	dom "$page" "$hash"
	python3 "$CHECK" view "$T/dom.html" "$@" >"$T/frames" 2>"$T/check.err" ||
		fail "#$hash: $(cat "$T/check.err")"
}

# frame FIELD NAME: a field (value width x top class) of frame NAME in
# $T/frames.
frame() {
	awk -v f="$1" -v n="$2" '$1 == "frame" && $2 == n {
		i = f == "value" ? 3 : f == "width" ? 4 : f == "x" ? 5 : f == "top" ? 6 : 7
		print $i; exit }' "$T/frames"
}

heap_total() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("type") == "heap_summary":
        print(o[sys.argv[2]])' "$T/heap.json" "$1"
}

# 1. From a recording: the truth of flame-target, per weight.
run_fl record -e leak -o "$T/f.rec" -c "$FT"
expect_eq "$rc" 0 "record flame-target status"
cp "$T/out" "$T/truth"
truth() { sed -n "s/^site fn=$1 .*$2=\([0-9]*\).*/\1/p" "$T/truth"; }
expect_eq "$(truth leak_a leaked)" 3000 "flame-target's truth"
run_fl report -i "$T/f.rec" heap --json
expect_eq "$rc" 0 "report heap status"
cp "$T/out" "$T/heap.json"
run_fl report -i "$T/f.rec" flamegraph -o "$T/f.html"
expect_eq "$rc" 0 "report flamegraph status"
[ -s "$T/f.html" ] || fail "report flamegraph wrote no page: $(cat "$T/err")"
expect_no_line '(src|href)=|https?:|@import|url\(' "$T/f.html"

# legend WHAT PHRASE: the legend in $T/dom.html says the width is PHRASE.
legend() {
	case "$(python3 "$CHECK" text "$T/dom.html" legend-width)" in
	"width: $2: "*) ;;
	*) fail "$1: the legend says '$(python3 "$CHECK" text "$T/dom.html" legend-width)', not 'width: $2: ...'" ;;
	esac
}

idx=0
for w in leaked:leaked_bytes:leaked:leaked_bytes peak:peak_bytes:peak:bytes_live_at_the_peak \
	allocations:calls:calls:allocation_calls temporary:temporary:temporary:temporary_allocations; do
	key=${w%%:*} sum=${w#*:} sum=${sum%%:*} tr=${w#*:*:} tr=${tr%%:*}
	phrase=$(echo "${w##*:}" | tr _ ' ')
	# calls is the hash's other name for allocations
	hash=weight=$key
	[ "$key" = allocations ] && hash=weight=calls
	view "$T/f.html" "$hash" "$key" "leak_a=$(truth leak_a "$tr")" \
		"leak_b=$(truth leak_b "$tr")" "hold_d=$(truth hold_d "$tr")" \
		"temp_c=$(truth temp_c "$tr")"
	expect_eq "$(frame value all)" "$(heap_total "$sum")" "#$hash: the root against report heap's $sum"
	# A flame: the root at the bottom, the sites above work.
	[ "$(frame top all)" -gt "$(frame top work)" ] || fail "#$hash: the root is not below work"
	legend "#$hash" "$phrase"
	expect_eq "$(python3 "$CHECK" attr "$T/dom.html" legend-view view)" top-down "#$hash: the legend's view"
	# Bottom-up: the sites at the root, each at its truth, the same total.
	view "$T/f.html" "$hash&bottomup=1" "$key" "leak_a=$(truth leak_a "$tr")" \
		"leak_b=$(truth leak_b "$tr")" "hold_d=$(truth hold_d "$tr")" \
		"temp_c=$(truth temp_c "$tr")"
	python3 "$CHECK" bottomup "$T/dom.html" "$T/f.html" $idx >"$T/roots" 2>"$T/check.err" ||
		fail "#$hash&bottomup=1: $(cat "$T/check.err")"
	for site in leak_a leak_b hold_d temp_c; do
		want=$(truth $site "$tr")
		[ "$want" = 0 ] && want=
		expect_eq "$(awk -v n=$site '$2 == n { print $3 }' "$T/roots")" "$want" \
			"#$hash&bottomup=1: $site next to the root"
	done
	expect_eq "$(frame value all)" "$(heap_total "$sum")" "#$hash&bottomup=1: the root"
	legend "#$hash&bottomup=1" "$phrase"
	expect_eq "$(python3 "$CHECK" attr "$T/dom.html" legend-view view)" bottom-up \
		"#$hash&bottomup=1: the legend's view"
	idx=$((idx + 1))
done

# The chart of live bytes: heap's peak at heap's time, its leaks, its
# runtime (memory checks them against report heap --json); the peak is
# the target's: what its sites held at once.  (Every view draws it: this
# is the last one's.)
python3 "$CHECK" memory "$T/dom.html" "$T/f.html" "$T/heap.json" >"$T/mem" 2>"$T/check.err" ||
	fail "the chart: $(cat "$T/check.err")"
expect_eq "$(python3 "$CHECK" attr "$T/dom.html" peak bytes)" \
	$(($(truth leak_a peak) + $(truth leak_b peak) + $(truth hold_d peak))) "the chart's peak against flame-target's"

# Leaked: leak_a holds 3/4 of what the sites leaked, leak_b 1/4, and the
# chart is the window's width less the body's margins.
view "$T/f.html" weight=leaked leaked leak_a=3000 leak_b=1000
chart_w=$(python3 "$CHECK" attr "$T/dom.html" chart width)
expect_eq "$chart_w" $((W - 20)) "chart width"
# (each width within a layout unit, 1/64 px, of what was asked)
awk -v a="$(frame width leak_a)" -v b="$(frame width leak_b)" -v r="$(frame width all)" \
	-v s="$(heap_total leaked_bytes)" 'BEGIN {
	if (a - 3 * b > 0.07 || 3 * b - a > 0.07) { print "leak_a " a " is not 3 x leak_b " b; exit 1 }
	if (a + b - r * 4000 / s > 0.035 || r * 4000 / s - a - b > 0.035) { print "leak_a + leak_b != 4000/" s " of the root"; exit 1 } }' >"$T/msg" ||
	fail "leaked widths: $(cat "$T/msg")"

# Search: leak_ marks leak_a and leak_b; in peak they hold 4000 of the
# peak's bytes.
view "$T/f.html" "weight=peak&search=leak_" peak leak_a=3000 leak_b=1000 hold_d=6000
expect_eq "$(python3 "$CHECK" attr "$T/dom.html" matched frames)" 2 "#search=leak_: frames marked"
expect_eq "$(grep -c ' leak_[ab] .*match' "$T/frames")" 2 "#search=leak_: leak_a and leak_b marked"
pct=$(awk -v s="$(heap_total peak_bytes)" 'BEGIN { printf "%.2f", 100 * 4000 / s }')
expect_eq "$(python3 "$CHECK" attr "$T/dom.html" matched pct)" "$pct" "#search=leak_: matched %"
expect_eq "$(grep -c ' hold_d .*match' "$T/frames")" 0 "#search=leak_: hold_d not marked"

# Zoom: leak_b full width, its ancestors dimmed, its siblings gone.
view "$T/f.html" "weight=calls&zoom=leak_b" allocations leak_b=4 leak_a=0 temp_c=0
expect_eq "$(frame width leak_b)" "$chart_w.000" "#zoom=leak_b: leak_b's width"
expect_eq "$(frame class work)" "f,above" "#zoom=leak_b: work dimmed"

# Inverted: an icicle, the root at the top.
view "$T/f.html" "weight=temporary&inverted=1" temporary temp_c=5 leak_a=0
expect_eq "$(frame top all)" 0 "#inverted: the root's top"
[ "$(frame top temp_c)" -gt "$(frame top work)" ] || fail "#inverted: temp_c is not below work"

timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$T/chromium" \
	--window-size=$W,320 --screenshot="$top_builddir/tests/flamegraph.png" \
	"file://$T/f.html#weight=peak&search=leak_" >/dev/null 2>&1 ||
	fail "chromium --screenshot failed"
[ "$(head -c 4 "$top_builddir/tests/flamegraph.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
	fail "no PNG screenshot in tests/flamegraph.png"

# A long run: growth-target's 3000 steps (12,001 calls, 7,501 frees) after
# a spike of 4,000,000 bytes, freed at once; the chart still marks heap's
# peak (the spike's, the target's own count) from at most 1020 points.
run_fl record -e leak -o "$T/g.rec" -c "$(target growth-target) --steps 3000 --spike 4000000"
expect_eq "$rc" 0 "record growth-target status"
gpeak=$(sed -n 's/^peak_bytes=//p' "$T/out")
gleaked=$(sed -n 's/^leaked_bytes=//p' "$T/out")
run_fl report -i "$T/g.rec" heap --json
expect_eq "$rc" 0 "report heap growth-target status"
cp "$T/out" "$T/gheap.json"
run_fl report -i "$T/g.rec" flamegraph -o "$T/g.html"
expect_eq "$rc" 0 "report flamegraph growth-target status"
dom "$T/g.html" weight=peak
python3 "$CHECK" memory "$T/dom.html" "$T/g.html" "$T/gheap.json" >"$T/mem" 2>"$T/check.err" ||
	fail "growth-target's chart: $(cat "$T/check.err")"
read -r _ points _ changes _ bytes _ <"$T/mem"
expect_eq "$bytes" "$gpeak" "growth-target's chart: the peak against the target's"
gsum() {
	python3 -c 'import json, sys
print(sum([json.loads(l) for l in open(sys.argv[1]) if "heap_summary" in l][0][k] for k in sys.argv[2:]))' \
		"$T/gheap.json" "$@"
}
expect_eq "$(gsum leaked_bytes)" "$gleaked" "growth-target: heap's leaks against the target's"
expect_eq "$changes" "$(gsum calls frees)" "growth-target's chart: a change for each call and free"
[ "$changes" -gt 19000 ] || fail "growth-target's chart: only $changes changes"
[ "$points" -le 1020 ] && [ "$points" -gt 100 ] || fail "growth-target's chart: $points points"

# 2. Live: leak --flamegraph writes the same sites, and leak's report.
run_fl leak --flamegraph "$T/l.html" -c "$FT"
expect_eq "$rc" 0 "leak --flamegraph status"
expect_line '^	3000 bytes in 1 allocations from stack' "$T/out"
for s in leak_a:0:3000 leak_b:0:1000 hold_d:1:6000 leak_b:2:4 temp_c:3:5; do
	n=${s%%:*} i=${s#*:} i=${i%%:*} v=${s##*:}
	expect_eq "$(python3 "$CHECK" sum "$T/l.html" "$n" "$i")" "$v" "leak --flamegraph: $n, weight $i"
done
view "$T/l.html" "" leaked leak_a=3000 leak_b=1000
expect_eq "$(python3 "$CHECK" attr "$T/dom.html" peak bytes)" 10000 "leak --flamegraph: the chart's peak"

# 3. Faults, from a recording of fault-target: the root is every fault
# faults --folded counts; touch_big's 100 pages less those resident.
run_fl record -e faults -o "$T/faults.rec" -c "$(target fault-target)"
expect_eq "$rc" 0 "record fault-target status"
cp "$T/out" "$T/faults.truth"
touched=$(sed -n 's/^site fn=alloc_big .*touched_pages=\([0-9]*\)$/\1/p' "$T/faults.truth")
resident=$(sed -n 's/^resident fn=alloc_big before_touch=\([0-9]*\)$/\1/p' "$T/faults.truth")
run_fl report -i "$T/faults.rec" faults --folded
expect_eq "$rc" 0 "report faults --folded status"
folded=$(awk '{ n += $NF } END { print n }' "$T/out")
run_fl report -i "$T/faults.rec" faults --folded --major
major=$(awk '{ n += $NF } END { print n + 0 }' "$T/out")
run_fl report -i "$T/faults.rec" flamegraph -e faults -o "$T/faults.html"
expect_eq "$rc" 0 "report flamegraph -e faults status"
expect_eq "$(python3 "$CHECK" sum "$T/faults.html" all 0)" "$folded" "faults page: the root"
expect_eq "$(python3 "$CHECK" sum "$T/faults.html" all 1)" "$major" "faults page: major faults"
view "$T/faults.html" weight=faults faults all="$folded" touch_big=$((touched - resident))
legend "faults page" "page faults"
expect_eq "$(python3 "$CHECK" attr "$T/dom.html" memsvg points)" "" "faults page: no chart of live bytes"
view "$T/faults.html" "weight=major&bottomup=1" major
legend "faults page, major" "major page faults"
python3 "$CHECK" bottomup "$T/dom.html" "$T/faults.html" 1 >"$T/roots" 2>"$T/check.err" ||
	fail "faults page, bottom-up: $(cat "$T/check.err")"
view "$T/faults.html" "weight=faults&bottomup=1" faults all="$folded"
python3 "$CHECK" bottomup "$T/dom.html" "$T/faults.html" 0 >"$T/roots" 2>"$T/check.err" ||
	fail "faults page, bottom-up: $(cat "$T/check.err")"
# -p: the forked child's faults only, as faults -p counts them.
child=$(sed -n 's/^child_pid=//p' "$T/faults.truth")
run_fl report -i "$T/faults.rec" faults --folded -p "$child"
want=$(awk '{ n += $NF } END { print n + 0 }' "$T/out")
[ "$want" -gt 0 ] || fail "faults -p $child: no fault of the child"
run_fl report -i "$T/faults.rec" flamegraph -e faults -p "$child" -o "$T/child.html"
expect_eq "$(python3 "$CHECK" sum "$T/child.html" all 0)" "$want" "faults page -p child: the root"

# Bad input: one line on stderr, the status of its kind, no page.
one_line() {	# WHAT RC REGEX
	expect_eq "$rc" "$2" "$1: exit status"
	expect_eq "$(grep -c . "$T/err")" 1 "$1: lines on stderr"
	expect_line "$3" "$T/err"
	[ -e "$T/x.html" ] && fail "$1: a page was written"
	return 0
}
run_fl flamegraph -e faults -o "$T/x.html" -c "$FT"
one_line "live -e faults" 2 '^faultline flamegraph: -e faults reads a recording'
run_fl flamegraph -c "$FT"
one_line "no -o" 2 '^faultline flamegraph: where to\? -o FILE is missing$'
run_fl report -i "$T/f.rec" flamegraph -e bogus -o "$T/x.html"
one_line "-e bogus" 2 "^faultline flamegraph: -e is leak or faults, not 'bogus'"
run_fl report -i "$T/f.rec" flamegraph -o "$T/none/x.html"
one_line "unwritable -o" 1 "^faultline flamegraph: cannot create '$T/none/x.html': No such file or directory$"
run_fl report -i "$T/faults.rec" flamegraph -o "$T/x.html"
one_line "-e leak on a faults recording" 1 'holds no events for it \(recorded: faults\)$'
run_fl leak -s 10 --flamegraph "$T/x.html" -c "$FT"
one_line "leak -s with --flamegraph" 2 '^faultline leak: --flamegraph counts every allocation: not with -s$'

pass_or_fail
