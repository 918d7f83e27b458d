#!/usr/bin/python3
"""Drives a flame graph SVG in headless Chromium through chromedriver.

A WebDriver client on Python's standard library only (urllib, json), so the
test needs nothing beyond Debian's chromium and chromium-driver.  It acts
as a person would: loads the file, hovers and clicks real frames, clicks
Reset Zoom, clicks Search and types a regular expression into the prompt,
takes a screenshot.  It prints what it saw as "key=value" lines; the shell
test (tests/cli/svg_browser.sh) decides what passes.  On a WebDriver error
it prints "error=..." and exits 1.

usage: flamegraph_check.py --driver URL --svg FILE [--regex RE
                           --zoom NAME --sibling NAME --screenshot PNG]
                           [--first-screen --window WxH]
Without --regex it only loads the page (for hostile names: did any code
of theirs run?).  --first-screen reports what a window of WxH shows at
load: where the widest tower's frames are on the screen.
"""
import argparse
import base64
import json
import pathlib
import struct
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # W3C element reference key
CONTROL = "\ue009"  # WebDriver's code for the Control key
CHROME_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu",
               "--disable-dev-shm-usage", "--window-size=1400,1200"]


class WebDriverError(Exception):
    pass


class Session:
    """The few WebDriver commands the test needs."""

    def __init__(self, driver, args):
        self.driver = driver.rstrip("/")
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "unhandledPromptBehavior": "ignore",
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": args},
            "goog:loggingPrefs": {"browser": "ALL"},
        }}}
        self.id = self._call("POST", "/session", caps)["sessionId"]

    def _call(self, method, path, body=None):
        data = json.dumps(body if body is not None else {}).encode() if method == "POST" else None
        req = urllib.request.Request(self.driver + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                reply = json.load(r)
        except urllib.error.HTTPError as e:
            reply = json.load(e)
        value = reply.get("value")
        if isinstance(value, dict) and "error" in value:
            raise WebDriverError("%s %s: %s: %s" % (method, path, value["error"],
                                                   value.get("message", "")[:200]))
        return reply if path == "/session" and "sessionId" in reply else value

    def cmd(self, method, path, body=None):
        return self._call(method, "/session/%s%s" % (self.id, path), body)

    def get(self, url):
        self.cmd("POST", "/url", {"url": url})

    def script(self, js, *args):
        return self.cmd("POST", "/execute/sync", {"script": js, "args": list(args)})

    def find(self, css):
        return self.cmd("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def click(self, el):
        self.cmd("POST", "/element/%s/click" % el)

    def attr(self, el, name):
        return self.cmd("GET", "/element/%s/attribute/%s" % (el, name))

    def text(self, el):
        return self.cmd("GET", "/element/%s/text" % el)

    def displayed(self, el):
        return self.cmd("GET", "/element/%s/displayed" % el)

    def hover(self, el):
        self.cmd("POST", "/actions", {"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "duration": 0, "x": 0, "y": 0,
                         "origin": {ELEMENT: el}}]}]})

    def keys(self, *keys):
        """Presses keys together (as Ctrl-F), then lets them go."""
        down = [{"type": "keyDown", "value": k} for k in keys]
        up = [{"type": "keyUp", "value": k} for k in reversed(keys)]
        self.cmd("POST", "/actions", {"actions": [{"type": "key", "id": "keyboard",
                                                   "actions": down + up}]})

    def console(self):
        """Browser console entries (chromedriver's log endpoint)."""
        return self.cmd("POST", "/se/log", {"type": "browser"}) or []

    def close(self):
        try:
            self._call("DELETE", "/session/" + self.id)
        except (WebDriverError, OSError):
            pass


def out(key, value):
    """One observation; values stay on one line."""
    print("%s=%s" % (key, str(value).replace("\n", " ")))
    sys.stdout.flush()


# Finds the shallowest frame named NAME that has a sibling named SIB under
# the same parent, through the page's own frame list; returns their <rect>s.
# (A capture may also hold a shorter stack with NAME alone: a sample taken
# before the file's unwind table was loaded.)
FIND_FRAMES = """
var fs = window.smolder.frames, name = arguments[0], sib = arguments[1];
function sibOf(f) {
  return fs.filter(function (x) { return x.name === sib && x.parent === f.parent; })[0];
}
var f = fs.filter(function (x) { return x.name === name && (!sib || sibOf(x)); })
          .sort(function (a, b) { return a.depth - b.depth; })[0];
if (!f) return null;
var s = sib ? sibOf(f) : null;
return [f.rect, s ? s.rect : null, f.parent ? f.parent.g : null, f.title];
"""


