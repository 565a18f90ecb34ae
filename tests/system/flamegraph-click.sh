#!/bin/sh
# The flame graph page under real clicks and typing: headless Chromium
# driven by chromedriver (Debian's chromium-driver) over WebDriver's HTTP,
# by flamegraph-click.py, on a recording of flame-target.  A click on a
# frame zooms it to the chart's width and reset zoom undoes it, a weight
# button switches the weight and the URL hash, typing in the search box
# marks the frames and the share, the bottom-up button turns the graph
# over (the sites next to the root) and back, the inverted button flips it;
# the page reports no error.  (flamegraph.sh checks the same views asked
# for by the hash, frame by frame.)
. "$top_srcdir/tests/system/lib.sh"
need_root
CHROMIUM=$(command -v chromium || command -v chromium-browser) ||
	skip "no chromium (scripts/install-deps installs it)"
DRIVER=$(command -v chromedriver) || skip "no chromedriver (Debian's chromium-driver)"
command -v python3 >/dev/null 2>&1 || skip "no python3"

run_fl record -e leak -o "$T/f.rec" -c "$(target flame-target)"
expect_eq "$rc" 0 "record flame-target status"
run_fl report -i "$T/f.rec" flamegraph -o "$T/f.html"
expect_eq "$rc" 0 "report flamegraph status"
timeout 300 python3 "$top_srcdir/tests/system/flamegraph-click.py" "$DRIVER" "$CHROMIUM" \
	"$T/f.html" "$T/chromium" >"$T/click.out" 2>&1 ||
	fail "clicks on the page: $(cat "$T/click.out")"
pass_or_fail
