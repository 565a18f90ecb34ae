#!/usr/bin/env python3
"""leak-check: `faultline leak --json` output against a target's own
account, the checks the leak tests share.

usage: leak-check.py JSONFILE TRUTHFILE [PID]
       leak-check.py main JSONFILE
       leak-check.py sites JSONFILE TRUTHFILE [NSITES [MINFREES]]
  (default) leak-target's and kleak-target's truth: every "site fn=F
         bytes=B count=C" line is exactly one stack whose innermost frame
         is F, with those bytes and allocations, and main (or, for threads,
         start_thread) below; no stack holds a site that frees everything.
         STRIP_MODULE=NAME drops the innermost frames in [NAME...] (an
         allocator calling its own probed function).  leak.sh, enosys.sh.
  main   the target's line "outstanding BYTES BLOCKS" (in JSONFILE: it
         shares stdout) against the blocks whose stack holds main; every
         other block is the C start-up's, or a region the allocator mapped
         for itself.  alloc-where.sh.
  sites  each site line of TRUTHFILE against the stacks whose first frame
         outside the allocator and libstdc++ is F, summed, exactly; no
         stack of a temp_* (freed) site; with NSITES, that many site lines;
         "outstanding_bytes=" / "outstanding_count=" lines, when there,
         against the malloc family's totals; with MINFREES, at least that
         many frees traced and none of an unknown block.  leak-cxx.sh,
         container.sh.
All: no lost event.  Exits non-zero with the differences on stderr.
"""
import json, os, re, sys

def exact(path, truth, want_pid=None):
    """leak.sh's and enosys.sh's check (usage: JSONFILE TRUTHFILE [PID])."""
    freed = {"temp_alloc", "zero_alloc", "huge_alloc", "produce_blocks", "consume_blocks",
             "early_alloc", "aged_alloc"}
    sites = {}
    for line in open(truth):
        m = re.match(r"site (?:pid=(\d+) )?fn=(\w+) bytes=(\d+) count=(\d+)$", line.strip())
        if m and (want_pid is None or m.group(1) is None or int(m.group(1)) == want_pid):
            sites[m.group(2)] = (int(m.group(3)), int(m.group(4)))
    if not sites:
        sys.exit("no site lines in the truth")
    stacks = []
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            o = json.loads(line)
            if o.get("type") == "summary" and o["lost"]:
                sys.exit("lost %d events: exact figures impossible" % o["lost"])
            if o.get("type") == "stack" and (want_pid is None or o["pid"] == want_pid):
                frames = o["stack"]
                # An allocator calling its own probed function (tcmalloc's
                # posix_memalign calls memalign): its frame is innermost.
                strip = os.environ.get("STRIP_MODULE")
                while strip and len(frames) > 1 and ("[" + strip) in frames[0]["sym"]:
                    frames = frames[1:]
                o["names"] = [f["sym"].split("+")[0].split(" ")[0] for f in frames]
                stacks.append(o)
    errs = []
    for fn, (b, c) in sites.items():
        found = [s for s in stacks if s["names"] and s["names"][0] == fn]
        if len(found) != 1:
            errs.append("%s: %d stacks, want 1" % (fn, len(found)))
            continue
        s = found[0]
        if (s["bytes"], s["allocations"]) != (b, c):
            errs.append("%s: %d bytes in %d, want %d in %d" % (fn, s["bytes"], s["allocations"], b, c))
        if "main" not in s["names"] and "start_thread" not in s["names"]:
            errs.append("%s: stack does not reach main: %s" % (fn, s["names"]))
    for s in stacks:
        bad = freed.intersection(s["names"])
        if bad:
            errs.append("freed site(s) %s reported: %d bytes" % (sorted(bad), s["bytes"]))
    if errs:
        sys.exit("; ".join(errs))


START_UP = {"_dl_non_dynamic_init", "__libc_setup_tls", "_dl_init", "call_init",
            "__libc_csu_init", "__libc_start_main_impl", "__libc_init_first",
            "__libc_start_main"}
SELF_MAPPED = ("mmap", "mmap64", "__mmap", "mremap", "brk", "__brk", "sbrk")
FOREIGN = re.compile(r"\[lib(stdc\+\+|jemalloc|tcmalloc|mimalloc)")


