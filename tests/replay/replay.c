// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The unwinder replayed (issue 22): every recording in tests/replay (real
 * samples of the frameless workloads, tests/tools/unwind_record) walked by
 * bpf/unwind.bpf.h itself, compiled for user space (walk.c), and judged
 * against the workload's known call graph: each sample's frames, named as
 * recorded, are classified by tests/unwind_classify.awk, the same judge as
 * the kernel tests' (tests/cli/unwind.sh).  A recording passes when every
 * sample is exact (whole from _start, or the 127 innermost frames of the
 * deep recursion; no caller wrong), its walks fell back on nothing, and one
 * sample at least shows what the recording is for (its mode's signature
 * below: a signal frame, a PLT entry, ...).  Then the mutants: the same
 * replay built on the walk with one deliberate bug each (an off-by-one in
 * the CFA rule, ...; tests/replay/mutate.sh makes them from
 * bpf/unwind.bpf.h, beside this binary in ../replay/mutants): each must
 * fail one recording at least.  Needs no root and no BPF.
 *
 *   test_unwind_replay [-v] [-M] [DIR]   (default tests/replay; the
 *       classifier is DIR/../unwind_classify.awk; -v prints every sample's
 *       frames; -M leaves the mutants out, as they run themselves, and
 *       the details of failures)
 */
#include <errno.h>
#include <sys/wait.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind_image.h"
#include "walk.h"

/* What each mode's recording must show in one sample at least (an ERE over
 * its folded stack, process frame first). */
static const struct {
	const char *mode, *signature;
} signatures[] = {
	{ "leaf", ";run_leaf;chain_a;chain_b;hot_leaf$" },
	{ "bigframe", ";big_frame;hot_leaf$" },
	{ "recurse", "^[^;]+(;recurse){126};hot_leaf$" },
	/* a PLT entry: no symbol covers .plt, and elf_syms stretches the
	 * zero-sized _init (.init, just before) up to the next symbol */
	{ "plt", ";run_plt;(_init|\\[unwind_paths-[a-z]+\\+0x[0-9a-f]+\\])$" },
	/* the handler above the signal frame, which glibc's __restore_rt
	 * holds (named at its return address - 1, the byte before it) */
	{ "signal", ";(__restore_rt|\\[libc\\.so\\.6\\+0x[0-9a-f]+\\]);on_prof(;hot_leaf)?$" },
	/* and the pc it interrupted, a function's first instruction */
	{ "sigentry", ";run_fault;load_at_entry;(__restore_rt|\\[libc\\.so\\.6\\+0x[0-9a-f]+\\]);"
		      "on_segv(;|$)" },
};

static bool verbose;
static bool explain_failures = true; /* not in a mutant's run, unless -v */

struct judged {
	long total, exact, truncated, wrong;
	char example[256];
};

/* Sample s of img walked, as a folded line: "WORKLOAD;outermost;...;leaf".
 * A frame is named at its pc when exact (the leaf, a pc a signal
 * interrupted), else at its return address - 1, as smolder names it. */
static void fold(const struct unwind_image *img, const struct replay_walk *w, char *out,
		 size_t len)
{
	size_t n = (size_t)snprintf(out, len, "%s", img->workload);

	for (int i = (int)w->trace.nr - 1; i >= 0 && n < len; i--) {
		bool exact = !i || (i < 32 && (w->trace.exact >> i & 1));
		uint64_t at = exact ? w->trace.ip[i] : w->trace.ip[i] - 1;
		const char *name = unwind_image__name(img, at);

		n += (size_t)snprintf(out + n, len - n, ";%s", name ? name : "[unrecorded]");
	}
}

/* Folded lines classified by the awk script: false if it could not run. */
static bool classify(const char *script, char *const *lines, size_t nr, struct judged *j)
{
	char path[] = "/tmp/smolder-replay.XXXXXX", cmd[PATH_MAX * 2 + 64];
	FILE *f, *p;
	int fd = mkstemp(path);
	bool ok = false;

	memset(j, 0, sizeof(*j));
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return false;
	for (size_t i = 0; i < nr; i++)
		fprintf(f, "%s 1\n", lines[i]);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "awk -f '%s' '%s'", script, path);
	p = popen(cmd, "r");
	if (p) {
		ok = fscanf(p, "%ld %ld %ld %ld %*f %255s", &j->total, &j->exact, &j->truncated,
			    &j->wrong, j->example) == 5;
		ok = pclose(p) == 0 && ok;
	}
	unlink(path);
	return ok;
}

static const char *signature_of(const char *mode)
{
	for (size_t i = 0; i < sizeof(signatures) / sizeof(signatures[0]); i++)
		if (!strcmp(signatures[i].mode, mode))
			return signatures[i].signature;
	return NULL;
}