def check_load(s, svg_url):
    s.get(svg_url)
    out("loaded", s.script("return !!(window.smolder && window.smolder.frames.length);"))
    out("frames", s.script("return document.querySelectorAll('#frames > g').length;"))
    errors = [e for e in s.console() if e.get("level") == "SEVERE"]
    out("console_errors", len(errors))
    out("console_first", errors[0].get("message", "")[:300] if errors else "")
    try:
        out("alert", s.cmd("GET", "/alert/text"))
    except WebDriverError as e:
        out("alert", "none" if "no such alert" in str(e) else e)
    out("names_with_markup", s.script(
        "return window.smolder.frames.filter(function (f) {"
        " return /<script>|\\]\\]>|<\\/svg>/.test(f.name); }).length;"))
    out("script_elements", s.script("return document.getElementsByTagName('script').length;"))


def check_zoom(s, zoom, sibling, width):
    found = s.script(FIND_FRAMES, zoom, sibling)
    if not found or not found[1]:
        raise WebDriverError("no frame %r with sibling %r" % (zoom, sibling))
    rect, sib, parent, title = found[0][ELEMENT], found[1][ELEMENT], found[2][ELEMENT], found[3]
    out("plot_width", width)
    out("before_zoom_width", s.attr(rect, "width"))
    s.hover(rect)
    out("hover_details", s.text(s.find("#details")))
    out("hover_want", title)
    s.click(rect)
    out("zoom_x", s.attr(rect, "x"))
    out("zoom_width", s.attr(rect, "width"))
    out("zoom_sibling_displayed", s.displayed(sib))
    out("zoom_parent_class", s.attr(parent, "class"))
    out("zoom_reset_displayed", s.displayed(s.find("#unzoom")))
    s.click(s.find("#unzoom"))
    out("unzoom_width", s.attr(rect, "width"))
    out("unzoom_sibling_displayed", s.displayed(sib))
    out("unzoom_reset_displayed", s.displayed(s.find("#unzoom")))


def check_search(s, regex, svg_url):
    s.click(s.find("#search"))
    out("prompt_text", s.cmd("GET", "/alert/text"))
    s.cmd("POST", "/alert/text", {"text": regex})
    s.cmd("POST", "/alert/accept")
    matched = s.find("#matched")
    out("matched", s.text(matched))
    out("highlighted", s.script(
        "return document.querySelectorAll('#frames rect[fill=\"rgb(230,0,230)\"]').length;"))
    s.click(s.find("#resetsearch"))
    out("reset_matched_displayed", s.displayed(matched))
    out("reset_highlighted", s.script(
        "return document.querySelectorAll('#frames rect[fill=\"rgb(230,0,230)\"]').length;"))
    s.keys(CONTROL, "f")
    out("ctrl_f_prompt", s.cmd("GET", "/alert/text"))
    s.cmd("POST", "/alert/dismiss")
    s.get(svg_url + "?s=" + urllib.parse.quote(regex, safe=""))
    out("url_matched", s.text(s.find("#matched")))


def check_url_state(s, zoom, sibling, regex, svg_url):
    """The view kept in the URL: a zoom and a search write x, y and s; the
    URL opened anew shows them; "ic" makes the search case-insensitive and
    writes i=1, kept too; resets take the parameters away."""
    s.get(svg_url)
    found = s.script(FIND_FRAMES, zoom, sibling)
    rect = found[0][ELEMENT]
    s.click(rect)
    s.script("window.smolder.search(arguments[0]);", regex)
    url = s.script("return window.location.href;")
    params = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)
    out("url_keys", ",".join(sorted(params)))
    out("url_s", params.get("s", [""])[0])
    matched = s.text(s.find("#matched"))
    s.get(url)  # the shared link, opened anew
    found = s.script(FIND_FRAMES, zoom, sibling)
    rect, sib = found[0][ELEMENT], found[1][ELEMENT]
    out("link_zoom_width", s.attr(rect, "width"))
    out("link_sibling_displayed", s.displayed(sib))
    out("link_matched_same", s.text(s.find("#matched")) == matched)
    # case: the upper-case regex matches nothing, then with "ic" what the
    # regex matched
    upper = regex.upper()
    s.script("window.smolder.search(arguments[0]);", upper)
    out("upper_matched", s.text(s.find("#matched")))
    s.click(s.find("#ignorecase"))
    out("ic_matched_same", s.text(s.find("#matched")) == matched)
    out("ic_class", s.attr(s.find("#ignorecase"), "class"))
    url = s.script("return window.location.href;")
    out("ic_url_i", urllib.parse.parse_qs(urllib.parse.urlparse(url).query).get("i", [""])[0])
    s.get(url)
    out("ic_link_matched_same", s.text(s.find("#matched")) == matched)
    s.click(s.find("#resetsearch"))
    s.click(s.find("#unzoom"))
    url = s.script("return window.location.href;")
    out("reset_url_keys", ",".join(sorted(urllib.parse.parse_qs(urllib.parse.urlparse(url).query))))


