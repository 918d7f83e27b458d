// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pprof output: a profile as a gzip-compressed profile.proto (the format of
 * github.com/google/pprof, proto/profile.proto), read by `go tool pprof`,
 * pprof's web UI and the tools that import it.  One Function per distinct
 * frame name.  A folded file's profile has one Location per name and one
 * Sample per stack, its locations leaf first.  A capture's has one Sample
 * per stack and addresses of its frames (a site, profile_addr.h), one
 * Location per (name, file, address) and one Mapping per file segment, with
 * its range; its samples also carry labels: process (comm), pid, and thread
 * and cpu when the view kept them (pid and thread not with
 * render_opts.without_pids), cgroup and container when the process had
 * them (stack_origin); its file has duration_nanos, the main
 * binary (the command's or the one -p process's executable, with its build
 * id) as the first Mapping, and [kernel.kallsyms] when kernel stacks were
 * taken.  A source location (a CPython frame: profile_addr.h) is a
 * Location with no mapping nor address, whose Line is its line in a
 * Function of its own: the bare function name, its file and first line,
 * as Go's profiles carry them, so that `go tool pprof -list` shows the
 * source with each line's samples.
 *
 * Values are samples/count, and cpu/nanoseconds when the period is known;
 * a time-weighted profile (--off-cpu: microseconds of running and waiting)
 * has one, wall/nanoseconds, the type Go's wall-clock profilers and the
 * fleet backends use for time spent on and off the CPU, whose nanoseconds
 * `go tool pprof` shows as ms, s or min.
 *
 * It streams: samples are encoded and compressed as the stacks are read,
 * and the locations, functions and string table, known only at the end,
 * follow them.  Protobuf fields may come in any order, and every reader
 * resolves string and location references after decoding the whole message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include "lib/grow.h"
#include "output/pprof.h"
#include "output/pb.h"

#include "output/pprof_int.h"


/* Compresses top's bytes (all of them, and the gzip trailer when finishing)
 * and writes them out.  -1 with errno when the stream failed. */
