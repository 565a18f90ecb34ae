#!/usr/bin/env python3
"""flamegraph-check: read faultline's flame graph page, as headless
Chromium laid it out (--dump-dom) or as faultline wrote it, for
tests/system/flamegraph.sh.

usage:
  flamegraph-check.py view DOM WEIGHT [NAME=VALUE]...
      The page ran without an error (window.onerror counts into
      #errors), shows weight WEIGHT, and every frame drawn is as wide as
      its value's share of the chart (value / total * width, to the
      browser's layout unit: Chromium lays out in 1/64 px), sits at its parent's x or
      after its previous sibling, and its children fit in it.  NAME=VALUE:
      the frame NAME is drawn once with that value (VALUE 0: not drawn).
      Prints "total=N width=W frames=N" and one line per frame:
      "frame NAME VALUE WIDTH X TOP CLASS".
  flamegraph-check.py attr DOM ID ATTR      an element's data-ATTR
  flamegraph-check.py sum HTML NAME INDEX   the embedded data: the sum of
      weight INDEX over the nodes named NAME ("all": the root)
Exits non-zero with the differences on stderr.
"""
import html.parser, json, re, sys

# Chromium's LayoutUnit is 1/64 px: each edge of a box is snapped to one,
# so a laid-out width or x is within one of what was asked (measured: 2.906
# for 2.9160), and the 3 decimals written.
SLACK = 1 / 64 + 0.0015


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.frames, self.ids = [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids[a["id"]] = a
        if tag == "div" and "f" in a.get("class", "").split():
            self.frames.append(a)


def load(path):
    d = Dom()
    d.feed(open(path, encoding="utf-8").read())
    return d


def top_of(f):
    m = re.search(r"top:\s*([0-9.]+)px", f.get("style", ""))
    return float(m.group(1)) if m else -1


def view(path, weight, expect):
    d = load(path)
    errs = []
    chart, errors = d.ids.get("chart"), d.ids.get("errors")
    if not chart or not errors:
        sys.exit("%s: no #chart or #errors: the page did not load" % path)
    if errors.get("data-count") != "0":
        errs.append("page errors: %s" % errors.get("data-count"))
    if chart.get("data-weight") != weight:
        errs.append("weight %s, want %s" % (chart.get("data-weight"), weight))
    total, width = float(chart["data-total"]), float(chart["data-width"])
    zoom = chart.get("data-zoom")
    top = None
    for f in d.frames:
        if zoom and f["data-name"] == zoom:
            top = float(f["data-value"])
    denom = top if zoom else total
    for f in d.frames:
        v, w = float(f["data-value"]), float(f["data-width"])
        want = width if "above" in f["class"] else v / denom * width
        if abs(w - want) > SLACK:
            errs.append("%s: width %.3f, want %.4f (%g of %g over %g px)" %
                        (f["data-name"], w, want, v, denom, width))
    # Frames by depth: each child starts where its previous sibling ended,
    # inside its parent.
    drawn = [f for f in d.frames if "above" not in f["class"]]
    for f in drawn:
        dep, x, w = int(f["data-depth"]), float(f["data-x"]), float(f["data-width"])
        parents = [p for p in drawn if int(p["data-depth"]) == dep - 1 and
                   float(p["data-x"]) - SLACK <= x < float(p["data-x"]) + float(p["data-width"]) - SLACK]
        if dep > int(drawn[0]["data-depth"]) and len(parents) != 1:
            errs.append("%s at x %.3f: %d parents" % (f["data-name"], x, len(parents)))
        elif parents and x + w > float(parents[0]["data-x"]) + float(parents[0]["data-width"]) + 2 * SLACK:
            errs.append("%s overflows its parent %s" % (f["data-name"], parents[0]["data-name"]))
    for e in expect:
        name, val = e.split("=")
        got = [f for f in d.frames if f["data-name"] == name and "above" not in f["class"]]
        if int(val) == 0:
            if got:
                errs.append("%s drawn with value %s, want none" % (name, got[0]["data-value"]))
        elif len(got) != 1 or got[0]["data-value"] != val:
            errs.append("%s: %s, want one frame of %s" % (name, [g["data-value"] for g in got], val))
    print("total=%d width=%g frames=%d" % (total, width, len(d.frames)))
    for f in d.frames:
        print("frame %s %s %s %s %g %s" % (f["data-name"], f["data-value"], f["data-width"],
                                           f["data-x"], top_of(f), f["class"].replace(" ", ",")))
    if errs:
        sys.exit("\n".join("%s: %s" % (path, e) for e in errs))


def attr(path, ident, name):
    print(load(path).ids.get(ident, {}).get("data-" + name, ""))


def data_sum(path, name, idx):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S)
    if not m:
        sys.exit("%s: no embedded data" % path)
    root = json.loads(m.group(1))["root"]
    total, todo = 0, [root]
    while todo:
        n = todo.pop()
        if n["n"] == name:
            total += n["v"][idx]
        todo.extend(n.get("c", []))
    print(total)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "view" and len(sys.argv) >= 4:
        view(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "attr" and len(sys.argv) == 5:
        attr(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "sum" and len(sys.argv) == 5:
        data_sum(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        sys.exit(__doc__)