def load(path):
    """The stacks, the leak_summary, the other lines; exits on a loss."""
    stacks, summary, lines = [], None, []
    for l in open(path):
        if not l.startswith("{"):
            lines.append(l.strip())
            continue
        o = json.loads(l)
        if o.get("type") == "stack":
            stacks.append(o)
        elif o.get("type") == "leak_summary":
            summary = o
        elif o.get("type") == "summary" and o["lost"]:
            sys.exit("lost %d events" % o["lost"])
    if summary is None:
        sys.exit("no leak_summary in " + path)
    return stacks, summary, lines


def names(stack, skip_foreign=False):
    return [f["sym"].split("+")[0].split(" ")[0] for f in stack["stack"]
            if not (skip_foreign and FOREIGN.search(f["sym"]))]


def main_blocks(path):
    stacks, summary, lines = load(path)
    truth = None
    for l in lines:
        m = re.match(r"outstanding (\d+) (\d+)$", l)
        if m:
            truth = (int(m.group(1)), int(m.group(2)))
    if not truth:
        sys.exit("no truth line")
    b = c = 0
    for s in stacks:
        n = names(s)
        if n and n[0] in SELF_MAPPED:
            continue
        if "main" in n:
            b += s["bytes"]
            c += s["allocations"]
        elif not set(n) & START_UP:
            sys.exit("a block of %d B from neither main nor the start-up: %s" % (s["bytes"], n))
    if (b, c) != truth:
        sys.exit("main's blocks: %d B in %d, the target says %d B in %d" % ((b, c) + truth))
    k = summary["kinds"]["malloc"]
    if k["allocations"] < c:
        sys.exit("malloc family %d blocks, fewer than main's %d" % (k["allocations"], c))
    print("%d B in %d blocks from main, as the target says; %d B in %d blocks in all" % (
        b, c, k["bytes"], k["allocations"]))


def sites(path, truthfile, nsites=None, frees=None):
    stacks, summary, _ = load(path)
    want, totals = {}, {}
    for l in open(truthfile):
        l = l.strip()
        m = re.match(r"site fn=(\w+) bytes=(\d+) count=(\d+)$", l)
        if m:
            want[m.group(1)] = (int(m.group(2)), int(m.group(3)))
        m = re.match(r"outstanding_(bytes|count)=(\d+)$", l)
        if m:
            totals[m.group(1)] = int(m.group(2))
    errs, got = [], {}
    if not want:
        errs.append("no site line in the truth")
    if nsites is not None and len(want) != nsites:
        errs.append("%d site lines in the truth, want %d" % (len(want), nsites))
    for s in stacks:
        n = names(s, skip_foreign=True)
        if n and n[0].startswith("temp_"):
            errs.append("freed site %s reported: %d bytes" % (n[0], s["bytes"]))
        if n and n[0] in want:
            b, c = got.get(n[0], (0, 0))
            got[n[0]] = (b + s["bytes"], c + s["allocations"])
    for fn, v in sorted(want.items()):
        if got.get(fn) != v:
            errs.append("%s: %s, want %s (bytes, blocks)" % (fn, got.get(fn), v))
    k = summary["kinds"]["malloc"]
    if totals and (k["bytes"], k["allocations"]) != (totals["bytes"], totals["count"]):
        errs.append("malloc family %d bytes in %d, want %d in %d" %
                    (k["bytes"], k["allocations"], totals["bytes"], totals["count"]))
    if frees is not None and (summary["untracked_frees"] or summary["traced_frees"] < frees):
        errs.append("frees: %d traced, %d untracked; want >= %d and 0" % (
            summary["traced_frees"], summary["untracked_frees"], frees))
    if errs:
        sys.exit("; ".join(errs))


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == "main":
        main_blocks(a[1])
    elif 3 <= len(a) <= 5 and a[0] == "sites":
        sites(a[1], a[2], *[int(x) for x in a[3:]])
    elif len(a) in (2, 3) and a[0] not in ("main", "sites"):
        exact(a[0], a[1], int(a[2]) if len(a) == 3 else None)
    else:
        sys.exit(__doc__)
