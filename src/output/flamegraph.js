/*
 * smolder's flame graph script, embedded in every SVG output_svg.c writes
 * (the Makefile turns this file into build/flamegraph_js.h; it goes inside
 * a CDATA section, so it must never contain the three characters that end
 * one).
 *
 * Hovering a frame shows its title below the graph; clicking zooms into
 * it; Search (or Ctrl-F) highlights the frames whose name matches a
 * regular expression and tells their share of all samples.  Every name
 * and count is read back from the frames' <title> elements: no frame name
 * is ever part of a script, whatever bytes a profiled program chose.
 *
 * "ic" toggles a case-insensitive search.  The view is kept in the URL,
 * as flamegraph.pl keeps it, so that a shared link shows the same view:
 * "?x=X&y=Y" the zoomed frame (its drawn position), "s=REGEX" the search,
 * "i=1" case-insensitive; each is applied at load.
 *
 * window.smolder = { zoom, unzoom, search, resetSearch, ignoreCase, frames }
 * lets tests and people drive it.
 */
(function () {
	"use strict";

	var SVGNS = "http://www.w3.org/2000/svg";
	var SEARCH_FILL = "rgb(230,0,230)";
	var svg = document.documentElement;
	var attr = function (name) { return parseFloat(svg.getAttribute("data-" + name)); };
	var XPAD = attr("xpad"), FH = attr("fh"), FONT = attr("font"), FONTW = attr("fontw");
	var TEXT_Y = attr("texty");
	var STRIP = svg.getAttribute("data-strip") === "1";
	var PLOT = parseFloat(svg.getAttribute("width")) - 2 * XPAD;
	var byId = function (id) { return document.getElementById(id); };

	/*
	 * A title is "NAME (COUNT COUNTNAME, P%)", a diff's has "; +D (+Q%)"
	 * before the last ")".  The greedy NAME takes the last " (" after which
	 * the rest fits, which is ours: write_title() in output_svg.c keeps
	 * COUNTNAME free of parentheses.
	 */
	var TITLE = /^([^]*) \(([\d,.]+) [^()]*(?:\([^()]*\))?\)$/;

	var frames = [];          /* in document order: children first, root last */
	var frameOfG = new WeakMap();
	var zoomed = null;
	var lastSearch = "";
	var searching = false;
	var ignorecase = false;

	/* Sets (value a string) or removes (null) URL parameters, without a
	 * reload or a new history entry.  Where the page's URL cannot change
	 * (some viewers forbid it), the view is just not kept. */
	function setParams(kv) {
		var u;

		try {
			u = new URL(window.location.href);
			Object.keys(kv).forEach(function (k) {
				if (kv[k] === null)
					u.searchParams.delete(k);
				else
					u.searchParams.set(k, kv[k]);
			});
			window.history.replaceState(null, "", u.href);
		} catch (e) {
			/* a view that cannot be kept is still shown */
		}
	}

	/*
	 * Reads the frames from the DOM.  They come as output_svg.c walks
	 * them: every frame after the frames above it, so a frame's subtree is
	 * the run of frames just before it, from its "start" on.  Each frame
	 * adopts the finished subtrees one level above it as its children.
	 */
	function load() {
		var gs = byId("frames").children, done = [], rootY = null;

		if (gs.length)
			rootY = parseFloat(gs[gs.length - 1].querySelector("rect").getAttribute("y"));
		for (var i = 0; i < gs.length; i++) {
			var g = gs[i], rect = g.querySelector("rect");
			var title = g.querySelector("title").textContent;
			var m = TITLE.exec(title) || [null, title, "0"];
			var y = parseFloat(rect.getAttribute("y"));
			var f = {
				index: i, start: i, g: g, rect: rect, text: g.querySelector("text"),
				title: title, name: m[1], count: parseFloat(m[2].replace(/,/g, "")),
				x: parseFloat(rect.getAttribute("x")), w: parseFloat(rect.getAttribute("width")),
				y: y, depth: Math.round(Math.abs(y - rootY) / FH),
				fill: rect.getAttribute("fill"), parent: null,
			};

			while (done.length && done[done.length - 1].depth > f.depth) {
				var c = done.pop();

				c.parent = f;
				f.start = c.start;
			}
			done.push(f);
			frames.push(f);
			frameOfG.set(g, f);
		}
	}

	/* A frame from a frame, its index, or any node inside its <g>. */
	function frameOf(t) {
		if (typeof t === "number")
			return frames[t] || null;
		if (t && t.g && t.rect)
			return t;
		for (; t && t !== svg; t = t.parentNode)
			if (frameOfG.has(t))
				return frameOfG.get(t);
		return null;
	}

	/* The drawn name, cut to fit with ".." (nothing under 3 characters),
	 * as write_label() in output_svg.c does it. */
	function label(f, w) {
		var name = STRIP ? f.name.replace(/_\[[kj]\]$/, "") : f.name;
		var fit = Math.floor(w / (FONT * FONTW));

		if (fit < 3)
			return "";
		return name.length <= fit ? name : name.slice(0, fit - 2) + "..";
	}

	function place(f, x, w) {
		var s = label(f, w);

		f.rect.setAttribute("x", x.toFixed(3));
		f.rect.setAttribute("width", w.toFixed(3));
		if (!f.text) {
			if (!s)
				return;
			f.text = document.createElementNS(SVGNS, "text");
			f.text.setAttribute("y", (f.y + TEXT_Y).toFixed(1));
			f.g.appendChild(f.text);
		}
		f.text.setAttribute("x", (x + 3).toFixed(3));
		f.text.textContent = s;
	}

	function show(id, on) {
		byId(id).classList.toggle("hide", !on);
	}

	/* Zoom into a frame: it and its ancestors span the plot (ancestors
	 * faded), the frames above it widen with it, all others hide.  Widths
	 * come from the counts, exact at any zoom; positions from the drawn
	 * ones. */
	function zoom(target) {
		var z = frameOf(target), ancestor = {}, scale;

		if (!z)
			return;
		if (!z.parent)
			return unzoom();
		scale = PLOT / z.count;
		for (var a = z.parent; a; a = a.parent)
			ancestor[a.index] = true;
		frames.forEach(function (f) {
			var inside = f.index >= z.start && f.index <= z.index;

			f.g.classList.toggle("parent", !!ancestor[f.index]);
			f.g.classList.toggle("hide", !inside && !ancestor[f.index]);
			if (ancestor[f.index])
				place(f, XPAD, PLOT);
			else if (inside)
				place(f, XPAD + (f.x - z.x) * PLOT / z.w, f.count * scale);
		});
		zoomed = z;
		show("unzoom", true);
		setParams({ x: z.x.toFixed(1), y: z.y.toFixed(1) });
	}

	/* The frame drawn at (x, y), unzoomed: what a shared link names. */
	function frameAt(x, y) {
		for (var i = 0; i < frames.length; i++)
			if (Math.abs(frames[i].x - x) < 0.06 && Math.abs(frames[i].y - y) < 0.06)
				return frames[i];
		return null;
	}

	function unzoom() {
		frames.forEach(function (f) {
			f.g.classList.remove("hide", "parent");
			if (zoomed)
				place(f, f.x, f.w);
		});
		zoomed = null;
		show("unzoom", false);
		setParams({ x: null, y: null });
	}

	/* Highlights the frames whose name matches; the share counts each
	 * sample once: a match inside a counted match adds nothing.  Returns
	 * the percentage, or null for an invalid expression. */
	function search(re) {
		var n = frames.length, total = n ? frames[n - 1].count : 0;
		var sum = 0, low = Infinity, pct;

		if (!(re instanceof RegExp)) {
			try {
				re = new RegExp(String(re), ignorecase ? "i" : "");
			} catch (e) {
				byId("matched").textContent = "Invalid regular expression";
				show("matched", true);
				return null;
			}
		}
		resetSearch();
		lastSearch = re.source;
		searching = true;
		setParams({ s: re.source });
		/* Root first: a frame's subtree [start, index) comes right
		 * after it, so "inside a counted match" is i >= low. */
		for (var i = n - 1; i >= 0; i--) {
			var f = frames[i];

			re.lastIndex = 0;
			if (!f.parent || !re.test(f.name))
				continue; /* the root "all" would match everything */
			f.rect.setAttribute("fill", SEARCH_FILL);
			if (i < low) {
				sum += f.count;
				low = f.start;
			}
		}
		pct = total > 0 ? 100 * sum / total : 0;
		byId("matched").textContent = "Matched: " + pct.toFixed(1) + "%";
		show("matched", true);
		show("resetsearch", true);
		return pct;
	}

	function resetSearch() {
		frames.forEach(function (f) { f.rect.setAttribute("fill", f.fill); });
		show("matched", false);
		show("resetsearch", false);
		searching = false;
		setParams({ s: null });
	}

	/* Case-insensitive search on or off (toggled without an argument); a
	 * search shown is made again.  Returns the new state. */
	function ignoreCase(on) {
		ignorecase = on === undefined ? !ignorecase : !!on;
		byId("ignorecase").classList.toggle("on", ignorecase);
		setParams({ i: ignorecase ? "1" : null });
		if (searching)
			search(lastSearch);
		return ignorecase;
	}

	function askSearch() {
		var s = window.prompt("Search for (regular expression):", lastSearch);

		if (s)
			search(s);
	}

	function details(e) {
		var f = frameOf(e.target);

		byId("details").textContent = f && e.type === "mouseover" ? f.title : " ";
	}

	function listen() {
		var fr = byId("frames");

		fr.addEventListener("click", function (e) { zoom(frameOf(e.target)); });
		fr.addEventListener("mouseover", details);
		fr.addEventListener("mouseout", details);
		byId("unzoom").addEventListener("click", unzoom);
		byId("search").addEventListener("click", askSearch);
		byId("resetsearch").addEventListener("click", resetSearch);
		byId("ignorecase").addEventListener("click", function () { ignoreCase(); });
		window.addEventListener("keydown", function (e) {
			if (((e.ctrlKey || e.metaKey) && (e.key === "f" || e.key === "F")) || e.key === "F3") {
				e.preventDefault();
				askSearch();
			} else if (e.key === "Escape") {
				resetSearch();
			}
		});
	}

	/*
	 * A graph taller than the window opens scrolled to where the samples
	 * are: a thin deep tower makes the page tall, and the wide frames,
	 * which rise from the root, would be below the first screen of a
	 * flame graph (root at the bottom).  The view puts frame f (the root,
	 * or a link's zoomed frame) and the rows next to the root on screen:
	 * root at the bottom, f's row at the window's bottom; an icicle graph
	 * (root at the top) keeps f's row at the top.  The title and the
	 * controls stay on screen (floatBands).
	 */
	function reveal(f) {
		var root = frames[frames.length - 1], h = window.innerHeight;
		var height = parseFloat(svg.getAttribute("height")), top;

		if (!f || !root || !h || height <= h)
			return;
		if (root.y > height / 2) /* a flame graph: the root is at the bottom */
			top = f.y - root.y + height - h;
		else
			top = f.y - root.y;
		window.scrollTo(0, Math.max(0, top));
	}

	/*
	 * On a page taller than the window the controls and the title (the
	 * top band) and the hovered frame's details (the bottom band) stay on
	 * screen as it scrolls: each band moves into a group drawn over the
	 * frames, on its own background, and follows the view.
	 */
	function floatBands() {
		var height = parseFloat(svg.getAttribute("height"));
		var width = parseFloat(svg.getAttribute("width"));
		var stops = document.querySelectorAll("#background stop");
		var texts = Array.prototype.filter.call(svg.children, function (el) {
			return el.tagName === "text";
		});
		var band = function (fill, atTop) {
			var g = document.createElementNS(SVGNS, "g"), r = document.createElementNS(SVGNS, "rect");
			var mine = texts.filter(function (t) {
				return (parseFloat(t.getAttribute("y")) < height / 2) === atTop;
			});
			var ys = mine.map(function (t) { return parseFloat(t.getAttribute("y")); });
			var y0 = atTop ? 0 : Math.min.apply(null, ys) - FONT - 4;
			var y1 = atTop ? Math.max.apply(null, ys) + 6 : height;

			if (!mine.length)
				return null;
			r.setAttribute("x", "0");
			r.setAttribute("y", y0.toFixed(1));
			r.setAttribute("width", width.toFixed(1));
			r.setAttribute("height", (y1 - y0).toFixed(1));
			r.setAttribute("fill", fill);
			g.appendChild(r);
			mine.forEach(function (t) { g.appendChild(t); });
			svg.appendChild(g);
			return g;
		};
		var head, foot, follow;

		if (!window.innerHeight || height <= window.innerHeight || stops.length < 2)
			return;
		head = band(stops[0].getAttribute("stop-color"), true);
		foot = band(stops[1].getAttribute("stop-color"), false);
		follow = function () {
			var y = window.scrollY;

			if (head)
				head.setAttribute("transform", "translate(0," + Math.max(0, y).toFixed(0) + ")");
			if (foot)
				foot.setAttribute("transform", "translate(0," +
						  Math.min(0, y + window.innerHeight - height).toFixed(0) + ")");
		};
		window.addEventListener("scroll", follow);
		window.addEventListener("resize", follow);
		follow();
	}

	load();
	listen();
	floatBands();
	window.smolder = {
		zoom: zoom, unzoom: unzoom, search: search, resetSearch: resetSearch,
		ignoreCase: ignoreCase, frames: frames,
	};
	/* The view a link names: case, zoom, search. */
	var params = new URLSearchParams(window.location.search);
	var at = frameAt(parseFloat(params.get("x")), parseFloat(params.get("y")));
	if (params.get("i") === "1")
		ignoreCase(true);
	if (at)
		zoom(at);
	if (params.get("s"))
		search(params.get("s"));
	reveal(at || frames[frames.length - 1]);
})();
