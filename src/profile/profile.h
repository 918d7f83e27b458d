/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A profile: named stacks with sample counts, from a capture (folding
 * builds it as it names frames: fold.h) or from folded files
 * (folded_read), in the one shape every output format reads: folded text,
 * the readable report, the SVG flame graph, speedscope and pprof.  A
 * differential profile (smolder diff) also carries each stack's BEFORE
 * count.
 *
 * Frame names are kept once each (interned) and a stack is a run of name
 * ids, root first: a 100,000-line folded file of deep stacks costs its
 * distinct names plus 4 bytes a frame, not its 86 MB of text.  A
 * capture's profile also says where its frames were (profile_addr.h), for
 * pprof: stacks merge by names only, their samples are kept apart by
 * address there.
 */
#ifndef SMOLDER_PROFILE_H
#define SMOLDER_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "profile/profile_addr.h"
#include "profile/strtab.h"

struct pstack {
	size_t first;   /* its frames: profile ids[first .. first + depth) */
	uint32_t depth; /* frames, root first */
	double count;   /* samples (in a diff: AFTER's) */
	double before;  /* a diff's BEFORE samples; 0 when not a diff */
};

struct name_block;

/*
 * Where a capture's stack came from, for the outputs that say it apart
 * from the frames (the readable report, pprof labels, speedscope's profile
 * per process): the process, the thread and CPU when the view kept them
 * (--per-thread, --per-cpu; else 0 and -1), its cgroup, and which of its frames are
 * which.  Its frames, root first, are n_head head frames (cpu_N, the
 * process, context frames), n_user user frames, n_delim (0 or 1) "-",
 * then n_kernel kernel frames.
 */
struct stack_origin {
	uint32_t tgid;
	uint32_t tid;
	int32_t cpu;
	char comm[16];
	uint16_t n_head, n_user, n_delim, n_kernel;
	/* its process's cgroup v2 path and container id, as name ids + 1
	 * (0: none; fold's cgroup_labels) */
	uint32_t cgroup, container;
};

/* The index of the stack's first kernel frame. */
static inline uint32_t stack_origin__kernel_from(const struct stack_origin *o)
{
	return (uint32_t)o->n_head + o->n_user + o->n_delim;
}

/*
 * What a profile says of where it came from: the session fills it for a
 * capture (main.c, continuous.c; finish.c the counts), smolder flamegraph
 * for files (the file names, or the intervals smolder's own folded files
 * carry: folded_read.h); zero when unknown.  The outputs show it: the
 * SVG's subtitle, speedscope's name, pprof's comments and times
 * (format__describe).
 */
struct capture_info {
	uint64_t duration_ns;       /* how long it sampled */
	const char *main_binary;    /* the one process's executable, or NULL */
	const char *main_build_id;  /* its GNU build id in hex, or NULL */
	bool kernel;                /* kernel stacks were sampled */
	const char *targets;        /* "-p 1234", "-- make -j8", "all CPUs"; or NULL */
	const char *source;         /* files read: "x.folded", "5 intervals of DIR"; or NULL */
	uint64_t start_ns;          /* when sampling began, ns since the epoch; 0 unknown */
	double rate_hz;             /* samples per second per CPU; 0 unknown */
	char host[65];              /* the machine's name ("" unknown) */
	char release[65];           /* its kernel's release ("" unknown) */
	bool counted;               /* samples and lost are known */
	uint64_t samples;           /* CPU samples in the profile */
	uint64_t lost;              /* samples the capture could not keep */
	bool interval;              /* one interval of continuous mode (or a range
				     * of them): start_ns + duration_ns ends it */
};

struct profile {
	struct pstack *stacks; /* in input order (a flame chart keeps it) */
	size_t nr, cap;
	struct strtab names;   /* frame names; a name's id is its index */
	uint32_t *ids;         /* every stack's name ids */
	size_t nr_ids, cap_ids;
	bool diff;             /* before counts are meaningful */
	bool fractional;       /* some count is not a whole number */
	uint64_t period_ns;    /* time one sample stands for; 0 when unknown */
	/*
	 * --off-cpu: counts are microseconds of time, not samples (CPU samples
	 * weighted by period_ns, off-CPU stacks by how long they waited); the
	 * outputs name their unit from it.
	 */
	bool time_weighted;
	struct stack_origin *origins; /* per stack, a capture's; NULL for files */
	size_t cap_origins;
	struct capture_info info;
	struct paddrs *addrs;  /* a capture's frames' addresses; NULL for files */
	struct name_block *blocks; /* the names' bytes */
};

struct profile *profile__new(void);
/* Appends the stack "root;...;leaf" in text[0..len) (no NUL needed; len 0
 * is a stack without frames).  -ENOMEM on failure. */
int profile__add(struct profile *p, const char *text, size_t len,
		 double count, double before);
/*
 * Merges BEFORE and AFTER into one differential profile: for every stack
 * in either, AFTER's count and BEFORE's (0 where a side lacks it).  With
 * normalize, BEFORE's counts are scaled so that its total equals AFTER's.
 * NULL on -ENOMEM.
 */
struct profile *profile__diff(const struct profile *before, const struct profile *after,
			      bool normalize);
/* The id of name s[0..len), its bytes copied into p if new; -ENOMEM. */
long profile__intern(struct profile *p, const char *s, size_t len);
/* Says that every stack of p has an origin: a capture's profile has
 * origins (and the exports say so) even without a stack.  -ENOMEM. */
int profile__with_origins(struct profile *p);
/* Appends the stack of name ids ids[0..depth) with count samples and, when
 * o is not NULL, its origin (every stack of p has one or none does).
 * -ENOMEM on failure. */
int profile__add_ids(struct profile *p, const uint32_t *ids, uint32_t depth, double count,
		     const struct stack_origin *o);
/*
 * Orders the stacks most samples first; ties by their folded text (the
 * frames joined by ';', compared as strcmp would, without joining them),
 * then in the order they were added.  -ENOMEM.
 */
int profile__sort_by_count(struct profile *p);

static inline const uint32_t *profile__ids(const struct profile *p, const struct pstack *s)
{
	return p->ids + s->first;
}

static inline const char *profile__name(const struct profile *p, uint32_t id, uint32_t *len)
{
	*len = p->names.ent[id].len;
	return p->names.ent[id].s;
}

/*
 * Numbers the names that the stacks kept(s) use, in first-seen order, for
 * formats that list only those: number[id] is the name's number + 1 (0 when
 * unused), order[k] the id numbered k; both freed by the caller.  kept NULL
 * keeps every stack.  0, or -ENOMEM.
 */
struct used_names {
	uint32_t *number, *order;
	size_t nr;
};
int profile__used_names(const struct profile *p, bool (*kept)(const struct pstack *s),
			struct used_names *out);
void used_names__free(struct used_names *u);

/* The stack's text "root;...;leaf" into buf (always NUL-terminated,
 * truncated to len); returns the full text's length. */
size_t profile__text(const struct profile *p, const struct pstack *s, char *buf, size_t len);
double profile__total(const struct profile *p);
double profile__total_before(const struct profile *p);
void profile__free(struct profile *p);

#endif
