#!/usr/bin/env bash
# smolder benchmark: smolder side by side with perf and bpftrace on this
# machine, in one run.  `sudo make bench` builds ./smolder and the workloads,
# then runs this script.  docs/BENCHMARKS.md explains every figure.
#
#   1. BPF cost per sample (kernel.bpf_stats_enabled=1 while we run)
#   2. lost samples, samples without a user stack and distinct user stacks
#      on build/workloads/many_stacks (~10,000 distinct stacks), 999 Hz, 5 s
#   3. startup + teardown: wall time of a 1-second capture minus 1 s, median
#      of 5 runs (3 when they take over 40 s), on build/workloads/cpu_split
#   4. peak RSS of the tool process (/usr/bin/time -f %M)
#   5. kernel memory: BPF maps, or perf's ring buffers
#   6. symbolization: time from the end of a 5 s capture to folded output,
#      and peak RSS, with 300 many_stacks processes (~10,000 distinct
#      stacks): smolder against perf script | fold and perf report -g folded
#
# Every tool runs alone, one after the other, against the same workload.
# Ratios matter, not absolute numbers: this is a small, shared, noisy VM.
# shellcheck source=scripts/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh" || exit 1
SMOLDER=$ROOT/smolder
WL=$ROOT/build/workloads
HZ=999          # samples per second per CPU, every tool
DUR=5           # seconds of capture on many_stacks
RUNS=5          # runs of the startup measurement (median)...
MIN_RUNS=3      # ...or only 3 when they have taken more than
PHASE3_BUDGET=40 # seconds (bpftrace names stacks slowly on a busy machine)
BT_TIMEOUT=120  # seconds before a bpftrace run is given up (it names stacks slowly)
BT_PROG="profile:hz:$HZ { @[kstack, ustack, comm] = count(); }"

need_root
need_built "$SMOLDER"
for w in many_stacks cpu_split; do
	need_built "$WL/$w" workloads
done

make_tmp
MANY=()          # pids of the symbolization workload (section 6)
on_exit() {	# maybe stopped (SIGSTOP): SIGKILL, before the other jobs end
	if [ ${#MANY[@]} -gt 0 ]; then
		kill -KILL "${MANY[@]}" 2>/dev/null
		wait "${MANY[@]}" 2>/dev/null
	fi
}
exit_on_interrupt

# --- bench-only packages (not test dependencies) ----------------------------
apt_install() {
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
		  apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1; }
}
[ -x /usr/bin/time ] || apt_install time
command -v bpftrace >/dev/null 2>&1 || apt_install bpftrace
command -v perf >/dev/null 2>&1 || apt_install linux-perf
HAVE_PERF=0; command -v perf >/dev/null 2>&1 && HAVE_PERF=1
HAVE_BT=0; command -v bpftrace >/dev/null 2>&1 && HAVE_BT=1
BT_NA=""        # "n/a (reason)" for every bpftrace cell once it has failed
BT_ERR=""
PERF_NA=""
[ $HAVE_BT = 1 ] || BT_NA="n/a (not installed)"
[ $HAVE_PERF = 1 ] || PERF_NA="n/a (not installed)"

# Set again before every capture: anything else on the machine that
# restores the sysctl to 0 would leave a BPF cost cell n/a.
stats_on() { bpf_stats_on; }
stats_on || warn "cannot set kernel.bpf_stats_enabled=1 (no BPF cost figures)"

# --- helpers -----------------------------------------------------------------
# tool_pid JOB NAME: the pid of the process called NAME that `timed CMD &`
# started as job JOB (job subshell -> /usr/bin/time -> tool).
tool_pid() {
	local p=$1 i
	for i in 1 2 3 4; do
		[ "$(cat /proc/"$p"/comm 2>/dev/null)" = "$2" ] && { echo "$p"; return; }
		p=$(pgrep -P "$p" 2>/dev/null | head -n 1)
		[ -n "$p" ] || return
	done
}
# BPF programs and maps held by process $1, from /proc/PID/fdinfo:
# prints "run_cnt run_time_ns map_bytes" of its busiest program.
bpf_fdinfo() {
	awk '
	function flush() {
		if (mid != "" && !(mid in seen)) { seen[mid] = 1; mem += ml }
		if (pid != "" && rc != "" && rc + 0 >= bestc) { bestc = rc + 0; bestt = rt + 0 }
		mid = pid = rc = rt = ""; ml = 0
	}
	FNR == 1 { flush() }
	$1 == "prog_id:" { pid = $2 }
	$1 == "map_id:" { mid = $2 }
	$1 == "memlock:" { ml = $2 }
	$1 == "run_cnt:" { rc = $2 }
	$1 == "run_time_ns:" { rt = $2 }
	END { flush(); printf "%d %d %d\n", bestc, bestt, mem }
	' /proc/"$1"/fdinfo/* 2>/dev/null
}

# Bytes of perf ring buffers mapped by process $1 (anon_inode:[perf_event]).
perf_mmap_bytes() {
	awk '/perf_event\]/ { on = 1; next } on && $1 == "Size:" { s += $2 * 1024; on = 0 }
	     END { printf "%d\n", s }' /proc/"$1"/smaps 2>/dev/null
}

# Stack statistics of the many_stacks process, as
# "samples no_user_stack distinct_user_stacks", from each tool's output.
# Frame names lose their +offset so that stacks compare by function.
stats_smolder() {	# folded with -a: kernel frames end in _[k]
	awk '
	{
		n = $NF; line = substr($0, 1, length($0) - length($NF) - 1)
		k = split(line, f, ";")
		if (f[1] != "many_stacks") next
		tot += n; u = ""
		for (i = 2; i <= k; i++)
			if (f[i] !~ /_\[k\]$/) u = u ";" f[i]
		if (u == "" || u ~ /\[(lost|missed) user stack\]/) nou += n
		else d[u] = 1
	}
	END { printf "%d %d %d\n", tot, nou, length(d) }' "$1"
}
stats_bpftrace() {	# @[kstack, ustack, comm]: count
	awk '
	function frame(s) { sub(/^[ \t]+/, "", s); sub(/\+[0-9]+$/, "", s); return s }
	{
		line = $0
		if (substr(line, 1, 2) == "@[") { st = "k"; u = ""; line = substr(line, 3); if (line == "") next }
		if (st == "") next
		while (substr(line, 1, 2) == ", ") {
			line = substr(line, 3)
			if (st == "k") { st = "u"; if (line == "") next; continue }
			if (match(line, /\]: [0-9]+$/)) {
				comm = substr(line, 1, RSTART - 1); n = substr(line, RSTART + 3) + 0
				all += n
				if (comm == "many_stacks") {
					tot += n
					if (u == "") nou += n; else d[u] = 1
				}
			}
			st = ""; next
		}
		if (st == "u") u = u ";" frame(line)
	}
	END { printf "%d %d %d %d\n", tot, nou, length(d), all }' "$1"
}
stats_perf() {	# perf script: header line, then one tab-indented frame a line
	awk '
	function done() {
		if (cur == "many_stacks") { tot++; if (u == "") nou++; else d[u] = 1 }
		cur = ""; u = ""
	}
	/^[^ \t]/ { done(); cur = $1; next }
	/^$/ { done(); next }
	cur == "many_stacks" {
		if ($1 ~ /^ffff[0-9a-f]{12}$/) next          # kernel frame
		s = $2; sub(/\+0x[0-9a-f]+$/, "", s); u = u ";" s
	}
	END { done(); printf "%d %d %d\n", tot, nou, length(d) }' "$1"
}

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f%%", 100 * a / b; else print "n/a" }'; }

