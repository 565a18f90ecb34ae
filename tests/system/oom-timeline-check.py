# oom-timeline-check.py: the checks of an `oom --json --timeline` kill of
# oom-target, for oom-timeline.sh (live) and oom-timeline-record.sh (from
# a recording).  Arguments: the JSON lines, the victim's pid, the
# memory.pressure totals (some full) the test read before and after the
# run, and, from a recording, `report script`'s output: then each row must
# be exactly the difference of two consecutive recorded samples.
import json, re, sys
kills = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pid = int(sys.argv[2])
b_some, b_full, a_some, a_full = map(int, sys.argv[3:7])
k = [x for x in kills if x["victim_pid"] == pid]
assert len(k) == 1, kills
k = k[0]
assert k["trigger_pid"] == pid and k["victim_comm"] == "oom-target" and k["trigger_comm"] == "oom-target", k
p = k["precursors"]
rows = p["rows"]
for r in rows:
    print("t %+7.2f  cg some %6d us  full %6d us  memcg reclaims %4d (%.1f ms)  avail %d kB" % (
        r["t"], r["cg_some_us"], r["cg_full_us"], r["memcg_reclaims"],
        r["memcg_reclaim_ns"] / 1e6, r["memavailable_kb"]))
print("first:", p["first"])
if len(sys.argv) > 7:
    samples = [dict(re.findall(r"(\w+)=(-?\d+)", l)) for l in open(sys.argv[7])
               if "faultline:memstat" in l]
    assert len(samples) >= 5, samples
    print("%d recorded samples" % len(samples))
    def within(got, want):
        return any(got == want[i:i + len(got)] for i in range(len(want) - len(got) + 1))
    for col in ("psi_some_us", "psi_full_us", "cg_some_us", "cg_full_us"):
        vals = [int(s[col]) for s in samples]
        diffs = [max(0, b - a) for a, b in zip(vals, vals[1:])]
        assert within([r[col] for r in rows], diffs), (col, [r[col] for r in rows], diffs)
    assert within([r["memavailable_kb"] for r in rows],
                  [int(s["memavailable_kb"]) for s in samples]), "memavailable_kb"
pre = [r for r in rows if r["t"] < 0]
assert sum(r["memcg_reclaims"] for r in pre) > 0, "no memcg reclaim before the kill"
assert sum(r["cg_some_us"] for r in pre) > 0, "no stall before the kill"
# Reclaim rising: none in the baseline rows (the cache is written, then
# the growth meets the limit only after them), then some.
assert all(r["memcg_reclaims"] == 0 for r in rows[:3]), rows[:3]
assert p["first"] and p["first"]["secs_before"] > 0, p["first"]
# The system-wide indicators move with the other tasks of this machine
# too: the first may be one of them, but never after the memcg's own.
own = [i for i, r in enumerate(rows) if r["memcg_reclaims"] or r["cg_some_us"]][0]
assert p["first"]["secs_before"] >= -rows[own]["t"] - 0.001, (p["first"], rows[own])
assert rows[-1]["t"] >= 0, "the last row ends before the kill"
some = sum(r["cg_some_us"] for r in rows)
full = sum(r["cg_full_us"] for r in rows)
print("rows: some %d us (kernel %d), full %d us (kernel %d)" % (some, a_some - b_some, full, a_full - b_full))
assert a_some > b_some
assert some == a_some - b_some and full == a_full - b_full