int pw_deflate(struct pprof_writer *w, int flush)
{
	unsigned char buf[16384];
	size_t have;
	int rc;

	w->z.next_in = w->top.buf;
	w->z.avail_in = (uInt)w->top.len;
	do {
		w->z.next_out = buf;
		w->z.avail_out = sizeof(buf);
		rc = deflate(&w->z, flush);
		if (rc == Z_STREAM_ERROR) {
			errno = EINVAL;
			return -1;
		}
		have = sizeof(buf) - w->z.avail_out;
		if (have && fwrite(buf, 1, have, w->out) != have) {
			if (!errno)
				errno = EIO;
			return -1;
		}
	} while (w->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	w->top.len = 0;
	return 0;
}

/* A ValueType message {type, unit} as field `field` of the top level. */
static void pw_value_type(struct pprof_writer *w, unsigned field, int type, int unit)
{
	w->msg.len = 0;
	pb__uint(&w->msg, VALUE_TYPE_TYPE, type);
	pb__uint(&w->msg, VALUE_TYPE_UNIT, unit);
	pb__bytes(&w->top, field, w->msg.buf, w->msg.len);
}

/* A Mapping {id, filename, build_id}, its functions known (pprof does
 * not look for symbols; no addresses are written). */
void pw_mapping(struct pprof_writer *w, uint64_t id, int file, int build_id)
{
	w->msg.len = 0;
	pb__uint(&w->msg, MAPPING_ID, id);
	pb__uint(&w->msg, MAPPING_FILENAME, file);
	if (build_id != S_EMPTY)
		pb__uint(&w->msg, MAPPING_BUILD_ID, build_id);
	pb__uint(&w->msg, MAPPING_HAS_FUNCTIONS, 1);
	pb__bytes(&w->top, PROFILE_MAPPING, w->msg.buf, w->msg.len);
}

/* The main binary first (pprof's "File:"), then the kernel. */
static void pw_mappings(struct pprof_writer *w)
{
	const struct capture_info *ci = &w->p->info;
	uint64_t id = 1;

	if (w->addrs)
		return; /* pw_addr_mappings, once the strings before theirs are known */
	if (ci->main_binary)
		pw_mapping(w, id++, S_MAIN, ci->main_build_id ? S_BUILD_ID : S_EMPTY);
	if (ci->kernel && w->p->origins) {
		w->kernel_mapping = id;
		pw_mapping(w, id++, S_KERNEL, S_EMPTY);
	}
}

/* The string index of label value c (a process name, a CPU number; at most
 * 15 bytes): added after the frame names. */
static int64_t pw_comm(struct pprof_writer *w, const char *c)
{
	struct comms *m = &w->comms;
	size_t i;

	if (m->nr && !strncmp(m->name[m->last], c, 16))
		return S_FRAMES + w->used.nr + w->nr_values + m->last;
	for (i = 0; i < m->nr && strncmp(m->name[i], c, 16); i++)
		;
	if (i == m->nr) {
		if (GROW(m->name, m->cap, m->nr + 1, 64))
			return -ENOMEM;
		memcpy(m->name[m->nr], c, 16);
		m->name[m->nr++][15] = '\0';
	}
	m->last = i;
	return S_FRAMES + w->used.nr + w->nr_values + i;
}

/* A Label {key, str} or {key, num} of the sample being built in w->msg. */
static void pw_label(struct pprof_writer *w, int key, int64_t str, int64_t num)
{
	w->label.len = 0;
	pb__uint(&w->label, LABEL_KEY, key);
	if (str >= 0)
		pb__uint(&w->label, LABEL_STR, str);
	else
		pb__uint(&w->label, LABEL_NUM, num);
	pb__bytes(&w->msg, SAMPLE_LABEL, w->label.buf, w->label.len);
}

/* A capture's sample i: who ran it. */
static int pw_labels(struct pprof_writer *w, size_t i)
{
	const struct stack_origin *o = w->p->origins ? &w->p->origins[i] : NULL;
	int64_t comm;

	if (!o)
		return 0;
	if ((comm = pw_comm(w, o->comm)) < 0)
		return (int)comm;
	pw_label(w, S_PROCESS, comm, 0);
	if (o->tgid && !w->without_pids)
		pw_label(w, S_PID, -1, o->tgid);
	if (o->tid && !w->without_pids)
		pw_label(w, S_THREAD, -1, o->tid);
	if (o->cgroup)
		pw_label(w, S_CGROUP, S_FRAMES + w->used.nr + w->value_number[o->cgroup - 1] - 1, 0);
	if (o->container)
		pw_label(w, S_CONTAINER,
			 S_FRAMES + w->used.nr + w->value_number[o->container - 1] - 1, 0);
	if (o->cpu >= 0) {
		/* a string: pprof drops a numeric label of 0 that has no unit */
		char cpu[16];

		snprintf(cpu, sizeof(cpu), "%d", o->cpu);
		if ((comm = pw_comm(w, cpu)) < 0)
			return (int)comm;
		pw_label(w, S_CPU, comm, 0);
	}
	return w->label.err;
}

/* What pprof shows about the whole profile: the kinds of value each sample
 * has, the sampling period when known, when, and who wrote it. */
static void pw_header(struct pprof_writer *w)
{
	struct timespec ts;

	if (w->p->time_weighted) {
		pw_value_type(w, PROFILE_SAMPLE_TYPE, S_VALUE_TYPE, S_NANOSECONDS);
	} else {
		pw_value_type(w, PROFILE_SAMPLE_TYPE, S_VALUE_TYPE, S_COUNT);
		if (w->period_ns)
			pw_value_type(w, PROFILE_SAMPLE_TYPE, S_CPU, S_NANOSECONDS);
	}
	if (w->period_ns) {
		pw_value_type(w, PROFILE_PERIOD_TYPE,
			      w->p->time_weighted ? S_VALUE_TYPE : S_CPU, S_NANOSECONDS);
		pb__uint(&w->top, PROFILE_PERIOD, w->period_ns);
	}
	/* drop_frames is S_EMPTY, no regexp: pprof drops no frame (written
	 * although zero, the default, to say so). */
	pb__uint(&w->top, PROFILE_DROP_FRAMES, S_EMPTY);
	/* When sampling began; for files that do not say, the time of
	 * writing, the nearest thing known here (informational in pprof). */
	clock_gettime(CLOCK_REALTIME, &ts);
	pb__uint(&w->top, PROFILE_TIME_NANOS, w->p->info.start_ns ? w->p->info.start_ns :
		 (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec);
	pb__uint(&w->top, PROFILE_COMMENT, S_NAME);
	pb__uint(&w->top, PROFILE_COMMENT, S_EXPORTER);
	if (*w->described)
		pb__uint(&w->top, PROFILE_COMMENT, S_DESCRIBED);
	if (w->p->info.duration_ns)
		pb__uint(&w->top, PROFILE_DURATION_NANOS, w->p->info.duration_ns);
	pw_mappings(w);
}

static int pw_push_id(struct pprof_writer *w, uint64_t id)
{
	if (GROW(w->ids, w->cap, w->nids + 1, 64))
		return -ENOMEM;
	w->ids[w->nids++] = id;
	return 0;
}

/*
 * A capture's profile knows where its frames were (profile_addr.h): one
 * Sample per site, one Location per distinct (name, file, address), and a
 * Mapping per file with its range and build id, the main binary first.
 */

/* The Location ids of the site being written, root first, in w->ids;
 * locations are numbered as first used. */
static int pw_site_ids(struct pprof_writer *w, uint32_t depth)
{
	const uint32_t *locs = paddrs__site_locs(w->addrs, w->site);

	w->nids = 0;
	for (uint32_t i = 0; i < depth; i++) {
		uint32_t l = locs[i];

		/* inlined into by the next frame: one Location, the innermost's */
		if (i + 1 < depth && w->addrs->locs[locs[i + 1]].outer == l + 1)
			continue;
		if (!w->loc_number[l]) {
			w->loc_order[w->nr_locs] = l;
			w->loc_number[l] = (uint32_t)++w->nr_locs;
		}
		if (pw_push_id(w, w->loc_number[l]))
			return -ENOMEM;
	}
	return 0;
}


/* The location ids of stack s, root first, in w->ids. */
static int pw_stack_ids(struct pprof_writer *w, const struct profile *p, const struct pstack *s)
{
	const uint32_t *ids = profile__ids(p, s);

	const struct stack_origin *o = p->origins ? &p->origins[s - p->stacks] : NULL;

	if (w->site)
		return pw_site_ids(w, s->depth);
	w->nids = 0;
	for (uint32_t i = 0; i < s->depth; i++) {
		if (pw_push_id(w, w->used.number[ids[i]]))
			return -ENOMEM;
		if (o && w->in_kernel && i >= stack_origin__kernel_from(o))
			w->in_kernel[w->used.number[ids[i]] - 1] = 1;
	}
	return 0;
}

/* One Sample: location ids leaf first (pprof's order), then its values.
 * pprof values are integers: a decimal count (folded files may have them)
 * is rounded to the nearest, and a stack that rounds to none is left out,
 * as is a diff's stack that AFTER no longer has.  Counts past int64 (or
 * not numbers) cannot be written and are left out too. */
static int64_t rounded(const struct pstack *s)
{
	int64_t n = 0;

	/* llround without libm (not linked): count - n is exact. */
	if (s->count > 0 && s->count < 9e18) {
		n = (int64_t)s->count;
		n += s->count - (double)n >= 0.5;
	}
	return n;
}

static bool kept(const struct pstack *s)
{
	return rounded(s) > 0;
}

static int pw_sample(struct pprof_writer *w, const struct profile *p, const struct pstack *s);

static void pw_number_value(struct pprof_writer *w, uint32_t id_plus_1)
{
	if (id_plus_1 && !w->value_number[id_plus_1 - 1]) {
		w->value_order[w->nr_values] = id_plus_1 - 1;
		w->value_number[id_plus_1 - 1] = (uint32_t)++w->nr_values;
	}
}

/* Numbers the label values of the stacks' origins (their strings
 * precede the comms, which are numbered as the samples are written). */
static int pw_values_init(struct pprof_writer *w, const struct profile *p)
{
	w->value_number = calloc(p->names.nr + 1, sizeof(*w->value_number));
	w->value_order = malloc((p->names.nr + 1) * sizeof(*w->value_order));
	if (!w->value_number || !w->value_order)
		return -ENOMEM;
	for (size_t i = 0; i < p->nr; i++) {
		pw_number_value(w, p->origins[i].cgroup);
		pw_number_value(w, p->origins[i].container);
	}
	return 0;
}

/* A Sample per site: its stack's, with the site's count. */
static int pw_sites(struct pprof_writer *w, const struct profile *p)
{
	int err = 0;

	for (size_t i = 0; !err && i < w->addrs->nr_sites; i++) {
		struct pstack s;

		w->site = &w->addrs->sites[i];
		s = p->stacks[w->site->stack];
		s.count = w->site->count;
		err = pw_sample(w, p, &s);
	}
	w->site = NULL;
	return err;
}

static int pw_sample(struct pprof_writer *w, const struct profile *p, const struct pstack *s)
{
	int e;
	uint64_t values[2];
	int64_t n = rounded(s);

	if (n <= 0)
		return 0;
	if (w->p->time_weighted && n > INT64_MAX / 1000)
		return 0; /* microseconds past int64's nanoseconds */
	values[0] = (uint64_t)n * (w->p->time_weighted ? 1000 : 1);
	values[1] = (uint64_t)n * w->period_ns;
	if (pw_stack_ids(w, p, s))
		return -ENOMEM;
	w->msg.len = 0;
	pb__packed(&w->msg, SAMPLE_LOCATION_ID, w->ids, w->nids, 1);
	pb__packed(&w->msg, SAMPLE_VALUE, values, w->period_ns && !w->p->time_weighted ? 2 : 1, 0);
	if ((e = pw_labels(w, w->site ? w->site->stack : (size_t)(s - p->stacks))))
		return e;
	pb__bytes(&w->top, PROFILE_SAMPLE, w->msg.buf, w->msg.len);
	if (w->top.err)
		return w->top.err;
	return w->top.len >= FLUSH_AT ? pw_deflate(w, Z_NO_FLUSH) : 0;
}

/* Location i + 1 {line: [{function_id: i + 1}]} and Function i + 1 named
 * by string S_FRAMES + i, for every name a kept stack uses. */
static int pw_functions(struct pprof_writer *w)
{
	for (size_t i = 0; i < w->used.nr; i++) {
		uint64_t id = i + 1;

		w->line.len = 0;
		pb__uint(&w->line, LINE_FUNCTION_ID, id);
		w->msg.len = 0;
		pb__uint(&w->msg, LOCATION_ID, id);
		if (w->kernel_mapping && w->in_kernel && w->in_kernel[i])
			pb__uint(&w->msg, LOCATION_MAPPING_ID, w->kernel_mapping);
		pb__bytes(&w->msg, LOCATION_LINE, w->line.buf, w->line.len);
		if (!w->addrs)
			pb__bytes(&w->top, PROFILE_LOCATION, w->msg.buf, w->msg.len);
		if (w->name_use && w->name_use[i] == NAME_BY_SOURCE)
			continue;
		w->msg.len = 0;
		pb__uint(&w->msg, FUNCTION_ID, id);
		pb__uint(&w->msg, FUNCTION_NAME, S_FRAMES + i);
		pb__uint(&w->msg, FUNCTION_SYSTEM_NAME, S_FRAMES + i);
		pb__bytes(&w->top, PROFILE_FUNCTION, w->msg.buf, w->msg.len);
		if (w->msg.err || w->line.err || w->top.err)
			return -ENOMEM;
		if (w->top.len >= FLUSH_AT && pw_deflate(w, Z_NO_FLUSH))
			return -1;
	}
	return 0;
}

static int pw_strings(struct pprof_writer *w, const char *name)
{
	const char *fixed[S_FRAMES] = {
		[S_EMPTY] = "",
		[S_VALUE_TYPE] = w->p->time_weighted ? "wall" : "samples", [S_COUNT] = "count",
		[S_CPU] = "cpu", [S_NANOSECONDS] = "nanoseconds", [S_NAME] = name,
		[S_EXPORTER] = "smolder " SMOLDER_VERSION, [S_PROCESS] = "process",
		[S_PID] = "pid", [S_THREAD] = "thread",
		[S_MAIN] = w->p->info.main_binary ? w->p->info.main_binary : "",
		[S_BUILD_ID] = w->p->info.main_build_id ? w->p->info.main_build_id : "",
		[S_KERNEL] = "[kernel.kallsyms]", [S_DESCRIBED] = w->described,
		[S_CGROUP] = "cgroup", [S_CONTAINER] = "container",
	};

	for (int i = 0; i < S_FRAMES; i++)
		pb__string(&w->top, PROFILE_STRING_TABLE, fixed[i], strlen(fixed[i]));
	for (size_t i = 0; i < w->used.nr; i++) {
		const struct strtab_ent *e = &w->names->ent[w->used.order[i]];

		pb__string(&w->top, PROFILE_STRING_TABLE, e->s, e->len);
		if (w->top.err)
			return -ENOMEM;
		if (w->top.len >= FLUSH_AT && pw_deflate(w, Z_NO_FLUSH))
			return -1;
	}
	for (size_t i = 0; i < w->nr_values; i++) {
		const struct strtab_ent *e = &w->names->ent[w->value_order[i]];

		pb__string(&w->top, PROFILE_STRING_TABLE, e->s, e->len);
	}
	for (size_t i = 0; i < w->comms.nr; i++)
		pb__string(&w->top, PROFILE_STRING_TABLE, w->comms.name[i], strlen(w->comms.name[i]));
	return w->top.err;
}

static int pw_body(struct pprof_writer *w, const struct profile *p, const char *name)
{
	int err;

	pw_header(w);
	for (size_t i = 0; !w->addrs && i < p->nr; i++) {
		err = pw_sample(w, p, &p->stacks[i]);
		if (err)
			return err;
	}
	if (w->addrs) {
		if ((err = pw_sites(w, p)))
			return err;
		pw_addr_mappings(w);
		if ((err = pw_addr_locations(w)))
			return err;
	}
	err = pw_functions(w);
	if (!err && w->addrs)
		err = pw_source_functions(w);
	if (!err)
		err = pw_strings(w, name);
	if (!err && w->addrs)
		err = pw_addr_strings(w);
	if (!err)
		err = w->top.err ? w->top.err : w->msg.err;
	return err ? err : pw_deflate(w, Z_FINISH);
}

int pprof__write(FILE *out, const struct profile *p, const struct render_opts *o)
{
	struct pprof_writer w = { .out = out, .period_ns = p->period_ns, .names = &p->names, .p = p,
				  .without_pids = o && o->without_pids };
	const char *name = format__profile_name(o);
	int err;

	/* windowBits 15 + 16: a gzip wrapper, which pprof expects on disk.
	 * Level 1, as Go's runtime/pprof writes: on 100,000 stacks it takes
	 * half the time of the default level for a file 1% bigger. */
	format__subtitle(p, o, w.described, sizeof(w.described));
	if (deflateInit2(&w.z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	errno = 0;
	err = profile__used_names(p, kept, &w.used) ? -ENOMEM : 0;
	if (!err && p->origins && !(w.in_kernel = calloc(w.used.nr + 1, 1)))
		err = -ENOMEM;
	if (!err && p->origins)
		err = pw_values_init(&w, p);
	if (!err && p->addrs && p->addrs->nr_sites)
		err = pw_addr_init(&w, p->addrs);
	if (!err)
		err = pw_body(&w, p, name);
	free(w.in_kernel);
	pw_addr_free(&w);
	used_names__free(&w.used);
	deflateEnd(&w.z);
	pb__free(&w.top);
	pb__free(&w.msg);
	pb__free(&w.line);
	pb__free(&w.label);
	free(w.comms.name);
	free(w.value_number);
	free(w.value_order);
	free(w.ids);
	if (!err && ferror(out)) {
		if (!errno)
			errno = EIO;
		err = -1;
	}
	return err;
}
