#!/bin/bash
# The SVG flame graph in a real browser: Debian's chromium, headless,
# driven through chromedriver by tests/browser/flamegraph_check.py (a
# WebDriver client on Python's standard library).  On a folded file with
# nested and recursive matches, and on a capture of cpu_split (75% burn_a):
# loads without console errors, hovering shows a frame's title, clicking a
# frame zooms (full width, siblings hidden, ancestors faded), Reset Zoom
# undoes it, Search (and Ctrl-F) asks through a prompt and shows the share
# of samples under matching frames counted once, ?s=REGEX searches at load,
# and a screenshot is a PNG.  The zoomed frame, the search and the "ic"
# (case-insensitive) toggle are kept in the URL (x, y, s, i): the link
# opened anew shows the same view.  Hostile frame names load as text: no alert,
# no script of theirs.  A page taller than the window (thin_tower's deep,
# thin recursion) opens with the widest tower on its first screen.
source "$(dirname "$0")/../lib.sh"

PY=/usr/bin/python3
CHECKER="$TOP/tests/browser/flamegraph_check.py"

for b in /usr/bin/chromium /usr/bin/chromedriver; do
	[ -x "$b" ] || { fail svg_browser_deps "missing $b (scripts/deps.sh installs it)"; exit 0; }
done
if ! "$SMOLDER" flamegraph --help >/dev/null 2>&1; then
	fail svg_browser_flamegraph_command "smolder has no 'flamegraph' subcommand"
	exit 0
fi

# chromedriver on a free port, in its own process group so that the
# browsers it starts go with it.
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
setsid /usr/bin/chromedriver --port="$PORT" >"$TMP/chromedriver.log" 2>&1 &
CD_PID=$!
at_exit "kill -- -$CD_PID 2>/dev/null"
driver_up() {
	"$PY" -c 'import json, sys, urllib.request
sys.exit(0 if json.load(urllib.request.urlopen(sys.argv[1] + "/status", timeout=2))["value"]["ready"] else 1)' \
		"http://127.0.0.1:$PORT" 2>/dev/null
}
for _ in $(seq 100); do driver_up && break; sleep 0.1; done
if ! driver_up; then
	fail svg_browser_chromedriver "chromedriver did not start: $(head -c 300 "$TMP/chromedriver.log")"
	exit 0
fi

