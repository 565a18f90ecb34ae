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
  flamegraph-check.py text DOM ID           an element's text
  flamegraph-check.py sum HTML NAME INDEX   the embedded data: the sum of
      weight INDEX over the nodes named NAME ("all": the root)
  flamegraph-check.py bottomup DOM HTML INDEX
      DOM shows the bottom-up view of weight INDEX: its frames are those of
      the embedded top-down tree turned over here (each node's self weight
      down the path from it to the outermost frame), each drawn once at
      its depth with its value, every one wide enough to be drawn (and
      its parent drawn) and no other; the root's children, one per
      innermost function, weigh what that function's frames weigh by
      themselves (their self weights) in the top-down tree.  Prints "root
      NAME VALUE" for each.
  flamegraph-check.py memory DOM HTML HEAPJSON
      The chart under the graph against the embedded series and against
      faultline heap --json's summary (HEAPJSON) on the same run: its
      marked peak (#peak data-bytes, data-time) is the series' first
      highest point, is heap's peak_bytes at heap's peak_time_s (the same
      text), its label says both, the series ends at heap's leaked_bytes
      and the run at heap's runtime_s; the y axis in IEC units, the x
      axis in seconds, and no more than 1020 points.  Prints "points N
      changes N peak BYTES TIME".
Exits non-zero with the differences on stderr.
"""
import html.parser, json, re, sys

# Chromium's LayoutUnit is 1/64 px: each edge of a box is snapped to one,
# so a laid-out width or x is within one of what was asked (measured: 2.906
# for 2.9160), and the 3 decimals written.
SLACK = 1 / 64 + 0.0015


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Dom(html.parser.HTMLParser):
    """Frames, elements by id (attributes, and text in "#text"), and the
    texts of the chart's tick labels by class."""
    def __init__(self):
        super().__init__()
        self.frames, self.ids, self.open, self.ticks = [], {}, [], {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids[a["id"]] = a
            a["#text"] = ""
        if tag == "div" and "f" in a.get("class", "").split():
            self.frames.append(a)
        if tag not in VOID:
            self.open.append(a)

    def handle_endtag(self, tag):
        if tag not in VOID and self.open:
            self.open.pop()

    def handle_data(self, data):
        for a in self.open:
            if "#text" in a:
                a["#text"] += data
        if self.open and self.open[-1].get("class") in ("xtick", "ytick"):
            self.ticks.setdefault(self.open[-1]["class"], []).append(data)


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


def data_text(path):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S)
    if not m:
        sys.exit("%s: no embedded data" % path)
    return m.group(1)


def data_sum(path, name, idx):
    root = json.loads(data_text(path))["root"]
    total, todo = 0, [root]
    while todo:
        n = todo.pop()
        if n["n"] == name:
            total += n["v"][idx]
        todo.extend(n.get("c", []))
    print(total)


def text(path, ident):
    print(load(path).ids.get(ident, {}).get("#text", "").strip())


def self_weights(root, idx):
    """name -> the sum of its nodes' self weights in weight idx."""
    out, todo = {}, [root]
    while todo:
        n = todo.pop()
        kids = n.get("c", [])
        own = n["v"][idx] - sum(c["v"][idx] for c in kids)
        if n is not root and own:
            out[n["n"]] = out.get(n["n"], 0) + own
        todo.extend(kids)
    return out


def turn_over(root, idx):
    """The bottom-up tree: each node's self weight down its path back to
    the outermost frame.  Nodes as {"n", "v", "c": {name: node}}."""
    up = {"n": root["n"], "v": root["v"][idx], "c": {}}
    todo = [(root, [])]
    while todo:
        n, path = todo.pop()
        kids = n.get("c", [])
        own = n["v"][idx] - sum(c["v"][idx] for c in kids)
        if n is not root and own:
            at = up
            for name in reversed(path + [n["n"]]):
                at = at["c"].setdefault(name, {"n": name, "v": 0, "c": {}})
                at["v"] += own
        todo.extend((c, path + [n["n"]] if n is not root else []) for c in kids)
    return up


def bottomup(dom, page, idx):
    d, root = load(dom), json.loads(data_text(page))["root"]
    errs = []
    chart = d.ids.get("chart", {})
    if chart.get("data-view") != "bottom-up":
        errs.append("view %r, want bottom-up" % chart.get("data-view"))
    total, width = float(chart["data-total"]), float(chart["data-width"])
    # What should be drawn: (depth, name, value), a node when wide enough
    # and its parent drawn.
    want, todo = [], [(turn_over(root, idx), 0)]
    while todo:
        n, dep = todo.pop()
        if not total or n["v"] / total * width < 0.1:
            continue
        want.append((dep, n["n"], n["v"]))
        todo.extend((c, dep + 1) for c in n["c"].values())
    got = [(int(f["data-depth"]), f["data-name"], int(f["data-value"])) for f in d.frames
           if "above" not in f["class"]]
    if sorted(got) != sorted(want):
        errs.append("frames drawn %s, want %s" % (sorted(set(got) - set(want)),
                                                  sorted(set(want) - set(got))))
    selfw = self_weights(root, idx)
    roots = {name: v for dep, name, v in got if dep == 1}
    if len(roots) != len([1 for dep, _, _ in got if dep == 1]):
        errs.append("a function drawn twice next to the root")
    for name, v in sorted(roots.items()):
        if selfw.get(name) != v:
            errs.append("root %s: %d, its self weight top-down is %s" % (name, v, selfw.get(name)))
        print("root %s %d" % (name, v))
    for name, v in selfw.items():
        if v / total * width >= 0.1 and name not in roots:
            errs.append("%s (self weight %d) is not a root" % (name, v))
    if errs:
        sys.exit("\n".join("%s: %s" % (dom, e) for e in errs))


def memory(dom, page, heap_json):
    d, raw = load(dom), data_text(page)
    series = json.loads(raw).get("series")
    summ = [l for l in open(heap_json) if '"type":"heap_summary"' in l]
    if not series or len(summ) != 1:
        sys.exit("%s: no series, or %s: no heap_summary" % (page, heap_json))
    summ = summ[0]
    heap = json.loads(summ)
    # heap's times as it wrote them, text for text
    htext = dict(re.findall(r'"(peak_time_s|runtime_s)":([0-9.]+)', summ))
    # the embedded points, their times as written
    stext = re.search(r'"series":\{.*?"end":([0-9.]+),.*?"points":\[(.*?)\]\}', raw).groups()
    pts = re.findall(r'\[([0-9.]+),([0-9]+)\]', stext[1])
    errs = []
    if len(pts) != len(series["points"]) or len(pts) > 1020:
        errs.append("%d points (%d parsed), at most 1020" % (len(series["points"]), len(pts)))
    best = None
    for t, v in pts:
        if best is None or int(v) > int(best[1]):
            best = (t, v)
    peak = d.ids.get("peak")
    if not best or not peak:
        sys.exit("%s: no point, or no #peak drawn" % dom)
    if (peak.get("data-bytes"), peak.get("data-time")) != (best[1], best[0]):
        errs.append("#peak %s at %s, the series' highest %s at %s" %
                    (peak.get("data-bytes"), peak.get("data-time"), best[1], best[0]))
    if int(best[1]) != heap["peak_bytes"] or best[0] != htext["peak_time_s"]:
        errs.append("peak %s at %s, heap's %d at %s" % (best[1], best[0], heap["peak_bytes"],
                                                       htext["peak_time_s"]))
    want = ("peak %s B" % format(int(best[1]), ","), " at %s s" % best[0])
    if not all(w in peak["#text"] for w in want):
        errs.append("peak label %r does not say %r" % (peak["#text"], " ...".join(want)))
    if int(pts[-1][1]) != heap["leaked_bytes"]:
        errs.append("the series ends at %s, heap leaked %d" % (pts[-1][1], heap["leaked_bytes"]))
    if stext[0] != htext["runtime_s"]:
        errs.append("the run ends at %s, heap's runtime %s" % (stext[0], htext["runtime_s"]))
    ys, xs = d.ticks.get("ytick", []), d.ticks.get("xtick", [])
    if len(ys) < 2 or not all(re.fullmatch(r"[0-9.]+ (B|KiB|MiB|GiB|TiB)", y) for y in ys):
        errs.append("y axis %s, not in IEC units" % ys)
    if len(xs) < 2 or not all(re.fullmatch(r"[0-9.]+ s", x) for x in xs):
        errs.append("x axis %s, not in seconds" % xs)
    print("points %d changes %d peak %s %s" % (len(pts), series["changes"], best[1], best[0]))
    if errs:
        sys.exit("\n".join("%s: %s" % (dom, e) for e in errs))


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "view" and len(sys.argv) >= 4:
        view(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "attr" and len(sys.argv) == 5:
        attr(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "text" and len(sys.argv) == 4:
        text(sys.argv[2], sys.argv[3])
    elif cmd == "sum" and len(sys.argv) == 5:
        data_sum(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == "bottomup" and len(sys.argv) == 5:
        bottomup(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == "memory" and len(sys.argv) == 5:
        memory(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
