#!/usr/bin/env python3
"""json-schema-check.py SCHEMA.md RUNS: validate faultline --json outputs.

SCHEMA.md is docs/json-schema.md: its ```schema blocks hold one object
type a line, "TOOL TYPE: KEY:KIND KEY?:KIND ..." (see that page for the
kinds).  RUNS has a line "TOOL FILE" per output to check.  Every line of
every FILE must be a JSON object whose "type" is listed for TOOL (or for
"*"), with every required key, no unlisted key, each value of its kind;
every key at any depth snake_case; no string value a number with a unit;
stacks of well-formed frames (docs/json-schema.md, "Frames"), with
file/line/inlined in all of a run's frames or in none; objects that carry
"interval" numbered from 1, never going back.  A FILE with no object
fails.  Prints what is wrong and exits 1; prints a tally and exits 0 when
all holds.
"""
import json
import re
import sys

SNAKE = re.compile(r"[a-z][a-z0-9_]*\Z")
CLOCK = re.compile(r"\d\d:\d\d:\d\d(\.\d{3})?\Z")
HEX = re.compile(r"0x[0-9a-f]+\Z")
# A number with a unit: "12 MiB", "3ms", "4.0K", "50%".
UNIT = re.compile(r"-?\d+(\.\d+)?\s*(B|[KMGT]i?B?|kB|[mun]?s|%)\Z")
SYM = re.compile(r"(?P<func>.+)\+0x(?P<off>[0-9a-f]+)( (\[(?P<mod>.*)\]|(?P<bare>\[.*\])))?\Z")


def load_schema(path):
    """{(tool, type): [(key, kind, optional)]} from the ```schema blocks."""
    schema, inblock = {}, False
    for n, line in enumerate(open(path), 1):
        line = line.rstrip("\n")
        if line.startswith("```"):
            inblock = line == "```schema"
            continue
        if not inblock or not line.strip():
            continue
        head, _, body = line.partition(":")
        tool, typ = head.split()
        keys = []
        for item in body.split():
            key, _, kind = item.partition(":")
            keys.append((key.rstrip("?"), kind, key.endswith("?")))
        if (tool, typ) in schema:
            sys.exit("%s:%d: %s %s listed twice" % (path, n, tool, typ))
        schema[(tool, typ)] = keys
    return schema