# browse NAME SVG REGEX ZOOM SIBLING: what the browser saw, in $TMP/NAME.obs.
browse() {
	local name=$1 svg=$2 re=$3 zoom=$4 sib=$5
	timeout 120 "$PY" "$CHECKER" --driver "http://127.0.0.1:$PORT" --svg "$svg" --regex "$re" \
		--zoom "$zoom" --sibling "$sib" --screenshot "$TMP/$name.png" >"$TMP/$name.obs" 2>&1
	check "${name}_webdriver" equals "$(obs "$name" error)" ""
}
# obs NAME KEY: one observation.
obs() { sed -n "s/^$2=//p" "$TMP/$1.obs" | head -n 1; }
# png_ok NAME: the screenshot is a PNG of a sane size.
png_ok() {
	local size
	[ "$(obs "$1" screenshot_png)" = True ] || { echo "not a PNG: $(head -c 8 "$TMP/$1.png" | od -An -c)"; return 1; }
	size=$(obs "$1" screenshot_size)
	within "$(obs "$1" screenshot_bytes)" 2000 20000000 >/dev/null &&
		within "${size%x*}" 800 4000 >/dev/null && within "${size#*x}" 100 4000 >/dev/null && return 0
	echo "screenshot ${size}, $(obs "$1" screenshot_bytes) bytes"
	return 1
}
# plus A B: A + B.
plus() { awk -v a="$1" -v b="$2" 'BEGIN { print a + b }'; }
# browser_checks NAME SVG: the checks every page passes.
browser_checks() {
	local n=$1 w
	check "${n}_loaded" equals "$(obs "$n" loaded)" True
	check "${n}_all_frames_read" equals "$(obs "$n" frames)" "$(grep -c '^<g><title>' "$2")"
	check "${n}_console_clean" equals "$(obs "$n" console_errors) $(obs "$n" console_first)" "0 "
	check "${n}_hover_details" equals "$(obs "$n" hover_details)" "$(obs "$n" hover_want)"
	check "${n}_zoom_full_width" equals "$(obs "$n" zoom_x) $(obs "$n" zoom_width)" "10.000 $(obs "$n" plot_width)"
	check "${n}_zoom_sibling_hidden" equals "$(obs "$n" zoom_sibling_displayed)" False
	check "${n}_zoom_ancestor_faded" equals "$(obs "$n" zoom_parent_class)" parent
	check "${n}_zoom_reset_shown" equals "$(obs "$n" zoom_reset_displayed)" True
	w=$(obs "$n" before_zoom_width)
	check "${n}_unzoom_width" within "$(obs "$n" unzoom_width)" "$(plus "$w" -0.01)" "$(plus "$w" 0.01)"
	check "${n}_unzoom_sibling_shown" equals "$(obs "$n" unzoom_sibling_displayed)" True
	check "${n}_unzoom_reset_hidden" equals "$(obs "$n" unzoom_reset_displayed)" False
	check "${n}_search_prompt" equals "$(obs "$n" prompt_text)" "Search for (regular expression):"
	check "${n}_ctrl_f_prompt" equals "$(obs "$n" ctrl_f_prompt)" "Search for (regular expression):"
	check "${n}_reset_search" equals "$(obs "$n" reset_matched_displayed) $(obs "$n" reset_highlighted)" "False 0"
	check "${n}_screenshot" png_ok "$n"
	# the view kept in the URL, as flamegraph.pl keeps it
	check "${n}_url_keeps_view" equals "$(obs "$n" url_keys)" "s,x,y"
	check "${n}_link_zoomed" equals "$(obs "$n" link_zoom_width) $(obs "$n" link_sibling_displayed)" "$(obs "$n" plot_width) False"
	check "${n}_link_searched" equals "$(obs "$n" link_matched_same)" True
	check "${n}_case_sensitive" equals "$(obs "$n" upper_matched)" "Matched: 0.0%"
	check "${n}_ignorecase_toggle" equals "$(obs "$n" ic_matched_same) $(obs "$n" ic_class)" "True ctl on"
	check "${n}_ignorecase_in_url" equals "$(obs "$n" ic_url_i) $(obs "$n" ic_link_matched_same)" "1 True"
	check "${n}_resets_clear_url" equals "$(obs "$n" reset_url_keys)" "i"
}

# ---- nested and recursive matches: a frame "a" inside an "a" adds nothing ----
F=$TMP/nested.folded
printf '%s\n' 'main;a;a;b 10' 'main;a;c 5' 'main;a;b 3' 'main;d;a 4' 'main;e 8' \
	'main;a;b;a;a 6' >"$F"
run_sm nested flamegraph -o "$TMP/nested.svg" "$F"
check browser_nested_svg equals "$RC" 0
browse browser_nested "$TMP/nested.svg" '^a$' d e
browser_checks browser_nested "$TMP/nested.svg"
# 28 of 36 samples are under a frame "a"; counting nested ones twice would
# say more than 100%.
want=$(share "$F" '(^|;)a(;| )')
check browser_nested_matched equals "$(obs browser_nested matched)" "Matched: $want%"
check browser_nested_highlighted equals "$(obs browser_nested highlighted)" "$(grep -c '^<g><title>a (' "$TMP/nested.svg")"
check browser_nested_url_search equals "$(obs browser_nested url_matched)" "Matched: $want%"

# ---- hostile names: shown as text, never run ----
H=$TMP/hostile.folded
{
	printf 'main;<script>alert(1)</script>;x 5\n'
	printf 'main;]]>;<![CDATA[;</svg> 5\n'
	printf 'main;"><script>alert(2)</script>;onload=alert(3) 5\n'
	printf 'main;ctl\x01\x1b[31m\x7f;bad\xff\xfe 5\n'
} >"$H"
run_sm hostile flamegraph -o "$TMP/hostile.svg" "$H"
check browser_hostile_svg equals "$RC" 0
timeout 120 "$PY" "$CHECKER" --driver "http://127.0.0.1:$PORT" --svg "$TMP/hostile.svg" \
	>"$TMP/browser_hostile.obs" 2>&1
