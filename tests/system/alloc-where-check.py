#!/usr/bin/env python3
"""alloc-where-check: a tool's report of alloc-where (tests/targets/alloc-where.c)
against the target's own account, for alloc-where-tools.sh.

usage: alloc-where-check.py TOOL OUTPUT TRUTH OTHERS
  TOOL    leak      leak --json -T 1000 (live, or report -i F leak --json)
          heap      heap --json -n 1000 -s 1000
          flame     the page of flamegraph -o F (its embedded data)
          faults    faults --by-alloc --json
  OUTPUT  the tool's output (for flame: the page)
  TRUTH   the target's stdout: "site fn=F calls=N frees=N temporary=N
          peak=B leaked=B leaked_count=N" per allocating function (grab,
          churn, make), the same for the program, touched_bytes=,
          touched_pages=, resident=
  OTHERS  what else the process may allocate besides the target's sites:
          none     nothing (the totals are the target's, exactly)
          premain  blocks made before main: their stacks hold no main
                   frame (tcmalloc's constructors, libstdc++'s pool)
          dlopen   the dynamic linker's own, under dlopen
Per site (a stack's innermost frame, as the tool gives it), exactly the
target's figures: leak's bytes and blocks outstanding; heap's calls,
temporary allocations, bytes at the peak and leaked; the flame graph's
leaked, peak, allocations and temporary under the frames of that name;
faults: grab's block took one fault per page touch wrote, none resident
before.  And the tool's totals are the sites' plus the others' (OTHERS
none: the target's own), and nothing was lost.
Exits non-zero with the differences on stderr.
"""
import json, re, sys

SITES = ("grab", "churn", "make")
# Regions an allocator mapped for itself (leak's mmap and brk kinds).
SELF_MAPPED = {"mmap", "mmap64", "__mmap", "mremap", "brk", "__brk", "sbrk"}


def truth_of(path):
    sites, total, kv = {}, None, {}
    for l in open(path):
        l = l.strip()
        m = re.match(r"(?:site fn=(\w+) )?calls=(\d+) frees=(\d+) temporary=(\d+) peak=(\d+) "
                     r"leaked=(\d+) leaked_count=(\d+)$", l)
        if m:
            v = dict(zip(("calls", "frees", "temporary", "peak", "leaked", "leaked_count"),
                         map(int, m.groups()[1:])))
            if m.group(1):
                sites[m.group(1)] = v
            else:
                total = v
            continue
        m = re.match(r"(\w+)=(\d+)$", l)
        if m:
            kv[m.group(1)] = int(m.group(2))
    if set(sites) != set(SITES) or not total:
        sys.exit("%s: no account of the target (sites %s)" % (path, sorted(sites)))
    return sites, total, kv


def name(sym):
    return sym.split("+")[0].split(" ")[0]


def other_ok(names, others):
    """Whether a stack (innermost first) of no site may be there."""
    if others == "premain":
        return "main" not in names
    if others == "dlopen":
        return any(n in ("dlopen", "_dl_open", "dlopen_doit") for n in names)
    return False


def lines(path):
    for l in open(path):
        if l.startswith("{"):
            yield json.loads(l)


def collect(path, stack_of, keys, summary_type, others):
    """The stacks of OUTPUT (stack_of(o): its frames' names, or None for a
    line that is not one of them) summed by site in KEYS, and the others';
    the tool's summary line (SUMMARY_TYPE); the differences so far."""
    got = {s: {k: 0 for k in keys} for s in SITES}
    oth = {k: 0 for k in keys}
    summary = tool_summary = None
    errs = []
    for o in lines(path):
        names = stack_of(o)
        if names is not None:
            into = got.get(names[0]) if names else None
            if into is None:
                if not other_ok(names, others):
                    errs.append("%s not of the target's sites: %s" % (
                        ", ".join("%s %d" % (k, o[k]) for k in keys), names))
                into = oth
            for k in keys:
                into[k] += o[k]
        elif o["type"] == summary_type:
            tool_summary = o
        elif o["type"] == "summary":
            summary = o
    if not summary or summary["lost"] or not tool_summary:
        sys.exit("no summary, or events lost: %s" % summary)
    return got, oth, tool_summary, errs


def leak_stack(o):
    if o["type"] != "stack":
        return None
    names = [name(f["sym"]) for f in o["stack"]]
    # The allocator's own regions are leak's mmap and brk kinds.
    return None if names and names[0] in SELF_MAPPED else names


def leak(path, sites, total, kv, others):
    got, oth, s, errs = collect(path, leak_stack, ("bytes", "allocations"), "leak_summary", others)
    for site in SITES:
        want = {"bytes": sites[site]["leaked"], "allocations": sites[site]["leaked_count"]}
        if got[site] != want:
            errs.append("%s: %s, want %s" % (site, got[site], want))
    m = s["kinds"]["malloc"]
    want = [total["leaked"] + oth["bytes"], total["leaked_count"] + oth["allocations"]]
    if [m["bytes"], m["allocations"]] != want:
        errs.append("malloc family %d B in %d, want %d in %d" % (m["bytes"], m["allocations"], *want))
    if others == "none" and (m["traced_allocs"], s["traced_frees"]) != (total["calls"], total["frees"]):
        errs.append("%d allocations and %d frees traced, the target made %d and %d" % (
            m["traced_allocs"], s["traced_frees"], total["calls"], total["frees"]))
    return errs, "leaked %d B in %d blocks (others: %s)" % (m["bytes"], m["allocations"], oth)