class Checker:
    def __init__(self, schema):
        self.schema = schema
        self.errors = []
        self.tally = {}

    def err(self, where, msg):
        if len(self.errors) < 200:
            self.errors.append("%s: %s" % (where, msg))

    def raw(self, where, v):
        """Keys snake_case and values unit-free, at any depth."""
        if isinstance(v, dict):
            for k, x in v.items():
                if not SNAKE.match(k):
                    self.err(where, "key %r is not snake_case" % k)
                self.raw("%s.%s" % (where, k), x)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                self.raw("%s[%d]" % (where, i), x)
        elif isinstance(v, str) and UNIT.match(v.strip()):
            self.err(where, "%r: a number with a unit" % v)

    def frame(self, where, f, named, run):
        if not isinstance(f, dict):
            self.err(where, "frame %r is not an object" % (f,))
            return
        want = ["sym", "func", "off", "module"] if named else ["addr", "sym", "func", "off", "module"]
        src = [k for k in ("file", "line", "inlined") if k in f]
        if src and len(src) != 3:
            self.err(where, "frame has %s of file, line, inlined" % src)
        if not named:
            run.setdefault("srcline", bool(src))
            if run["srcline"] != bool(src):
                self.err(where, "file/line/inlined in some frames of the run only")
        extra = set(f) - set(want) - {"file", "line", "inlined"}
        missing = [k for k in want if k not in f]
        if extra or missing:
            self.err(where, "frame keys: missing %s, unknown %s" % (missing, sorted(extra)))
            return
        if not named and not (isinstance(f["addr"], str) and HEX.match(f["addr"])):
            self.err(where, "addr %r is not \"0x...\"" % (f["addr"],))
        if not isinstance(f["sym"], str) or not f["sym"]:
            self.err(where, "sym %r" % (f["sym"],))
            return
        func, off, mod = f["func"], f["off"], f["module"]
        if func is None:
            if off is not None or not f["sym"].startswith("[unknown]"):
                self.err(where, "unknown func but off %r, sym %r" % (off, f["sym"]))
        else:
            m = SYM.match(f["sym"])
            if (not isinstance(func, str) or not isinstance(off, int) or isinstance(off, bool)
                    or not m or m.group("func") != func or int(m.group("off"), 16) != off):
                self.err(where, "func %r off %r do not match sym %r" % (func, off, f["sym"]))
            elif mod is not None and mod not in f["sym"]:
                self.err(where, "module %r not in sym %r" % (mod, f["sym"]))
        if mod is not None and (not isinstance(mod, str) or not mod):
            self.err(where, "module %r" % (mod,))
        if src:
            self.srcpos(where, f)
            if not isinstance(f["inlined"], list):
                self.err(where, "inlined is not an array")
            else:
                for i, g in enumerate(f["inlined"]):
                    if not isinstance(g, dict) or set(g) != {"func", "file", "line"}:
                        self.err(where, "inlined[%d] %r" % (i, g))
                        continue
                    if g["func"] is not None and not isinstance(g["func"], str):
                        self.err(where, "inlined[%d].func %r" % (i, g["func"]))
                    self.srcpos("%s.inlined[%d]" % (where, i), g)

    def srcpos(self, where, f):
        if f["file"] is not None and (not isinstance(f["file"], str) or not f["file"]):
            self.err(where, "file %r" % (f["file"],))
        line = f["line"]
        if line is not None and (not isinstance(line, int) or isinstance(line, bool) or line <= 0):
            self.err(where, "line %r" % (line,))

    def kind(self, where, kind, v, run):
        """Whether v is of kind (errors about frames reported here)."""
        if kind.endswith("|null"):
            return v is None or self.kind(where, kind[:-5], v, run)
        if kind.startswith("["):
            return isinstance(v, list) and all(self.kind(where, kind[1:-1], x, run) for x in v)
        if kind == "int":
            return isinstance(v, int) and not isinstance(v, bool)
        if kind == "num":
            return isinstance(v, (int, float)) and not isinstance(v, bool)
        if kind == "str":
            return isinstance(v, str)
        if kind == "bool":
            return isinstance(v, bool)
        if kind == "clock":
            return isinstance(v, str) and bool(CLOCK.match(v))
        if kind == "hex":
            return isinstance(v, str) and bool(HEX.match(v))
        if kind == "obj":
            return isinstance(v, dict)
        if kind in ("stack", "names"):
            if not isinstance(v, list):
                return False
            for i, f in enumerate(v):
                self.frame("%s[%d]" % (where, i), f, kind == "names", run)
            return True
        sys.exit("unknown kind %r in the schema" % kind)

    def obj(self, where, tool, o, run):
        if not isinstance(o, dict):
            self.err(where, "not an object")
            return
        typ = o.get("type")
        if not isinstance(typ, str) or list(o)[0] != "type":
            self.err(where, "no \"type\" first")
            return
        keys = self.schema.get((tool, typ)) or self.schema.get(("*", typ))
        if keys is None:
            self.err(where, "type %r is not in the schema for %s" % (typ, tool))
            return
        self.tally[(tool, typ)] = self.tally.get((tool, typ), 0) + 1
        listed = {k for k, _, _ in keys}
        for k in o:
            if k != "type" and k not in listed:
                self.err(where, "%s %s: key %r is not in the schema" % (tool, typ, k))
        for k, kind, optional in keys:
            if k not in o:
                if not optional:
                    self.err(where, "%s %s: no %r" % (tool, typ, k))
                continue
            if not self.kind("%s.%s" % (where, k), kind, o[k], run):
                self.err(where, "%s %s: %s is %r, not %s" % (tool, typ, k, o[k], kind))
        self.raw(where, o)
        iv = o.get("interval")
        if isinstance(iv, int) and not isinstance(iv, bool) and typ != "timeline":
            if iv < 1 or iv < run.get("interval", 1):
                self.err(where, "interval %d after %d" % (iv, run.get("interval", 0)))
            run["interval"] = iv

    def output(self, tool, path):
        run, n = {}, 0
        for i, line in enumerate(open(path, encoding="utf-8"), 1):
            where = "%s:%d" % (path, i)
            try:
                o = json.loads(line)
            except ValueError as e:
                self.err(where, "not JSON (%s): %r" % (e, line[:120]))
                continue
            self.obj(where, tool, o, run)
            n += 1
        if not n:
            self.err(path, "no JSON object (%s)" % tool)
        return n


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    c = Checker(load_schema(sys.argv[1]))
    lines = 0
    for run in open(sys.argv[2]):
        tool, path = run.split(None, 1)
        lines += c.output(tool, path.strip())
    if c.errors:
        print("\n".join(c.errors))
        return 1
    print("%d objects checked, by tool and type:" % lines)
    for (tool, typ), n in sorted(c.tally.items()):
        print("  %s %s: %d" % (tool, typ, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
