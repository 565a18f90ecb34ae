#!/usr/bin/env python3
"""flamegraph-click: drive faultline's flame graph page in headless
Chromium through chromedriver's WebDriver protocol (plain HTTP: no
package), for tests/system/flamegraph-click.sh: real clicks and typing,
where flamegraph.sh asks for views by the URL hash.

usage: flamegraph-click.py CHROMEDRIVER CHROMIUM PAGE PROFILE-DIR
On flame-target's page (tests/targets/flame-target.c): a click on leak_a
zooms it to the chart's width; reset zoom undoes it; the peak button
switches the weight (and the hash); typing leak_ in the search box marks
leak_a and leak_b and shows 40.00 %; bottom-up puts the sites next to
the root (leak_a, hold_d at their peak bytes), says so in the legend and
the hash, keeps the search's share, and a second click restores the
top-down graph; inverted turns it over; the chart under the graph marks
the peak; no page error.  Exits non-zero with the differences on stderr.
"""
import json, os, signal, socket, subprocess, sys, time, urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Failed(Exception):
    pass


class Driver:
    def __init__(self, base):
        self.base, self.sid = base, None

    def call(self, method, path, body=None):
        url = self.base + ("/session/" + self.sid if self.sid else "") + path
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as e:
            raise Failed("webdriver %s %s: %s" % (method, path, e.read()[:300]))

    def js(self, script):
        return self.call("POST", "/execute/sync", {"script": script, "args": []})

    def find(self, css):
        v = self.call("POST", "/element", {"using": "css selector", "value": css})
        return next(iter(v.values()))

    def click(self, css):
        self.call("POST", "/element/%s/click" % self.find(css), {})

    def type(self, css, text):
        self.call("POST", "/element/%s/value" % self.find(css), {"text": text})


def main(driver, chromium, page, profile):
    port = free_port()
    proc = subprocess.Popen([driver, "--port=%d" % port], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    errs = []
    d = Driver("http://127.0.0.1:%d" % port)
    try:
        # chromedriver says it is ready on /status; no sleep decides it.
        for _ in range(600):
            try:
                if d.call("GET", "/status").get("ready"):
                    break
            except (OSError, Failed):
                pass
            time.sleep(0.05)
        caps = {"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,900",
                     "--user-data-dir=" + profile]}}}}
        d.sid = d.call("POST", "/session", caps)["sessionId"]
        d.call("POST", "/url", {"url": "file://" + page})
        chart = lambda a: d.js("return document.getElementById('chart').dataset.%s;" % a)
        frame = lambda n, a: d.js("var e = document.querySelector('.f[data-name=\"%s\"]:not(.above)');"
                                  "return e ? e.dataset.%s : null;" % (n, a))
        width = float(chart("width"))

        d.click('.f[data-name="leak_a"]')
        if chart("zoom") != "leak_a":
            errs.append("click on leak_a: zoom is %r" % chart("zoom"))
        if abs(float(frame("leak_a", "width") or 0) - width) > 0.02:
            errs.append("click on leak_a: width %s, want %g" % (frame("leak_a", "width"), width))
        if frame("leak_b", "width") is not None:
            errs.append("click on leak_a: leak_b still drawn")
        d.click("#reset")
        if chart("zoom") != "" or frame("leak_b", "width") is None:
            errs.append("reset zoom: zoom %r, leak_b %r" % (chart("zoom"), frame("leak_b", "width")))
        d.click('#weights button[data-weight="peak"]')
        if chart("weight") != "peak" or frame("hold_d", "value") != "6000":
            errs.append("peak button: weight %r, hold_d %r" % (chart("weight"), frame("hold_d", "value")))
        if "weight=peak" not in d.js("return location.hash;"):
            errs.append("peak button: hash %r" % d.js("return location.hash;"))
        d.type("#search", "leak_")
        m = d.js("var m = document.getElementById('matched').dataset; return [m.frames, m.pct];")
        total = float(chart("total"))
        if m != ["2", "%.2f" % (100 * 4000 / total)]:
            errs.append("search leak_: matched %r, want 2 frames, %.2f %%" % (m, 100 * 4000 / total))
        d.click("#bottomup")
        depth1 = d.js("var r = {}; document.querySelectorAll('.f[data-depth=\"1\"]:not(.above)')"
                      ".forEach(function (e) { r[e.dataset.name] = e.dataset.value; }); return r;")
        view = d.js("return document.getElementById('legend-view').textContent;")
        if chart("view") != "bottom-up" or depth1.get("leak_a") != "3000" or \
                depth1.get("hold_d") != "6000" or "work" in depth1:
            errs.append("bottom-up: view %r, next to the root %r" % (chart("view"), depth1))
        if not view.startswith("bottom-up:") or "bottomup=1" not in d.js("return location.hash;"):
            errs.append("bottom-up: legend %r, hash %r" % (view, d.js("return location.hash;")))
        if not d.js("return document.getElementById('legend-width').textContent;").startswith(
                "width: bytes live at the peak:"):
            errs.append("bottom-up: the legend's width is %r" %
                        d.js("return document.getElementById('legend-width').textContent;"))
        m2 = d.js("var m = document.getElementById('matched').dataset; return [m.frames, m.pct];")
        if m2 != m:
            errs.append("bottom-up: search leak_ matched %r, top-down %r" % (m2, m))
        d.click("#bottomup")
        if chart("view") != "top-down" or frame("work", "value") != str(int(total)):
            errs.append("bottom-up twice: view %r, work %r" % (chart("view"), frame("work", "value")))
        if d.js("var p = document.getElementById('peak'); return p ? p.dataset.bytes : null;") != "10000":
            errs.append("the chart's peak: %r" %
                        d.js("var p = document.getElementById('peak'); return p && p.dataset.bytes;"))
        d.click("#invert")
        if chart("inverted") != "1" or d.js("return document.querySelector('.f[data-name=\"all\"]')"
                                            ".style.top;") != "0px":
            errs.append("inverted: %r" % chart("inverted"))
        n = d.js("return document.getElementById('errors').dataset.count;")
        if n != "0":
            errs.append("page errors: %s: %s" % (n, d.js("return document.getElementById('errors').textContent;")))
    except Failed as e:
        errs.append(str(e))
    finally:
        # The browser is chromedriver's child, but outlives it unless its
        # session is ended first.
        if d.sid:
            try:
                d.call("DELETE", "")
            except (OSError, Failed):
                pass
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if errs:
        sys.exit("\n".join(errs))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
