#!/usr/bin/env python3
# leak-check.py JSONFILE TRUTHFILE [PID]: leak --json's stacks against a
# target's truth (leak-target, kleak-target): every "site fn=F bytes=B
# count=C" line of the truth is exactly one stack whose innermost frame is
# F, with those bytes and allocations, and main (or, for threads,
# start_thread) below; no stack holds a site that frees everything; no
# event lost.  STRIP_MODULE=NAME drops the innermost frames in [NAME...]
# (an allocator calling its own probed function).  Exit 0, or 1 with the
# differences on stderr.  Used by leak.sh and enosys.sh.
import json, os, re, sys
path, truth = sys.argv[1], sys.argv[2]
want_pid = int(sys.argv[3]) if len(sys.argv) > 3 else None
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