# heap's keys, and the account's names for them.
HEAP_KEYS = {"calls": "calls", "temporary": "temporary", "peak_bytes": "peak",
             "leaked_bytes": "leaked"}


def heap_stack(o):
    if o["type"] != "heap_stack" or o["section"] != "calls":
        return None
    return [name(f["sym"]) for f in o["stack"]]


def heap(path, sites, total, kv, others):
    got, oth, s, errs = collect(path, heap_stack, HEAP_KEYS, "heap_summary", others)
    for site in SITES:
        want = {k: sites[site][t] for k, t in HEAP_KEYS.items()}
        if got[site] != want:
            errs.append("%s: %s, want %s" % (site, got[site], want))
    for k, t in HEAP_KEYS.items():
        if s[k] != total[t] + oth[k]:
            errs.append("summary %s %d, want the target's %d and the others' %d" % (
                k, s[k], total[t], oth[k]))
    if others == "none" and (s["frees"], s["leaked_blocks"]) != (total["frees"], total["leaked_count"]):
        errs.append("summary frees %d, leaked blocks %d; the target's %d, %d" % (
            s["frees"], s["leaked_blocks"], total["frees"], total["leaked_count"]))
    return errs, "calls %d, temporary %d, peak %d B, leaked %d B (others: %s)" % (
        s["calls"], s["temporary"], s["peak_bytes"], s["leaked_bytes"], oth)


# The flame graph's weights, in the page's order, and the account's names.
FLAME_KEYS = ("leaked", "peak", "calls", "temporary")


def flame(path, sites, total, kv, others):
    text = open(path, encoding="utf-8").read()
    m = re.search(r'<script id="data" type="application/json">(.*?)</script>', text, re.S)
    if not m:
        sys.exit("%s: no embedded data" % path)
    data = json.loads(m.group(1))
    keys = [w["alias"] or w["key"] for w in data["weights"]]
    if keys != ["leaked", "peak", "calls", "temporary"]:
        sys.exit("weights %s" % keys)
    got = {s: [0] * 4 for s in SITES}
    oth = [0] * 4
    errs = []

    # Where allocations end: a frame's own value, less its children's.
    def walk(n, path):
        names = path + [n["n"]]
        own = list(n["v"])
        for c in n.get("c", []):
            for i in range(4):
                own[i] -= c["v"][i]
            walk(c, names)
        if not any(own) or len(path) == 0:
            return
        into = got.get(n["n"])
        if into is None:
            if not other_ok(list(reversed(names)), others):
                errs.append("weights %s not of the target's sites: %s" % (own, names))
            into = oth
        for i in range(4):
            into[i] += own[i]

    root = data["root"]
    walk(root, [])
    for s in SITES:
        want = [sites[s][k] for k in FLAME_KEYS]
        if got[s] != want:
            errs.append("%s: %s, want %s (%s)" % (s, got[s], want, ", ".join(FLAME_KEYS)))
    want = [total[k] + oth[i] for i, k in enumerate(FLAME_KEYS)]
    if root["v"] != want:
        errs.append("root %s, want the target's and the others' %s" % (root["v"], want))
    return errs, "root %s (%s), others %s" % (root["v"], ", ".join(FLAME_KEYS), oth)


def faults(path, sites, total, kv, others):
    found, summary, by = [], None, None
    for o in lines(path):
        if o["type"] == "site" and o["stack"] and name(o["stack"][0]["sym"]) == "grab":
            found.append(o)
        elif o["type"] == "by_alloc_summary":
            by = o
        elif o["type"] == "summary":
            summary = o
    if not summary or summary["lost"] or not by:
        sys.exit("no summary, or events lost: %s" % summary)
    errs = []
    if kv.get("resident") != 0:
        errs.append("the target found %s of its touched pages resident already" % kv.get("resident"))
    if len(found) != 1:
        return errs + ["%d sites of grab, want 1" % len(found)], ""
    o = found[0]
    have = {"toucher": o["faults"] - o["in_allocator"], "allocations": o["allocations"],
            "bytes": o["bytes"], "major": o["major"]}
    want = {"toucher": kv["touched_pages"], "allocations": 1, "bytes": kv["touched_bytes"],
            "major": 0}
    if have != want:
        errs.append("grab: %s, want %s" % (have, want))
    if by["faults"] != by["to_allocations"] + by["to_regions"] or by["waiting"]:
        errs.append("by_alloc_summary does not add up: %s" % by)
    return errs, "grab: %d faults, %d inside the allocator; %d pages touched" % (
        o["faults"], o["in_allocator"], kv["touched_pages"])


if __name__ == "__main__":
    tools = {"leak": leak, "heap": heap, "flame": flame, "faults": faults}
    if len(sys.argv) != 5 or sys.argv[1] not in tools or \
            sys.argv[4] not in ("none", "premain", "dlopen"):
        sys.exit(__doc__)
    sites, total, kv = truth_of(sys.argv[3])
    errs, said = tools[sys.argv[1]](sys.argv[2], sites, total, kv, sys.argv[4])
    if errs:
        sys.exit("; ".join(errs))
    print(said)