# vs_best SMOLDER "peer=value ..." lower|higher: smolder against the best peer
vs_best() {
	local s=$1 peers=$2 better=$3
	awk -v s="$s" -v peers="$peers" -v better="$better" 'BEGIN {
		n = split(peers, p, " "); bv = ""; bn = ""
		for (i = 1; i <= n; i++) {
			split(p[i], kv, "=")
			if (kv[2] !~ /^[0-9.]+$/) continue
			if (bv == "" || (better == "lower" ? kv[2] + 0 < bv + 0 : kv[2] + 0 > bv + 0)) { bv = kv[2]; bn = kv[1] }
		}
		if (s !~ /^[0-9.]+$/ || bv == "") { print "n/a"; exit }
		if (bv + 0 == 0) { print (s + 0 == 0 ? "equal (both 0)" : "worse (" bn " 0)"); exit }
		r = s / bv
		w = (r == 1) ? "equal" : ((better == "lower") == (r < 1) ? "better" : "worse")
		printf "%.2fx %s (%s)\n", r, bn, w
	}'
}

# --- versions ----------------------------------------------------------------
SM_VER=$("$SMOLDER" --version 2>&1 | head -n 1)
SM_COMMIT=$(source_rev)
PERF_VER=$([ $HAVE_PERF = 1 ] && perf --version 2>&1 | head -n 1 || echo "not installed")
BT_VER=$([ $HAVE_BT = 1 ] && bpftrace --version 2>&1 | head -n 1 || echo "not installed")
echo "smolder benchmark: $(uname -r), $(nproc) CPUs, $HZ Hz"
echo "  smolder: $SM_VER (git $SM_COMMIT)"
echo "  perf:    $PERF_VER"
echo "  bpftrace: $BT_VER"
echo

# --- 1, 2, 4, 5: 5 s captures of the whole machine on many_stacks ----------
# The workload runs longer than the capture and is stopped only after the
# tool has exited, so that every tool can still name its frames.
echo "running: ${DUR} s captures on many_stacks (smolder, perf, bpftrace)..." >&2

# smolder
start_workload "$WL/many_stacks" 300
sleep 0.5
stats_on
t0=$(now_us)
timed "$TMP/sm.time" "$SMOLDER" -v -F "$HZ" -a -f -o "$TMP/sm.folded" "$DUR" \
	2>"$TMP/sm.err"
rc=$?
SM_WALL=$(( ($(now_us) - t0) / 1000 ))
stop_workload
[ $rc = 0 ] && [ -s "$TMP/sm.folded" ] ||
	die "smolder failed on many_stacks (exit $rc): $(grep -v '^Command exited' "$TMP/sm.err" | tail -n 1)"
read -r SM_SAMPLES SM_LOST < <(sed -n 's/^smolder: \([0-9]*\) samples, \([0-9]*\) lost.*/\1 \2/p' "$TMP/sm.err")
[ -n "${SM_SAMPLES:-}" ] || die "smolder printed no summary line"
SM_NS=$(sed -n 's/^smolder: BPF program: [0-9]* runs, \([0-9]*\) ns per run.*/\1/p' "$TMP/sm.err")
SM_KMEM=$(sed -n 's/^smolder: BPF maps use \([0-9]*\) KiB.*/\1/p' "$TMP/sm.err")
SM_RSS=$(rss_of "$TMP/sm.time")
read -r SM_MS SM_NOU SM_DIST < <(stats_smolder "$TMP/sm.folded")