/* Prints why sample i failed: its walk, its classification, its frames. */
static void explain(const char *script, size_t i, char *line, const struct replay_walk *w)
{
	struct judged j;
	char reasons[128];

	classify(script, &line, 1, &j);
	printf("  sample %zu: pc %#lx, %u frames, %s, fallbacks %s, %s%s\n    %s\n", i,
	       (unsigned long)w->trace.ip[0], w->trace.nr, w->complete ? "complete" : "not complete",
	       replay__reasons(w->reasons, reasons, sizeof(reasons)),
	       j.exact ? "exact" : j.wrong ? "wrong caller: " : "truncated",
	       j.wrong ? j.example : "", line);
}

/* What the walks of one recording gave. */
struct walked {
	char **lines;       /* each sample's folded stack */
	size_t fell_back;   /* walks with a fallback, or ended before the stack did */
	size_t first_bad;   /* the first of those (SIZE_MAX: none) */
	size_t signed_;     /* samples showing the mode's signature */
	size_t differ;      /* samples the bpf_loop walk gives otherwise */
	size_t first_differ;
};

/* Whether two walks of a sample gave the same stack, reasons and end. */
static bool same_walk(const struct replay_walk *a, const struct replay_walk *b)
{
	return a->trace.nr == b->trace.nr && a->trace.exact == b->trace.exact &&
	       !memcmp(a->trace.ip, b->trace.ip, a->trace.nr * sizeof(a->trace.ip[0])) &&
	       a->reasons == b->reasons && a->complete == b->complete;
}

/* Walks every sample of img; false out of memory. */
static bool walk_all(const struct unwind_image *img, const char *name, const regex_t *sig,
		     struct walked *out)
{
	size_t len = 256 * (SMOLDER_MAX_DEPTH + 2);
	struct replay_walk w, wl;

	*out = (struct walked){ .first_bad = SIZE_MAX, .first_differ = SIZE_MAX };
	out->lines = calloc(img->nr_samples + 1, sizeof(*out->lines));
	for (size_t i = 0; out->lines && i < img->nr_samples; i++) {
		replay__walk(img, &img->samples[i], &w, false);
		replay__walk(img, &img->samples[i], &wl, true);
		if (!same_walk(&w, &wl) && !out->differ++)
			out->first_differ = i;
		if (!(out->lines[i] = malloc(len)))
			return false;
		fold(img, &w, out->lines[i], len);
		if (verbose)
			printf("  %s: %s\n", name, out->lines[i]);
		/* only the deep recursion ends early, at the depth limit */
		if (!replay__only_depth(w.reasons) ||
		    (!w.complete && w.trace.nr < SMOLDER_MAX_DEPTH)) {
			out->fell_back++;
			if (out->first_bad == SIZE_MAX)
				out->first_bad = i;
		}
		out->signed_ += !regexec(sig, out->lines[i], 0, NULL, 0);
	}
	return out->lines != NULL;
}

/* The FAIL line's details: the first three samples that are not exact. */
static void explain_all(const struct unwind_image *img, const char *script, struct walked *wd)
{
	struct replay_walk w;
	struct judged one;

	for (size_t i = 0, shown = 0; i < img->nr_samples && shown < 3; i++) {
		classify(script, &wd->lines[i], 1, &one);
		if (one.exact && i != wd->first_bad)
			continue;
		replay__walk(img, &img->samples[i], &w, false);
		explain(script, i, wd->lines[i], &w);
		shown++;
	}
}

/* Replays one recording; prints its PASS or FAIL line; true if it passed. */
static bool replay(const char *path, const char *script)
{
	char err[512], name[PATH_MAX], *dot;
	struct unwind_image *img = unwind_image__load(path, err, sizeof(err));
	struct walked wd = { 0 };
	struct judged j = { 0 };
	const char *sig;
	regex_t re;
	bool ok;

	snprintf(name, sizeof(name), "%s", basename((char *)path));
	if ((dot = strstr(name, ".rec")))
		*dot = '\0';
	if (!img) {
		printf("FAIL replay_%s: %s\n", name, err);
		return false;
	}
	sig = signature_of(img->mode);
	if (!sig || regcomp(&re, sig, REG_EXTENDED | REG_NOSUB)) {
		printf("FAIL replay_%s: no signature for mode '%s'\n", name, img->mode);
		unwind_image__free(img);
		return false;
	}
	ok = walk_all(img, name, &re, &wd) && img->nr_samples &&
	     classify(script, wd.lines, img->nr_samples, &j) &&
	     j.total == (long)img->nr_samples && j.exact == j.total && !wd.fell_back && wd.signed_ &&
	     !wd.differ;
	if (ok) {
		printf("PASS replay_%s: %zu samples of %s %s, all whole, %zu with its signature, "
		       "the bpf_loop walk the same\n",
		       name, img->nr_samples, img->workload, img->mode, wd.signed_);
	} else {
		printf("FAIL replay_%s: %ld of %zu samples exact, %ld truncated, %ld wrong (e.g. %s), "
		       "%zu fell back or ended early, %zu with the signature %s, "
		       "%zu walked otherwise by bpf_loop (first: sample %zd)\n",
		       name, j.exact, img->nr_samples, j.truncated, j.wrong, j.example, wd.fell_back,
		       wd.signed_, sig, wd.differ, wd.differ ? (ssize_t)wd.first_differ : -1);
		if (wd.lines && explain_failures)
			explain_all(img, script, &wd);
	}
	for (size_t i = 0; wd.lines && i < img->nr_samples; i++)
		free(wd.lines[i]);
	free(wd.lines);
	regfree(&re);
	unwind_image__free(img);
	return ok;
}