# The widest tower: from the root, the widest child at each level up to
# its top; where its root and top frames are in the window, in CSS pixels
# (0 is the window's top edge), and the window's and page's heights.
FIRST_SCREEN = """
var fs = window.smolder.frames, root = fs[fs.length - 1], top = root;
document.getElementById("details").textContent = root.title; /* as a hover writes it */
for (;;) {
  var kids = fs.filter(function (f) { return f.parent === top; });
  if (!kids.length) break;
  top = kids.sort(function (a, b) { return b.count - a.count; })[0];
}
function box(el) { var r = el.getBoundingClientRect(); return [r.top, r.bottom]; }
function span(f) { return box(f.rect); }
return { root: span(root), top: span(top), top_name: top.name, window: window.innerHeight,
         title: box(document.getElementById("title")),
         search: box(document.getElementById("search")),
         details: box(document.getElementById("details")),
         page: parseFloat(document.documentElement.getAttribute("height")),
         depth: Math.max.apply(null, fs.map(function (f) { return f.depth; })) };
"""


def check_first_screen(s, svg_url):
    s.get(svg_url)
    v = s.script(FIRST_SCREEN)
    out("window_height", v["window"])
    out("page_height", v["page"])
    out("max_depth", v["depth"])
    out("tower_top_name", v["top_name"])
    for key in ("root", "top", "title", "search", "details"):
        out(key + "_span", "%.0f %.0f" % tuple(v[key]))
    # scrolled to the top by hand: the controls and the details line are
    # still on screen (the scroll handler runs on the next frame)
    s.script("window.scrollTo(0, 0);")
    time.sleep(0.5)
    v = s.script(FIRST_SCREEN)
    for key in ("root", "title", "search", "details"):
        out("scrolled_" + key + "_span", "%.0f %.0f" % tuple(v[key]))


def png_size(data):
    """(width, height) from a PNG's IHDR, or (0, 0) if it is not one."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return 0, 0
    return struct.unpack(">II", data[16:24])


def check_screenshot(s, path):
    data = base64.b64decode(s.cmd("GET", "/screenshot"))
    pathlib.Path(path).write_bytes(data)
    w, h = png_size(data)
    out("screenshot_png", data[:8] == b"\x89PNG\r\n\x1a\n")
    out("screenshot_bytes", len(data))
    out("screenshot_size", "%dx%d" % (w, h))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", required=True)
    ap.add_argument("--svg", required=True)
    ap.add_argument("--regex")
    ap.add_argument("--zoom")
    ap.add_argument("--sibling")
    ap.add_argument("--screenshot")
    ap.add_argument("--first-screen", action="store_true")
    ap.add_argument("--window", default="1400,1200")
    a = ap.parse_args()
    svg = pathlib.Path(a.svg).resolve()
    url = svg.as_uri()
    s = None
    try:
        args = [x for x in CHROME_ARGS if not x.startswith("--window-size=")]
        s = Session(a.driver, args + ["--window-size=" + a.window.replace("x", ",")])
        if a.first_screen:
            check_first_screen(s, url)
            return 0
        check_load(s, url)
        if not a.regex:
            return 0
        width = float(s.script("return parseFloat(document.documentElement.getAttribute('width'))"
                               " - 2 * parseFloat(document.documentElement.dataset.xpad);"))
        check_zoom(s, a.zoom, a.sibling, "%.3f" % width)
        check_search(s, a.regex, url)
        check_screenshot(s, a.screenshot)
        check_url_state(s, a.zoom, a.sibling, a.regex, url)
    except (WebDriverError, OSError, ValueError, KeyError, TypeError) as e:
        out("error", "%s: %s" % (type(e).__name__, e))
        return 1
    finally:
        if s:
            s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