# perf
if [ -z "$PERF_NA" ]; then
	start_workload "$WL/many_stacks" 300
	sleep 0.5
	t0=$(now_us)
	timed "$TMP/pr.time" perf record -e cpu-clock -F "$HZ" -a -g \
		-o "$TMP/perf.data" -- sleep "$DUR" >/dev/null 2>"$TMP/pr.err" &
	TP=$!
	PERF_KMEM=0
	while kill -0 "$TP" 2>/dev/null; do
		pp=$(tool_pid "$TP" perf)
		if [ -n "$pp" ]; then
			b=$(perf_mmap_bytes "$pp")
			[ "${b:-0}" -gt "$PERF_KMEM" ] && PERF_KMEM=$b
		fi
		sleep 0.5
	done
	wait "$TP"
	rc=$?
	if [ $rc != 0 ] || [ ! -s "$TMP/perf.data" ]; then
		stop_workload
		PERF_NA="n/a (perf record exit $rc)"
	else
		timed "$TMP/ps.time" perf script -i "$TMP/perf.data" \
			>"$TMP/perf.txt" 2>"$TMP/ps.err"
		PERF_WALL=$(( ($(now_us) - t0) / 1000 ))
		stop_workload
		perf report -i "$TMP/perf.data" --stats >"$TMP/perf.stats" 2>/dev/null
		PERF_SAMPLES=$(awk '/^cpu-clock stats:/ { on = 1 } on && /SAMPLE events:/ { print $3; exit }' "$TMP/perf.stats")
		lost_a=$(awk '/^cpu-clock stats:/ { on = 1 } on && /LOST_SAMPLES events:/ { print $3; exit }' "$TMP/perf.stats")
		lost_b=$(perf report -D -i "$TMP/perf.data" 2>/dev/null | awk '/PERF_RECORD_LOST:/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^lost:/) { sub(/^lost:/, "", $i); s += $i } }
			END { print s + 0 }')
		PERF_LOST=${lost_a:-0}
		[ "${lost_b:-0}" -gt "$PERF_LOST" ] && PERF_LOST=$lost_b
		read -r PERF_MS PERF_NOU PERF_DIST < <(stats_perf "$TMP/perf.txt")
		PERF_RSS_REC=$(rss_of "$TMP/pr.time"); PERF_RSS_SCR=$(rss_of "$TMP/ps.time")
		PERF_RSS=""
		[ -n "$PERF_RSS_REC" ] && [ -n "$PERF_RSS_SCR" ] &&
			PERF_RSS=$(( PERF_RSS_REC > PERF_RSS_SCR ? PERF_RSS_REC : PERF_RSS_SCR ))
	fi
	rm -f "$TMP/perf.data" "$TMP/perf.txt"
fi

# bpftrace
bt_fail() {	# bt_fail RC STDERR: short reason in the cells, the error below
	local e
	e=$(grep -v RLIMIT_MEMLOCK "$2" 2>/dev/null | grep -i -E 'error|fail|cannot|not|timed out' | tail -n 1)
	[ -n "$e" ] || e=$(grep -v RLIMIT_MEMLOCK "$2" 2>/dev/null | head -n 1)
	BT_NA="n/a (bpftrace exit $1)"
	grep -q 'timed out' "$2" 2>/dev/null && BT_NA="n/a (timed out)"
	BT_ERR=${e:-no error message}
}
# bt_run SECONDS OUT ERR [RSSFILE]: the one-liner, exiting after SECONDS,
# watched every 0.1 s through /proc/PID/fdinfo while it runs.  Sets BTR_RC,
# BTR_WALL (ms from start to exit), BTR_RUNS and BTR_RUNNS (runs and run
# time of its profile program, last reading before it detached), BTR_KMEM.
bt_run() {
	local t0 bp c t m
	t0=$(now_us)
	if [ -n "${4:-}" ]; then
		timed "$4" bpftrace -e "$BT_PROG interval:s:$1 { exit(); }" >"$2" 2>"$3" &
	else
		bpftrace -e "$BT_PROG interval:s:$1 { exit(); }" >"$2" 2>"$3" &
	fi
	local tp=$!
	BTR_RUNS=0; BTR_RUNNS=0; BTR_KMEM=0
	while kill -0 "$tp" 2>/dev/null; do
		if [ $(( $(now_us) - t0 )) -gt $(( BT_TIMEOUT * 1000000 )) ]; then
			echo "bpftrace: timed out after $BT_TIMEOUT s (killed)" >>"$3"
			kill_tree "$tp"
			break
		fi
		bp=$(tool_pid "$tp" bpftrace)
		if [ -n "$bp" ]; then
			read -r c t m < <(bpf_fdinfo "$bp")
			[ "${c:-0}" -ge "$BTR_RUNS" ] && [ "${c:-0}" -gt 0 ] && { BTR_RUNS=$c; BTR_RUNNS=$t; }
			[ "${m:-0}" -gt "$BTR_KMEM" ] && BTR_KMEM=$m
		fi
		sleep 0.1
	done
	wait "$tp"
	BTR_RC=$?
	BTR_WALL=$(( ($(now_us) - t0) / 1000 ))
}
if [ -z "$BT_NA" ]; then
	start_workload "$WL/many_stacks" 300
	sleep 0.5
	stats_on
	bt_run "$DUR" "$TMP/bt.out" "$TMP/bt.err" "$TMP/bt.time"
	BT_RUNS=$BTR_RUNS; BT_RUNNS=$BTR_RUNNS; BT_KMEM=$BTR_KMEM; BT_WALL=$BTR_WALL
	rc=$BTR_RC
	stop_workload
	if [ $rc != 0 ] || ! grep -q '^@\[' "$TMP/bt.out"; then
		bt_fail "$rc" "$TMP/bt.err"
	else
		read -r BT_MS BT_NOU BT_DIST BT_SAMPLES < <(stats_bpftrace "$TMP/bt.out")
		BT_STACKERR=$(grep -c 'failed to look up stack id' "$TMP/bt.err")
		BT_RSS=$(rss_of "$TMP/bt.time")
		BT_NS=""
		[ "$BT_RUNS" -gt 0 ] && BT_NS=$(( BT_RUNNS / BT_RUNS ))
		# bpftrace counts no losses: a sample whose key finds its map
		# full (4096 keys) is dropped silently.  Lost = runs of its
		# profile program (last read <= 0.1 s before it detached, so a
		# slight undercount) minus the samples it printed.
		BT_LOST=""
		[ "$BT_RUNS" -gt 0 ] && BT_LOST=$(( BT_RUNS > BT_SAMPLES ? BT_RUNS - BT_SAMPLES : 0 ))
	fi
	rm -f "$TMP/bt.out"
fi

# --- 3: startup + teardown, 1-second captures on cpu_split ------------------
echo "running: startup + teardown, $MIN_RUNS-$RUNS x 1-second captures per tool on cpu_split..." >&2
start_workload "$WL/cpu_split" 600
SM_T=(); PR_T=(); PS_T=(); BT_T=(); SM_NS1=(); BT_NS1=(); BT3_NA=""
P3_START=$(now_us)
for ((i = 0; i < RUNS; i++)); do
	if [ "$i" -ge "$MIN_RUNS" ] && [ $(( $(now_us) - P3_START )) -gt $(( PHASE3_BUDGET * 1000000 )) ]; then
		break
	fi
	stats_on
	t0=$(now_us)
	"$SMOLDER" -v -F "$HZ" -f -o "$TMP/t.folded" 1 2>"$TMP/t.err"
	rc=$?
	t1=$(now_us)
	[ $rc = 0 ] && [ -s "$TMP/t.folded" ] ||
		die "smolder failed on a 1-second capture (exit $rc): $(tail -n 1 "$TMP/t.err")"
	rm -f "$TMP/t.folded"
	SM_T+=($(( (t1 - t0) / 1000 - 1000 )))
	ns=$(sed -n 's/^smolder: BPF program: [0-9]* runs, \([0-9]*\) ns per run.*/\1/p' "$TMP/t.err")
	[ -n "$ns" ] && SM_NS1+=("$ns")
	if [ -z "$PERF_NA" ]; then
		t0=$(now_us)
		perf record -e cpu-clock -a -g -F "$HZ" -o "$TMP/t.data" -- sleep 1 >/dev/null 2>&1
		t1=$(now_us)
		perf script -i "$TMP/t.data" >/dev/null 2>&1
		t2=$(now_us)
		rm -f "$TMP/t.data"
		PR_T+=($(( (t1 - t0) / 1000 - 1000 )))
		PS_T+=($(( (t2 - t0) / 1000 - 1000 )))
	fi
	if [ -z "$BT_NA" ] && [ -z "$BT3_NA" ]; then
		bt_run 1 /dev/null "$TMP/t.err"
		if [ $BTR_RC != 0 ]; then	# only the cpu_split cells go n/a
			BT_NA_SAVE=$BT_NA
			bt_fail "$BTR_RC" "$TMP/t.err"
			BT3_NA=$BT_NA
			BT_NA=$BT_NA_SAVE
		else
			BT_T+=($(( BTR_WALL - 1000 )))
			[ "$BTR_RUNS" -gt 0 ] && BT_NS1+=($(( BTR_RUNNS / BTR_RUNS )))
		fi
	fi
done
RUNS3=$i
stop_workload

# --- 6: symbolization: end of capture to folded output ----------------------
# SYM_N processes of many_stacks, one thread each.  Every process is started
# through its own symlink (many_stacks_001 ... many_stacks_300), so its comm
# -- the first frame of a folded stack -- is its own: a process's samples
# fall on ~33 different paths of the 10,000, and merged by comm they stay
# ~10,000 distinct stacks.  (All processes start at path 0 and get 1/150 of
# a CPU each, so merged under one comm they would give only ~500 distinct
# stacks; many_stacks takes no start offset.)  The binary, its mappings and
# its symbols are the same for all.
#
# The processes start together (each waits on a FIFO, then execs) at
# SCHED_IDLE (chrt -i 0): 300 busy processes at normal priority would leave
# the tools, this script and anyone else on the machine 1/150 of a CPU (a
# fork took seconds); at SCHED_IDLE they still fill both CPUs but give way.
# They get 1 s or more to calibrate and run through the capture.  0.3 s
# before the capture ends (as this script sees it, which can be ~0.1 s
# late on this VM even at SCHED_IDLE: hence the margin) they are frozen
# with SIGSTOP, so the naming step does not compete with them, and they
# are killed only after the tools have exited.
SYM_N=300
SYM_DUR=5
SYM_PRE_US=300000 # the workload is frozen this long before the capture ends
SYM_LOAD_S=120  # many_stacks runs at most this long (killed long before)
SYM_OK=1
command -v chrt >/dev/null 2>&1 || SYM_OK=0     # util-linux
mkdir -p "$TMP/ms" && mkfifo "$TMP/ms/go" || SYM_OK=0
for ((i = 1; i <= SYM_N && SYM_OK; i++)); do
	ln -s "$WL/many_stacks" "$TMP/ms/$(printf 'many_stacks_%03d' "$i")" || SYM_OK=0
done

# nap SECONDS: a sleep that forks nothing (pgrep, even $(...), can take a
# second under this load): a read with a timeout on the FIFO (fd 8), which
# nobody writes.  Ctrl-C during such a read only sets SYM_INT (exiting from
# inside `read -t` makes bash 5.2 abort: "longjmp causes uninitialized
# stack frame"); nap exits afterwards, and so does the end of this section.
SYM_INT=""
nap() {
	read -r -t "$1" -u 8 _
	[ -z "$SYM_INT" ] || interrupted
}

# Starts the SYM_N processes (pids in MANY) at SCHED_IDLE and waits until
# each has finished its calibration -- it then starts its worker thread, so
# it has 2 -- and at least 1 s has passed (at most 8 s).  Fd 8 holds the
# FIFO open from then on.
sym_start() {
	local i p r m t t0
	MANY=()
	for ((i = 1; i <= SYM_N; i++)); do
		( exec <"$TMP/ms/go"; exec chrt -i 0 "$TMP/ms/$(printf 'many_stacks_%03d' "$i")" \
			"$SYM_LOAD_S" 1 </dev/null >/dev/null 2>&1 ) &
		MANY+=($!)
	done
	t0=${EPOCHREALTIME/./}
	exec 8<>"$TMP/ms/go"    # a writer: every process blocked on the FIFO goes
	while :; do
		nap 0.2
		m=0     # processes still calibrating (or gone)
		for p in "${MANY[@]}"; do
			read -r -a r 2>/dev/null <"/proc/$p/stat" || { m=$((m + 1)); continue; }
			[ "${r[19]:-1}" -ge 2 ] || m=$((m + 1))  # num_threads
		done
		t=$(( ${EPOCHREALTIME/./} - t0 ))
		[ "$t" -ge 1000000 ] && [ "$m" = 0 ] && break
		[ "$t" -ge 8000000 ] && break
	done
	SYM_WARM=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
	SYM_CALIB=$m
}
# Freezes the workload, then counts the processes still there.
sym_freeze() {
	local p n=0
	kill -STOP "${MANY[@]}" 2>/dev/null
	for p in "${MANY[@]}"; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done
	SYM_ALIVE=$n
}
sym_kill() {
	[ ${#MANY[@]} -gt 0 ] || return 0
	kill -KILL "${MANY[@]}" 2>/dev/null
	wait "${MANY[@]}" 2>/dev/null
	MANY=()
	exec 8>&-
}
sleep_until() {	# sleep_until US: until the clock (us) reaches US
	local d=$(( $1 - ${EPOCHREALTIME/./} )) t
	[ "$d" -gt 0 ] || return 0
	printf -v t '%d.%06d' $((d / 1000000)) $((d % 1000000))
	nap "$t"
}
# child_of PID NAME: sets CHILD to the pid of a child of PID called NAME,
# found without a fork: the children of a fresh process have the next pids,
# unless something else forked in between (then pgrep, below, finds it).
child_of() {
	local p st
	CHILD=""
	[ -n "$1" ] || return
	for ((p = $1 + 1; p <= $1 + 64; p++)); do
		read -r -a st 2>/dev/null <"/proc/$p/stat" || continue
		[ "${st[1]}" = "($2)" ] && [ "${st[3]}" = "$1" ] && { CHILD=$p; return; }
	done
}
# perf script text -> folded stacks, modelled on FlameGraph's
# stackcollapse-perf.pl (not packaged in Debian, not fetched): "comm;root;
# ...;leaf count", offsets (+0x1a) and (dso) dropped, kernel frames kept,
# unnamed frames left as [unknown].
FOLD_PS_AWK='
	function flush(   s, i) {
		if (comm == "") return
		s = comm
		for (i = n; i >= 1; i--) s = s ";" f[i]
		c[s]++; comm = ""; n = 0
	}
	/^$/ { flush(); next }
	/^[ \t]/ {
		if (comm == "") next
		l = $0
		sub(/^[ \t]+[0-9a-f]+[ \t]+/, "", l)    # address
		sub(/ \(deleted\)\)$/, ")", l)
		sub(/ \([^()]*\)$/, "", l)               # (dso)
		sub(/\+0x[0-9a-f]+$/, "", l)             # +offset
		f[++n] = l; next
	}
	{
		flush(); comm = $0
		sub(/[ \t]+[0-9]+(\/[0-9]+)?[ \t]+\[[0-9]+\][ \t]+[0-9.]+:.*$/, "", comm)
		sub(/^[ \t]+/, "", comm); n = 0
	}
	END { flush(); for (s in c) print s, c[s] }'
# perf report --stdio -g folded,0,caller,count -> "comm;root;...;leaf count":
# each entry line gives the command (its column found from the "# ...."
# ruler), each "COUNT a;b;c" line under it a stack.
FOLD_RP_AWK='
	/^# \.+ / && !cs {
		l = $0; match(l, /\.+/); p = RSTART + RLENGTH
		l = substr(l, p); match(l, /\.+/); cs = p + RSTART - 1; cl = RLENGTH
		next
	}
	/^#/ || /^$/ { next }
	/^ +[0-9.]+%/ { comm = substr($0, cs, cl); gsub(/^ +| +$/, "", comm); next }
	/^[0-9]+ / { c[comm ";" substr($0, length($1) + 2)] += $1 }
	END { for (s in c) print s, c[s] }'
# tfold FOLD_AWK TIMEFILE: the folding step, under /usr/bin/time if we have it
tfold() { timed "$2" awk "$1"; }
# Folded stacks -> "samples distinct named" of the many_stacks_NNN
# processes: samples, distinct stacks, and samples whose every frame has a
# name (no [unknown], [file+0x..], [anon]..., no bare address).
sym_stats() {
	awk '{
		n = $NF; s = substr($0, 1, length($0) - length($NF) - 1)
		if (s !~ /^many_stacks_[0-9]+(;|$)/) next
		tot += n
		if (!(s in d)) { d[s] = 1; nd++ }
		k = split(s, f, ";"); ok = k > 1
		for (i = 2; i <= k && ok; i++)
			if (f[i] ~ /^\[/ || f[i] ~ /^(0x[0-9a-f]+|[0-9a-f]{12,16})$/) ok = 0
		if (ok) named += n
	}
	END { printf "%d %d %d\n", tot, nd, named }' "$1"
}

if [ $SYM_OK = 1 ]; then
	trap 'SYM_INT=1' INT TERM
	echo "running: symbolization, $SYM_N many_stacks processes, ${SYM_DUR} s captures (smolder, perf)..." >&2
	# smolder: its -v line gives the time from the end of the capture to
	# the written folded file, and its peak RSS.
	sym_start
	SYM_SM_WARM=$SYM_WARM; SYM_SM_CALIB=$SYM_CALIB
	"$SMOLDER" -v -F "$HZ" -f -o "$TMP/sym_sm.folded" "$SYM_DUR" 2>"$TMP/sym_sm.err" 8>&- &
	SP=$!
	tc=""; ts=""
	while kill -0 "$SP" 2>/dev/null; do     # "sampling ..." starts the clock
		nl=0
		while IFS= read -r l; do
			nl=$((nl + 1))
			[ "${l#smolder: sampling}" != "$l" ] && ts=${EPOCHREALTIME/./}
		done 2>/dev/null <"$TMP/sym_sm.err"
		if [ -n "$ts" ]; then
			tc=$(( ts + SYM_DUR * 1000000 ))
			# when smolder wrote it, if nothing was written since
			mt=$([ $nl = 1 ] && stat -c %.6Y "$TMP/sym_sm.err" 2>/dev/null)
			[ -n "$mt" ] && SYM_SM_T0=${mt/./} || SYM_SM_T0=$ts
			break
		fi
		nap 0.01
	done
	if [ -n "$tc" ]; then
		sleep_until $(( tc - SYM_PRE_US ))
		sym_freeze
	fi
	wait "$SP"
	rc=$?
	t1=${EPOCHREALTIME/./}
	SYM_SM_ALIVE=${SYM_ALIVE:-?}
	sym_kill
	[ -z "$SYM_INT" ] || interrupted
	if [ $rc = 0 ] && [ -s "$TMP/sym_sm.folded" ]; then
		read -r SYM_SM_N SYM_SM_MS SYM_SM_RSS < <(sed -n \
			's/^smolder: \([0-9]*\) stacks named and written in \([0-9]*\) ms; peak RSS \([0-9]*\) KiB.*/\1 \2 \3/p' "$TMP/sym_sm.err")
		[ -n "$tc" ] && SYM_SM_EXIT=$(( (t1 - SYM_SM_T0) / 1000 - SYM_DUR * 1000 ))
		SYM_SM_SAMPLES=$(sed -n 's/^smolder: \([0-9]*\) samples, .*/\1/p' "$TMP/sym_sm.err")
		read -r SYM_SM_MSS SYM_SM_DIST SYM_SM_NAMED < <(sym_stats "$TMP/sym_sm.folded")
	else
		die "smolder failed on the symbolization workload (exit $rc): $(tail -n 1 "$TMP/sym_sm.err")"
	fi
	rm -f "$TMP/sym_sm.folded"

	# perf: record, then the two ways perf itself gives folded stacks.
	SYM_PERF_NA=$PERF_NA
	if [ -z "$SYM_PERF_NA" ]; then
		sym_start
		SYM_PERF_WARM=$SYM_WARM; SYM_PERF_CALIB=$SYM_CALIB
		timed "$TMP/sym_pr.time" perf record -e cpu-clock -F "$HZ" -a -g \
			-o "$TMP/sym.data" -- sleep "$SYM_DUR" >/dev/null 2>"$TMP/sym_pr.err" 8>&- &
		TP=$!
		sp=""; pp=""; t0=${EPOCHREALTIME/./}
		while kill -0 "$TP" 2>/dev/null; do     # its `sleep` starts the clock
			# job subshell -> /usr/bin/time -> perf -> sleep
			if [ -z "$pp" ]; then
				child_of "$TP" perf; pp=$CHILD
				[ -n "$pp" ] || { child_of "$TP" time; child_of "$CHILD" perf; pp=$CHILD; }
			fi
			[ -n "$pp" ] && { child_of "$pp" sleep; sp=$CHILD; }
			[ -z "$sp" ] && [ $(( ${EPOCHREALTIME/./} - t0 )) -gt 2000000 ] &&
				sp=$(tool_pid "$TP" sleep)
			[ -n "$sp" ] && { tc=$(( ${EPOCHREALTIME/./} + SYM_DUR * 1000000 )); break; }
			nap 0.01
		done
		if [ -n "$sp" ]; then
			sleep_until $(( tc - SYM_PRE_US ))
			sym_freeze
			SYM_PERF_ALIVE=$SYM_ALIVE
			while kill -0 "$sp" 2>/dev/null; do nap 0.002; done
			te=${EPOCHREALTIME/./}    # the capture ended
		fi
		wait "$TP"
		rc=$?
		t1=${EPOCHREALTIME/./}
		[ -z "$SYM_INT" ] || interrupted
		if [ -z "$sp" ]; then
			SYM_PERF_NA="n/a (perf's sleep not seen)"
		elif [ $rc != 0 ] || [ ! -s "$TMP/sym.data" ]; then
			SYM_PERF_NA="n/a (perf record exit $rc)"
		else
			SYM_REC_WRAP=$(( (t1 - te) / 1000 ))
			SYM_REC_RSS=$(rss_of "$TMP/sym_pr.time")
			SYM_PERF_SAMPLES=$(perf report -i "$TMP/sym.data" --stats 2>/dev/null |
				awk '/^cpu-clock stats:/ { on = 1 } on && /SAMPLE events:/ { print $3; exit }')
			t0=${EPOCHREALTIME/./}
			timed "$TMP/sym_ps.time" perf script -i "$TMP/sym.data" 2>/dev/null |
				tfold "$FOLD_PS_AWK" "$TMP/sym_psf.time" >"$TMP/sym_ps.folded"
			SYM_PS_MS=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
			t0=${EPOCHREALTIME/./}
			timed "$TMP/sym_rp.time" perf report -i "$TMP/sym.data" \
				--stdio --no-children -g folded,0,caller,count 2>/dev/null |
				tfold "$FOLD_RP_AWK" "$TMP/sym_rpf.time" >"$TMP/sym_rp.folded"
			SYM_RP_MS=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
			SYM_PS_RSS=$(rss_of "$TMP/sym_ps.time"); SYM_PSF_RSS=$(rss_of "$TMP/sym_psf.time")
			SYM_RP_RSS=$(rss_of "$TMP/sym_rp.time"); SYM_RPF_RSS=$(rss_of "$TMP/sym_rpf.time")
			read -r SYM_PS_MSS SYM_PS_DIST SYM_PS_NAMED < <(sym_stats "$TMP/sym_ps.folded")
			read -r SYM_RP_MSS SYM_RP_DIST SYM_RP_NAMED < <(sym_stats "$TMP/sym_rp.folded")
			SYM_PS_N=$(wc -l <"$TMP/sym_ps.folded"); SYM_RP_N=$(wc -l <"$TMP/sym_rp.folded")
		fi
		sym_kill
		rm -f "$TMP/sym.data" "$TMP/sym_ps.folded" "$TMP/sym_rp.folded"
	fi
	exit_on_interrupt
	[ -z "$SYM_INT" ] || interrupted
fi

# --- table -------------------------------------------------------------------
or_na() { [ -n "$1" ] && echo "$1" || echo "${2:-n/a}"; }
row() { printf "%-40s %-15s %-31s %-24s %s\n" "$@"; }
P() { [ -n "$PERF_NA" ] && echo "$PERF_NA" || echo "$1"; }
B() { [ -n "$BT_NA" ] && echo "$BT_NA" || echo "$1"; }
B3() { [ -n "$BT3_NA" ] && echo "$BT3_NA" || B "$1"; }
# "tool=value" for vs_best(), nothing when the tool did not run
peer() { { [ "$1" = perf ] && [ -n "$PERF_NA" ]; } || { [ "$1" = bpftrace ] && [ -n "$BT_NA" ]; } || echo "$1=$2"; }
peer3() { [ "$1" = bpftrace ] && [ -n "$BT3_NA" ] || peer "$@"; }
strip() { echo "${1%\%}"; }
ms_s() { awk -v m="$1" 'BEGIN { if (m == "") print "n/a"; else printf "%.1f", m / 1000 }'; }

sm_lostpct=$(pct "$SM_LOST" "$SM_SAMPLES")
sm_noupct=$(pct "$SM_NOU" "$SM_MS")
perf_lostpct=x; perf_noupct=x; bt_lostpct=x; bt_noupct=x
if [ -z "$PERF_NA" ]; then
	perf_lostpct=$(pct "$PERF_LOST" $(( PERF_SAMPLES + PERF_LOST )))
	perf_noupct=$(pct "$PERF_NOU" "$PERF_MS")
fi
if [ -z "$BT_NA" ]; then
	bt_noupct=$(pct "$BT_NOU" "$BT_MS")
	[ -n "${BT_LOST:-}" ] && bt_lostpct=$(pct "$BT_LOST" "$BT_RUNS")
fi
bt_lostcell="n/a (no run count)"
[ "$bt_lostpct" != x ] && bt_lostcell="$BT_LOST ($bt_lostpct) uncounted"

SM_T_MED=$(median "${SM_T[@]}")
PR_T_MED=$([ ${#PR_T[@]} -gt 0 ] && median "${PR_T[@]}")
PS_T_MED=$([ ${#PS_T[@]} -gt 0 ] && median "${PS_T[@]}")
BT_T_MED=$([ ${#BT_T[@]} -gt 0 ] && median "${BT_T[@]}")
SM_NS1_MED=$([ ${#SM_NS1[@]} -gt 0 ] && median "${SM_NS1[@]}")
BT_NS1_MED=$([ ${#BT_NS1[@]} -gt 0 ] && median "${BT_NS1[@]}")
PERF_KMEM_K=$(( ${PERF_KMEM:-0} / 1024 ))
BT_KMEM_K=$(( ${BT_KMEM:-0} / 1024 ))

echo
row "metric" "smolder" "perf" "bpftrace" "smolder / best peer"
row "------" "-------" "----" "--------" "-------------------"
row "1. BPF cost per sample, ns, many_stacks" "$(or_na "${SM_NS:-}")" "n/a (no BPF)" \
	"$(B "$(or_na "${BT_NS:-}")")" \
	"$(vs_best "${SM_NS:-x}" "$(peer bpftrace "${BT_NS:-x}")" lower)"
row "   same, cpu_split (median of $RUNS3)" "$(or_na "$SM_NS1_MED")" "n/a (no BPF)" \
	"$(B3 "$(or_na "$BT_NS1_MED")")" \
	"$(vs_best "${SM_NS1_MED:-x}" "$(peer3 bpftrace "${BT_NS1_MED:-x}")" lower)"
row "2. many_stacks, ${DUR} s: samples taken" "$SM_SAMPLES" "$(P "${PERF_SAMPLES:-}")" \
	"$(B "${BT_RUNS:-?} (prog runs)")" ""
row "   lost samples (share of taken)" "$SM_LOST ($sm_lostpct)" \
	"$(P "${PERF_LOST:-} (${perf_lostpct})")" "$(B "$bt_lostcell")" \
	"$(vs_best "$(strip "$sm_lostpct")" "$(peer perf "$(strip "$perf_lostpct")") $(peer bpftrace "$(strip "$bt_lostpct")")" lower)"
row "   many_stacks samples in the output" "$SM_MS" "$(P "${PERF_MS:-}")" "$(B "${BT_MS:-}")" ""
row "   ... of them without a user stack" "$SM_NOU ($sm_noupct)" \
	"$(P "${PERF_NOU:-} (${perf_noupct})")" "$(B "${BT_NOU:-} (${bt_noupct})")" \
	"$(vs_best "$(strip "$sm_noupct")" "$(peer perf "$(strip "$perf_noupct")") $(peer bpftrace "$(strip "$bt_noupct")")" lower)"
row "   distinct many_stacks user stacks" "$SM_DIST" "$(P "${PERF_DIST:-}")" "$(B "${BT_DIST:-}")" \
	"$(vs_best "$SM_DIST" "$(peer perf "${PERF_DIST:-x}") $(peer bpftrace "${BT_DIST:-x}")" higher)"
row "   wall time to named stacks, s" "$(ms_s "$SM_WALL")" "$(P "$(ms_s "${PERF_WALL:-}") (rec+script)")" \
	"$(B "$(ms_s "${BT_WALL:-}")")" \
	"$(vs_best "$SM_WALL" "$(peer perf "${PERF_WALL:-x}") $(peer bpftrace "${BT_WALL:-x}")" lower)"
row "3. startup+teardown, ms (median of $RUNS3)" "$SM_T_MED" \
	"$(P "$PS_T_MED (rec+script)")" "$(B3 "$BT_T_MED")" \
	"$(vs_best "$SM_T_MED" "$(peer perf "${PS_T_MED:-x}") $(peer3 bpftrace "${BT_T_MED:-x}")" lower)"
row "   range, ms" "$(range "${SM_T[@]}")" \
	"$(P "$(range "${PS_T[@]}") (rec+script)")" "$(B3 "$(range "${BT_T[@]}")")" ""
row "   perf record alone, ms (median; range)" "" \
	"$(P "$PR_T_MED; $(range "${PR_T[@]}")")" "" \
	"$(vs_best "$SM_T_MED" "$(peer perf "${PR_T_MED:-x}")" lower)"
row "4. peak RSS, KiB" "${SM_RSS:-n/a}" \
	"$(P "$(or_na "${PERF_RSS:-}" "n/a (no /usr/bin/time)") (rec ${PERF_RSS_REC:-}/script ${PERF_RSS_SCR:-})")" "$(B "${BT_RSS:-n/a}")" \
	"$(vs_best "${SM_RSS:-x}" "$(peer perf "${PERF_RSS:-x}") $(peer bpftrace "${BT_RSS:-x}")" lower)"
row "5. kernel memory, KiB" "${SM_KMEM:-n/a} (maps)" \
	"$(P "$PERF_KMEM_K (ring buffers)")" "$(B "$BT_KMEM_K (maps)")" \
	"$(vs_best "${SM_KMEM:-x}" "$(peer perf "$PERF_KMEM_K") $(peer bpftrace "$BT_KMEM_K")" lower)"
echo
echo "ratio: smolder's figure / the best peer's (fewer ns, losses, seconds, KiB are"
echo "better; more distinct stacks is better, though that count also follows the"
echo "many_stacks samples a tool got).  Lost: smolder and perf count their own;"
echo "bpftrace counts none, so its figure is its profile program's runs minus the"
echo "samples it printed (its map holds 4096 keys; more are dropped silently)."
[ -n "$BT_ERR" ] && echo "bpftrace failed: $BT_ERR"
[ -z "$BT_NA" ] && [ "${BT_STACKERR:-0}" -gt 0 ] &&
	echo "bpftrace printed ${BT_STACKERR} 'failed to look up stack id' errors (stack map collisions)."

# --- table 6: symbolization ---------------------------------------------------
if [ $SYM_OK = 1 ]; then
	row6() { printf "%-44s %-14s %-24s %-24s %s\n" "$@"; }
	SP6() { [ -n "$SYM_PERF_NA" ] && echo "$SYM_PERF_NA" || echo "$1"; }
	peer6() { [ -n "$SYM_PERF_NA" ] || echo "perf-script=$1 perf-report=$2"; }
	share() { [ -n "$2" ] && [ "$2" -gt 0 ] 2>/dev/null && pct "$1" "$2" || echo "n/a"; }
	sm_sh=$(share "${SYM_SM_NAMED:-0}" "${SYM_SM_MSS:-0}")
	ps_sh=$(share "${SYM_PS_NAMED:-0}" "${SYM_PS_MSS:-0}")
	rp_sh=$(share "${SYM_RP_NAMED:-0}" "${SYM_RP_MSS:-0}")
	ps_exit=""; rp_exit=""
	[ -n "${SYM_REC_WRAP:-}" ] && ps_exit=$(( SYM_REC_WRAP + SYM_PS_MS )) && rp_exit=$(( SYM_REC_WRAP + SYM_RP_MS ))
	echo
	echo "6. symbolization: $SYM_N many_stacks processes (1 thread each), ${SYM_DUR} s at $HZ Hz, whole machine"
	row6 "metric" "smolder" "perf script | fold" "perf report -g folded" "smolder / best perf"
	row6 "------" "-------" "------------------" "---------------------" "-------------------"
	row6 "time to folded output, ms" "${SYM_SM_MS:-n/a}" "$(SP6 "${SYM_PS_MS:-}")" "$(SP6 "${SYM_RP_MS:-}")" \
		"$(vs_best "${SYM_SM_MS:-x}" "$(peer6 "${SYM_PS_MS:-x}" "${SYM_RP_MS:-x}")" lower)"
	row6 "   end of capture to exit, ms (+record)" "${SYM_SM_EXIT:-n/a}" \
		"$(SP6 "$ps_exit (${SYM_REC_WRAP:-?} + ${SYM_PS_MS:-?})")" "$(SP6 "$rp_exit (${SYM_REC_WRAP:-?} + ${SYM_RP_MS:-?})")" \
		"$(vs_best "${SYM_SM_EXIT:-x}" "$(peer6 "${ps_exit:-x}" "${rp_exit:-x}")" lower)"
	row6 "peak RSS, KiB" "${SYM_SM_RSS:-n/a}" \
		"$(SP6 "$(or_na "${SYM_PS_RSS:-}") (awk ${SYM_PSF_RSS:-n/a})")" "$(SP6 "$(or_na "${SYM_RP_RSS:-}") (awk ${SYM_RPF_RSS:-n/a})")" \
		"$(vs_best "${SYM_SM_RSS:-x}" "$(peer6 "${SYM_PS_RSS:-x}" "${SYM_RP_RSS:-x}")" lower)"
	row6 "samples taken / folded stacks written" "${SYM_SM_SAMPLES:-?} / ${SYM_SM_N:-?}" \
		"$(SP6 "${SYM_PERF_SAMPLES:-?} / ${SYM_PS_N:-?}")" "$(SP6 "${SYM_PERF_SAMPLES:-?} / ${SYM_RP_N:-?}")" ""
	row6 "many_stacks_* samples in the output" "${SYM_SM_MSS:-n/a}" "$(SP6 "${SYM_PS_MSS:-}")" "$(SP6 "${SYM_RP_MSS:-}")" ""
	row6 "   distinct stacks" "${SYM_SM_DIST:-n/a}" "$(SP6 "${SYM_PS_DIST:-}")" "$(SP6 "${SYM_RP_DIST:-}")" ""
	row6 "   fully named (no [unknown] or [..])" "$sm_sh" "$(SP6 "$ps_sh")" "$(SP6 "$rp_sh")" \
		"$(vs_best "$(strip "$sm_sh")" "$(peer6 "$(strip "$ps_sh")" "$(strip "$rp_sh")")" higher)"
	echo
	echo "time to folded output: smolder's own -v figure (capture stopped -> file written);"
	echo "perf: wall time of the pipeline alone, perf.data already written.  The row"
	echo "below it is seen from here: smolder from the end of its capture to its exit,"
	echo "perf from the end of \`sleep\` (+ record's wrap-up, then the pipeline).  Peak"
	echo "RSS: smolder's whole run; perf script / report, the awk folding beside them"
	echo "(perf record itself: ${SYM_REC_RSS:-n/a} KiB).  Ratios: smolder / the better perf way."
	echo "workload: processes alive at the end of the capture: ${SYM_SM_ALIVE:-?}/$SYM_N (smolder run), ${SYM_PERF_ALIVE:-?}/$SYM_N (perf run);"
	echo "          warm-up: ${SYM_SM_WARM:-?} / ${SYM_PERF_WARM:-?} ms (still calibrating then: ${SYM_SM_CALIB:-?} / ${SYM_PERF_CALIB:-?});"
	echo "          SCHED_IDLE; frozen (SIGSTOP) $((SYM_PRE_US / 1000)) ms before the capture ends, killed after the tools exit."
else
	echo
	echo "6. symbolization: not run (it needs chrt, from util-linux, and a FIFO under $TMP)"
fi
echo
echo "commands (as root; all at $HZ Hz, whole machine, one tool at a time):"
echo "  workloads: build/workloads/many_stacks (2), build/workloads/cpu_split (3)"
echo "  smolder:  ./smolder -v -F $HZ -a -f -o FILE $DUR                  (1, 2, 4, 5)"
echo "            ./smolder -v -F $HZ -f -o FILE 1                        (1, 3)"
echo "  perf:     perf record -e cpu-clock -F $HZ -a -g -o F -- sleep $DUR; perf script -i F"
echo "            perf record -e cpu-clock -a -g -F $HZ -o F -- sleep 1; perf script -i F >/dev/null  (3)"
echo "  bpftrace: bpftrace -e '$BT_PROG interval:s:$DUR { exit(); }'"
echo "            bpftrace -e '$BT_PROG interval:s:1 { exit(); }'  (1, 3)"
echo "  6: $SYM_N x build/workloads/many_stacks $SYM_LOAD_S 1, each through its own symlink many_stacks_NNN, at SCHED_IDLE"
echo "            ./smolder -v -F $HZ -f -o FILE $SYM_DUR"
echo "            perf record -e cpu-clock -F $HZ -a -g -o F -- sleep $SYM_DUR"
echo "            perf script -i F | (awk fold, in scripts/bench.sh)"
echo "            perf report -i F --stdio --no-children -g folded,0,caller,count | (awk: comm prefix)"
echo "  this table: sudo make bench"