/*
 * Runs a mutant on the recordings: PASS when it fails one at least (its
 * lines are indented, so that only this one counts).
 */
static bool run_mutant(const char *mutant, const char *dir)
{
	char cmd[PATH_MAX * 2 + 16], line[4096], name[PATH_MAX];
	int passed = 0, failed = 0, st;
	FILE *p;

	snprintf(name, sizeof(name), "%s", mutant);
	snprintf(name, sizeof(name), "%s", basename(dirname(name)));
	snprintf(cmd, sizeof(cmd), "'%s' -M '%s'", mutant, dir);
	p = popen(cmd, "r");
	while (p && fgets(line, sizeof(line), p)) {
		passed += !strncmp(line, "PASS replay_", 12);
		failed += !strncmp(line, "FAIL replay_", 12);
		if (verbose)
			printf("    %s", line);
	}
	st = p ? pclose(p) : -1;
	if (failed && WIFEXITED(st) && WEXITSTATUS(st) == 1) {
		printf("PASS replay_mutant_%s: the walk with this bug fails %d of %d recordings\n",
		       name, failed, passed + failed);
		return true;
	}
	printf("FAIL replay_mutant_%s: the walk with this bug passes %d of %d recordings "
	       "(exit status %d): the replay misses it\n", name, passed, passed + failed, st);
	return false;
}

/* The mutants beside this binary (build/tests/../replay/mutants/NAME/): each
 * one's replay, or its note that its mutation no longer applies. */
static int run_mutants(const char *self, const char *dir)
{
	char path[PATH_MAX], pattern[PATH_MAX], note[512];
	glob_t g;
	int failed = 0;

	snprintf(path, sizeof(path), "%s", self);
	snprintf(pattern, sizeof(pattern), "%s/../replay/mutants/*/", dirname(path));
	if (glob(pattern, GLOB_MARK, NULL, &g) || !g.gl_pathc) {
		printf("FAIL replay_mutants: none in %s (make unit builds them)\n", pattern);
		return 1;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%sreplay", g.gl_pathv[i]);
		if (!access(path, X_OK)) {
			failed += !run_mutant(path, dir);
			continue;
		}
		snprintf(path, sizeof(path), "%snot-applied", g.gl_pathv[i]);
		f = fopen(path, "r");
		if (!f || !fgets(note, sizeof(note), f))
			snprintf(note, sizeof(note), "not built\n");
		if (f)
			fclose(f);
		printf("FAIL replay_mutant_%s: %s", basename(dirname(path)), note);
		failed++;
	}
	globfree(&g);
	return failed;
}

int main(int argc, char **argv)
{
	const char *dir;
	char pattern[PATH_MAX], script[PATH_MAX];
	glob_t g;
	int failed = 0;

	bool mutants = true;
	int c;

	while ((c = getopt(argc, argv, "vM")) != -1) {
		if (c == 'v')
			verbose = true;
		else if (c == 'M')
			mutants = false;
		else
			return 2;
	}
	dir = optind < argc ? argv[optind] : "tests/replay";
	explain_failures = mutants || verbose;
	snprintf(pattern, sizeof(pattern), "%s/*.rec.gz", dir);
	snprintf(script, sizeof(script), "%s/../unwind_classify.awk", dir);
	if (access(script, R_OK)) {
		printf("FAIL replay: no classifier %s: %s\n", script, strerror(errno));
		return 1;
	}
	if (glob(pattern, 0, NULL, &g) || !g.gl_pathc) {
		printf("FAIL replay: no recordings %s\n", pattern);
		return 1;
	}
	for (size_t i = 0; i < g.gl_pathc; i++)
		failed += !replay(g.gl_pathv[i], script);
	globfree(&g);
	if (mutants)
		failed += run_mutants(argv[0], dir);
	return failed ? 1 : 0;
}