check browser_hostile_webdriver equals "$(obs browser_hostile error)" ""
check browser_hostile_loaded equals "$(obs browser_hostile loaded)" True
check browser_hostile_console_clean equals "$(obs browser_hostile console_errors) $(obs browser_hostile console_first)" "0 "
check browser_hostile_no_alert equals "$(obs browser_hostile alert)" none
check browser_hostile_one_script equals "$(obs browser_hostile script_elements)" 1
# The names read back intact: two <script>s, "]]>" and "</svg>".
check browser_hostile_names_read equals "$(obs browser_hostile names_with_markup)" 4

# ---- a real capture: cpu_split spends 75% in burn_a ----
# Only its samples (-p): other work on the machine would change the share.
start_wl cpu_split 5 || exit 1
sleep 0.3
run_sm cap -F 499 -p "$WL_PID" -o "$TMP/cap.svg" 2
check browser_capture_exit_0 equals "$RC" 0
browse browser_capture "$TMP/cap.svg" burn_a burn_a burn_b
browser_checks browser_capture "$TMP/cap.svg"
m=$(obs browser_capture matched)
m=${m#Matched: }
check browser_capture_burn_a_share within "${m%\%}" 65 85

# ---- the first screen shows the widest tower ----
# thin_tower: 98.5% of its CPU time in a shallow path, 1.5% at the top of
# a recursion deeper than the 127 frames a stack keeps.  The thin tower
# makes the page over twice as tall as a 1400x900 window; at load, the
# widest tower (from the root up its widest children) must be on screen,
# root and top, as a user opening the file sees it.
run_sm tower -F 499 -o "$TMP/tower.svg" -- "$WL/thin_tower" 3
check browser_first_screen_capture equals "$RC" 0
timeout 120 "$PY" "$CHECKER" --driver "http://127.0.0.1:$PORT" --svg "$TMP/tower.svg" \
	--first-screen --window 1400x900 >"$TMP/first.obs" 2>&1
check browser_first_screen_webdriver equals "$(obs first error)" ""
wh=$(obs first window_height)
echo "first screen: window $wh px, page $(obs first page_height) px, depth $(obs first max_depth)," \
	"root at $(obs first root_span), top ($(obs first tower_top_name)) at $(obs first top_span)"
check browser_first_screen_tall_page within "$(obs first page_height)" "$((2 * ${wh:-900}))" 100000
check browser_first_screen_deep_tower within "$(obs first max_depth)" 125 200
# the widest tower rises through wide_path; the thin one is climb's
not_climb() { [[ ! $1 =~ ^(climb|tower_leaf)$ ]] || { echo "the widest tower ends in $1"; return 1; }; }
check browser_first_screen_tower_is_wide_path not_climb "$(obs first tower_top_name)"
# on_screen "TOP BOTTOM": the span lies in the window.
on_screen() {
	local top=${1% *} bottom=${1#* }
	within "$top" 0 "$wh" >/dev/null && within "$bottom" 0 "$wh" >/dev/null && return 0
	echo "spans $1, the window 0 $wh"
	return 1
}
check browser_first_screen_root_shown on_screen "$(obs first root_span)"
check browser_first_screen_top_shown on_screen "$(obs first top_span)"
# the title, Search and the details line stay on screen, at load and
# scrolled to the top by hand (where the root is not)
check browser_first_screen_title_shown on_screen "$(obs first title_span)"
check browser_first_screen_search_shown on_screen "$(obs first search_span)"
check browser_first_screen_details_shown on_screen "$(obs first details_span)"
check browser_scrolled_up_root_below equals "$(on_screen "$(obs first scrolled_root_span)" >/dev/null && echo shown || echo below)" below
check browser_scrolled_up_search_shown on_screen "$(obs first scrolled_search_span)"
check browser_scrolled_up_details_shown on_screen "$(obs first scrolled_details_span)"
