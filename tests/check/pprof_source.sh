#!/bin/bash
# Known truth for source-location frames (CPython frames, issue 23) in the
# pprof and speedscope outputs: a profile of a Python program's functions
# at known lines, built through the folder's API (profile_addr.h) and
# written by smolder's own writers (build/tools/source_profile), read back
# by go tool pprof (-list against the real source file, -lines -top,
# -traces -lines, -raw) and by speedscope's schema.  Samples of one
# function at two lines are one stack, but pprof keeps each line's count.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/_formats.sh"

TOOL="$TOP/build/tools/source_profile"
if [ ! -x "$TOOL" ]; then
	fail pprof_source_tool "missing $TOOL (make tools)"
	exit 0
fi

# The program: alpha's loop (line 4) and its body (line 5), called from
# Outer.meth (line 11); beta in a second file, under an odd directory name.
APP=$TMP/app.py
mkdir -p "$TMP/lib dir"
UTIL="$TMP/lib dir/util.py"
cat >"$APP" <<'EOF'
# a test program
def alpha(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


class Outer:
    def meth(self):
        return alpha(10)
EOF
printf '%s\n' 'import os' 'def beta():' '    return os.getpid()' >"$UTIL"

# Samples: count, then frames root first; a source frame is
# "DISPLAY|FUNC|FILE|LINE|START_LINE" (the display names the folder makes).
M="Outer.meth (app.py)|Outer.meth|$APP|11|10"
{
	printf '5\tmain\t%s\talpha (app.py)|alpha|%s|4|2\n' "$M" "$APP"
	printf '3\tmain\t%s\talpha (app.py)|alpha|%s|5|2\n' "$M" "$APP"
	printf '2\tmain\t%s\talpha (app.py)|alpha|%s|4|2\n' "$M" "$APP"
	printf '2\tmain\tbeta (util.py)|beta|%s|3|2\n' "$UTIL"
} >"$TMP/samples"
"$TOOL" pprof "$TMP/p.pb.gz" <"$TMP/samples" 2>"$TMP/tool.err"
ok_or_err pprof_source_written $? "$TMP/tool.err"

pp() { go tool pprof -symbolize=none "$@" "$TMP/p.pb.gz" 2>>"$TMP/pp.err"; }

# -list: the source file itself, each line with its own samples.
pp -list '^alpha$' >"$TMP/list"
check pprof_list_routine some_line "$TMP/list" "^ROUTINE =+ alpha in $(re_escape "$APP")\$"
check pprof_list_line_4 some_line "$TMP/list" '^ +7 +7 +4: +for i in range\(n\):$'
check pprof_list_line_5 some_line "$TMP/list" '^ +3 +3 +5: +total \+= i \* i$'
check pprof_list_function_total some_line "$TMP/list" '^ +10 +10 \(flat, cum\)'
pp -list '^beta$' >"$TMP/list.beta"
check pprof_list_second_file some_line "$TMP/list.beta" '^ +2 +2 +3: +return os.getpid\(\)$'

# -lines -top: one row per function and line, the bare function names.
pp -lines -top >"$TMP/top"
check pprof_top_alpha_4 some_line "$TMP/top" "^ +7 .* alpha $(re_escape "$APP"):4\$"
check pprof_top_alpha_5 some_line "$TMP/top" "^ +3 .* alpha $(re_escape "$APP"):5\$"
check pprof_top_beta some_line "$TMP/top" "^ +2 .* beta $(re_escape "$UTIL"):3\$"
check pprof_top_caller_cum some_line "$TMP/top" "^ +0 .* 10 +83\.33% +Outer\.meth $(re_escape "$APP"):11\$"

# -traces -lines, read as stacks: the lines kept apart, counts summed.
pp -traces -lines >"$TMP/traces"
"$PY" "$STACKS" pprof-traces "$TMP/traces" >"$TMP/traces.stacks" 2>>"$TMP/pp.err"
printf '%s\n' "main;beta $UTIL:3 2" \
	"main;Outer.meth $APP:11;alpha $APP:4 7" \
	"main;Outer.meth $APP:11;alpha $APP:5 3" | LC_ALL=C sort >"$TMP/traces.want"
LC_ALL=C sort -o "$TMP/traces.stacks" "$TMP/traces.stacks"
check pprof_traces_by_line same_stacks "$TMP/traces.stacks" "$TMP/traces.want"

# -raw: each function's first line; no display name is a function.
pp -raw >"$TMP/raw"
check pprof_raw_start_lines some_line "$TMP/raw" " alpha $(re_escape "$APP"):4 s=2\$"
check pprof_raw_no_display_names no_line "$TMP/raw" '\(app\.py\)'
check pprof_source_no_errors equals "$(head -c 300 "$TMP/pp.err")" ""

# speedscope: valid against its schema, one stack per display name, each
# source frame with its file; alpha (at two lines) at its first line,
# Outer.meth and beta (each at one) at that line.
"$TOOL" speedscope "$TMP/s.json" <"$TMP/samples" 2>"$TMP/tool.err"
ok_or_err speedscope_source_written $? "$TMP/tool.err"
speedscope_of "$TMP/s.json" "$TMP/s.stacks"
ok_or_err speedscope_source_schema $? "$TMP/s.stacks.err"
printf '%s\n' 'main;Outer.meth (app.py);alpha (app.py) 10' 'main;beta (util.py) 2' |
	LC_ALL=C sort >"$TMP/s.want"
LC_ALL=C sort -o "$TMP/s.stacks" "$TMP/s.stacks"
check speedscope_source_stacks same_stacks "$TMP/s.stacks" "$TMP/s.want"
"$PY" -c '
import json, sys
for f in json.load(open(sys.argv[1]))["shared"]["frames"]:
    print("%s|%s|%s" % (f["name"], f.get("file", ""), f.get("line", "")))
' "$TMP/s.json" | LC_ALL=C sort >"$TMP/s.frames"
printf '%s\n' "Outer.meth (app.py)|$APP|11" "alpha (app.py)|$APP|2" \
	"beta (util.py)|$UTIL|3" "main||" | LC_ALL=C sort >"$TMP/s.frames.want"
check speedscope_source_file_line cmp "$TMP/s.frames" "$TMP/s.frames.want"
