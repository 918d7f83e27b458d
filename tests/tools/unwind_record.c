// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * unwind_record: records real samples of a workload for the unwinder's
 * replay (tests/replay): starts WORKLOAD MODE under ptrace, stops it to take
 * samples (its registers and the stack bytes from its stack pointer up),
 * has the loader (src/unwind, through usyms' maps hook, as smolder does)
 * put its files' unwind tables in real BPF maps, reads those back, and
 * writes a recording (tests/replay/unwind_image.h): the maps, the samples,
 * and the frame names smolder gives every code address on the recorded
 * stacks.  It never unwinds: which frames a sample has is for the replay
 * to find and the test to judge against the workload's known call graph.
 *
 * unwind_record [OPTIONS] OUT WORKLOAD MODE
 *   -t FUNC   at FUNC's first call (FUNC@plt: its PLT entry, whose first
 *             call binds it lazily), a sample at each instruction the
 *             workload runs, -s of them (default 40)
 *   -o NAME   while tracing, each call of function NAME (of WORKLOAD) is
 *             one sample at its entry: it runs on to its return address
 *   -n N      then N samples at random moments (SIGSTOP after 3 to 25 ms)
 *   -i NAME   of those, keep only samples whose pc is in function NAME
 *   -S SEED   the random moments' seed (default 1)
 * Needs root: BPF maps, and /proc/PID/map_files as the loader reads it.
 * Memory: at most MAX_STACK bytes of stack a sample.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>

#include "files/proc_maps.h"
#include "symbols/usyms.h"
#include "unwind/unwind_maps.h"
#include "unwind_image.h"
#include "walk.h"

#define MAX_STACK (256u << 10)
#define MAX_OVER 8
#define GEN 1 /* the image generation the maps are read for */

struct opts {
	const char *out, *workload, *mode, *in, *trace;
	const char *over[MAX_OVER];
	int nr_over;
	long random, steps;
	unsigned seed;
};

struct recorder {
	struct opts o;
	pid_t pid;
	struct usyms *syms;
	struct unwind_image *img;
	uint64_t over_at[MAX_OVER];
	/* the kernel's maps, as smolder creates them */
	int shards_fd, files_fd, mappings_fd;
	uint32_t shard_bits, max_shards;
	struct unwind_maps *um;
};

static pid_t child;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("unwind_record: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	if (child > 0)
		kill(child, SIGKILL);
	exit(1);
}

/* ---- the workload under ptrace -------------------------------------- */

/* Starts the workload, stopped at its exec, in a small environment. */
static pid_t spawn(const struct opts *o)
{
	char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
	char name[PATH_MAX];
	int st;
	pid_t pid;

	snprintf(name, sizeof(name), "%s", o->workload);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		char *const argv[] = { basename(name), (char *)o->mode, "600", NULL };
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL); /* not our blocked SIGCHLD */
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execve(o->workload, argv, envp);
		_exit(127);
	}
	child = pid;
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
		die("%s did not start", o->workload);
	ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_EXITKILL);
	return pid;
}

/*
 * Resumes the workload (PTRACE_CONT or PTRACE_SINGLESTEP) and waits for
 * its next SIGTRAP or SIGSTOP, delivering its own signals (SIGPROF,
 * SIGSEGV: the modes' handlers) on the way.  The stop's signal.
 */
static int resume(pid_t pid, enum __ptrace_request how)
{
	int st, sig = 0;

	for (;;) {
		if (ptrace(how, pid, NULL, (void *)(long)sig))
			die("ptrace: %s", strerror(errno));
		if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
			die("the workload ended");
		sig = WSTOPSIG(st);
		if (sig == SIGTRAP || sig == SIGSTOP)
			return sig;
	}
}

static struct user_regs_struct regs_of(pid_t pid)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, pid, NULL, &r))
		die("PTRACE_GETREGS: %s", strerror(errno));
	return r;
}

/* Runs the stopped workload on to address at (an int3 there), with its
 * stack pointer above above (0: any). */
static void run_to(pid_t pid, uint64_t at, uint64_t above)
{
	struct user_regs_struct r;
	long orig;

	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)at, NULL);
	if (errno)
		die("cannot read the workload's code at %#" PRIx64, at);
	for (;;) {
		ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)((orig & ~0xffL) | 0xcc));
		resume(pid, PTRACE_CONT);
		ptrace(PTRACE_POKETEXT, pid, (void *)at, (void *)orig);
		r = regs_of(pid);
		if (r.rip != at + 1)
			continue; /* a stop of ours, not the breakpoint: never */
		r.rip = at;
		ptrace(PTRACE_SETREGS, pid, NULL, &r);
		if (r.rsp > above)
			return;
		resume(pid, PTRACE_SINGLESTEP); /* a deeper call's: past it, again */
	}
}

/* ---- where functions are -------------------------------------------- */

/* The ELF address of function name in the file (name@plt: its PLT entry). */
static uint64_t elf_address(Elf *elf, const char *name)
{
	size_t len = strcspn(name, "@"), shstrndx;
	bool plt = !strcmp(name + len, "@plt");
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, plt_sh = { 0 }, rela_sh = { 0 };
	Elf_Data *rela = NULL;
	GElf_Sym sym;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn)) && gelf_getshdr(scn, &sh)) {
		const char *sname = elf_strptr(elf, shstrndx, sh.sh_name);
		Elf_Data *d = elf_getdata(scn, NULL);

		if (sname && !strcmp(sname, ".plt"))
			plt_sh = sh;
		if (sname && !strcmp(sname, ".plt.sec"))
			return 0; /* IBT PLTs: not what this tool reads */
		if (sname && !strcmp(sname, ".rela.plt")) {
			rela_sh = sh;
			rela = d;
		}
		if (plt || sh.sh_type != SHT_SYMTAB || !d)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++)
			if (gelf_getsym(d, i, &sym) && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
			    !strcmp(elf_strptr(elf, sh.sh_link, sym.st_name) ?: "", name))
				return sym.st_value;
	}
	/* the classic lazy PLT: entry i + 1 for the i-th JUMP_SLOT relocation */
	for (size_t i = 0; plt && rela && i < rela_sh.sh_size / rela_sh.sh_entsize; i++) {
		GElf_Rela r;
		Elf_Data *syms = elf_getdata(elf_getscn(elf, rela_sh.sh_link), NULL);
		GElf_Shdr sym_sh;
		const char *s;

		if (!gelf_getrela(rela, i, &r) || !syms ||
		    !gelf_getsym(syms, GELF_R_SYM(r.r_info), &sym) ||
		    !gelf_getshdr(elf_getscn(elf, rela_sh.sh_link), &sym_sh))
			continue;
		s = elf_strptr(elf, sym_sh.sh_link, sym.st_name);
		if (s && strlen(s) == len && !strncmp(s, name, len))
			return plt_sh.sh_addr + 16 * (i + 1);
	}
	return 0;
}

/* Where function name of the workload is in its process, or die. */
static uint64_t address_of(const struct recorder *r, const char *name)
{
	int fd = open(r->o.workload, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	struct proc_maps *pm = proc_maps__load(r->pid);
	char real[PATH_MAX];
	uint64_t vaddr = elf ? elf_address(elf, name) : 0, at = 0;
	size_t n = 0;
	GElf_Phdr ph;

	for (size_t i = 0; vaddr && !elf_getphdrnum(elf, &n) && i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || vaddr < ph.p_vaddr ||
		    vaddr >= ph.p_vaddr + ph.p_filesz)
			continue;
		for (size_t j = 0; pm && realpath(r->o.workload, real) && j < pm->nr; j++) {
			const struct proc_map *m = &pm->maps[j];
			uint64_t off = vaddr - ph.p_vaddr + ph.p_offset;

			if (m->path && !strcmp(m->path, real) && off >= m->pgoff &&
			    off - m->pgoff < m->end - m->start)
				at = m->start + off - m->pgoff;
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	proc_maps__free(pm);
	if (!at)
		die("no function %s in %s", name, r->o.workload);
	return at;
}

/* ---- samples -------------------------------------------------------- */

static const char *name_of(struct recorder *r, uint64_t addr, char *buf, size_t len)
{
	usyms__name(r->syms, r->pid, GEN, addr, buf, len, NULL);
	return buf;
}

/* The stopped workload's registers and stack bytes, as a sample. */
static void take_sample(struct recorder *r)
{
	struct user_regs_struct regs = regs_of(r->pid);
	struct proc_maps *pm = proc_maps__load(r->pid);
	const struct proc_map *stack = pm ? proc_maps__find(pm, regs.rsp) : NULL;
	struct image_sample *s;
	uint8_t *bytes;
	char path[64];
	ssize_t n = -1;
	size_t len;
	int fd;

	if (!stack)
		die("no mapping holds the stack pointer %#llx", regs.rsp);
	len = stack->end - regs.rsp < MAX_STACK ? stack->end - regs.rsp : MAX_STACK;
	bytes = malloc(len);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)r->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && bytes)
		n = pread(fd, bytes, len, regs.rsp);
	if (n != (ssize_t)len)
		die("cannot read the workload's stack: %s", strerror(errno));
	s = unwind_image__add_sample(r->img, regs.rip, regs.rsp, regs.rbp);
	if (!s || unwind_image__add_mem(s, regs.rsp, bytes, len))
		die("out of memory");
	close(fd);
	free(bytes);
	proc_maps__free(pm);
}

/* Waits until deadline (CLOCK_MONOTONIC ns), delivering the workload's
 * own signals as soon as it stops for them (SIGCHLD is blocked: main), so
 * that it runs all the while. */
static void run_until(pid_t pid, uint64_t deadline)
{
	struct timespec now, ts;
	sigset_t chld;
	uint64_t t;
	int st;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		while (waitpid(pid, &st, WNOHANG) == pid) {
			if (!WIFSTOPPED(st))
				die("the workload ended");
			ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(st));
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		t = (uint64_t)now.tv_sec * 1000000000 + now.tv_nsec;
		if (t >= deadline)
			return;
		ts = (struct timespec){ (deadline - t) / 1000000000, (deadline - t) % 1000000000 };
		sigtimedwait(&chld, NULL, &ts);
	}
}

/* -n: samples at random moments, those whose pc is in -i's function. */
static void random_samples(struct recorder *r)
{
	struct timespec now;
	char name[256];
	long kept = 0, tries = 0;
	int st;

	srandom(r->o.seed);
	ptrace(PTRACE_CONT, r->pid, NULL, NULL);
	while (kept < r->o.random) {
		if (++tries > 1000 * r->o.random)
			die("%ld random samples, %ld in %s", tries - 1, kept, r->o.in);
		clock_gettime(CLOCK_MONOTONIC, &now);
		run_until(r->pid, (uint64_t)now.tv_sec * 1000000000 + now.tv_nsec +
					  (3 + random() % 23) * 1000000ull);
		kill(r->pid, SIGSTOP);
		for (;;) {
			if (waitpid(r->pid, &st, 0) != r->pid || !WIFSTOPPED(st))
				die("the workload ended");
			if (WSTOPSIG(st) == SIGSTOP)
				break;
			ptrace(PTRACE_CONT, r->pid, NULL, (void *)(long)WSTOPSIG(st));
		}
		if (!r->o.in || !strcmp(name_of(r, regs_of(r->pid).rip, name, sizeof(name)), r->o.in)) {
			take_sample(r);
			kept++;
		}
		ptrace(PTRACE_CONT, r->pid, NULL, NULL);
	}
	kill(r->pid, SIGSTOP);
	while (waitpid(r->pid, &st, 0) == r->pid && WIFSTOPPED(st) && WSTOPSIG(st) != SIGSTOP)
		ptrace(PTRACE_CONT, r->pid, NULL, (void *)(long)WSTOPSIG(st));
}

/* -t: a sample at every instruction from FUNC's entry on; a call of an -o
 * function is one sample, at its entry. */
static void trace_samples(struct recorder *r)
{
	uint64_t at = address_of(r, r->o.trace);

	run_to(r->pid, at, 0);
	for (long i = 0; i < r->o.steps; i++) {
		struct user_regs_struct regs = regs_of(r->pid);
		bool over = false;

		take_sample(r);
		for (int j = 0; j < r->o.nr_over; j++)
			over |= regs.rip == r->over_at[j];
		if (over) { /* on to its return address, this call's */
			long ra = ptrace(PTRACE_PEEKDATA, r->pid, (void *)regs.rsp, NULL);

			run_to(r->pid, (uint64_t)ra, regs.rsp);
		} else {
			resume(r->pid, PTRACE_SINGLESTEP);
		}
	}
}

/* ---- the tables, as the loader puts them in the kernel --------------- */

static void maps_open(struct recorder *r)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	LIBBPF_OPTS(bpf_map_create_opts, outer);
	LIBBPF_OPTS(bpf_map_create_opts, lpm, .map_flags = BPF_F_NO_PREALLOC);
	struct unwind_maps_opts o = { 0 };
	int tmpl;

	unwind_maps__layout(UNWIND_DEFAULT_BUDGET, &r->shard_bits, &r->max_shards);
	tmpl = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unwind_shard", 4, 8, 1u << r->shard_bits, &mm);
	if (tmpl < 0)
		die("cannot create BPF maps: %s (run as root)", strerror(errno));
	outer.inner_map_fd = tmpl;
	r->shards_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY_OF_MAPS, "unwind_shards", 4, 4,
				      r->max_shards, &outer);
	close(tmpl);
	r->files_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "unwind_files", 4, sizeof(struct unwind_file),
				     UNWIND_MAX_FILES, NULL);
	r->mappings_fd = bpf_map_create(BPF_MAP_TYPE_LPM_TRIE, "unwind_mappings",
					sizeof(struct unwind_map_key), sizeof(struct unwind_mapping),
					UNWIND_MAX_MAPPINGS, &lpm);
	if (r->shards_fd < 0 || r->files_fd < 0 || r->mappings_fd < 0)
		die("cannot create BPF maps: %s", strerror(errno));
	o.shards_fd = r->shards_fd;
	o.files_fd = r->files_fd;
	o.mappings_fd = r->mappings_fd;
	o.shard_bits = r->shard_bits;
	o.max_shards = r->max_shards;
	r->um = unwind_maps__new(&o);
	if (!r->um)
		die("cannot start the unwind maps");
	usyms__set_maps_hook(r->syms, unwind_maps__update, r->um);
}

/* The workload's maps read (and its tables loaded, by the hook), built
 * and read back from the kernel. */
static void maps_read(struct recorder *r)
{
	struct unwind_maps_stats st;
	struct timespec ts = { 0, 5000000 };
	int err;

	if ((err = usyms__preload(r->syms, r->pid, GEN)))
		die("cannot read the workload's maps: %s", strerror(-err));
	for (int i = 0; i < 6000; i++) {
		unwind_maps__stats(r->um, &st);
		if (!st.queued)
			break;
		nanosleep(&ts, NULL);
	}
	if (st.queued || st.too_big)
		die("tables not loaded: %zu queued, %" PRIu64 " too big", st.queued, st.too_big);
	err = unwind_image__read_kernel(r->img, r->shards_fd, r->files_fd, r->mappings_fd,
					r->shard_bits, r->max_shards);
	if (err)
		die("cannot read the maps back: %s", strerror(-err));
	r->img->tgid = r->pid;
	r->img->gen = GEN;
	r->img->image_events = true; /* the BPF program's, on kernels since 5.8 */
}

/* ---- what the recording keeps --------------------------------------- */

/* Calls fn for the pc of every sample and each word on its stack that
 * points into executable memory, with the address before it: where a
 * walk's frames can be. */
static void for_each_code_addr(struct recorder *r, void (*fn)(struct recorder *, uint64_t))
{
	struct proc_maps *pm = proc_maps__load(r->pid);

	for (size_t i = 0; pm && i < r->img->nr_samples; i++) {
		const struct image_sample *s = &r->img->samples[i];
		uint64_t w = s->pc;
		const struct proc_map *m;

		for (uint64_t a = s->sp;; a += 8) {
			m = proc_maps__find(pm, w);
			if (m && m->exec) {
				fn(r, w);
				fn(r, w - 1);
			}
			if (!unwind_image__read(s, a, &w, sizeof(w)))
				break;
		}
	}
	proc_maps__free(pm);
}

static void add_name(struct recorder *r, uint64_t addr)
{
	char buf[512];

	if (unwind_image__name(r->img, addr))
		return;
	if (unwind_image__add_name(r->img, addr, name_of(r, addr, buf, sizeof(buf))))
		die("out of memory");
	unwind_image__sort(r->img);
}

static bool *keep;

/* The slots a walk reads to look addr up: its page index entry, and all
 * the rows of that page (a search of any shape finds them). */
static void keep_slots(struct recorder *r, uint64_t addr)
{
	struct unwind_row row;
	uint64_t start, end;
	const uint32_t *t;
	size_t n;

	replay__find(r->img, r->img->tgid, r->img->gen, addr, &row, &start, &end);
	n = replay__touched(&t);
	for (size_t i = 0; i < n; i++) {
		long at = unwind_image__slot(r->img, t[i]);
		struct unwind_page pg;

		if (at < 0)
			continue;
		keep[at] = true;
		for (size_t f = 0; f < r->img->nr_files; f++) {
			const struct unwind_file *uf = &r->img->files[f].f;

			if (t[i] < uf->pages || t[i] - uf->pages >= uf->n_pages)
				continue;
			memcpy(&pg, &r->img->slots[at].value, sizeof(pg));
			for (uint32_t k = 0; k < pg.count; k++) {
				long row_at = unwind_image__slot(r->img, pg.row + k);

				if (row_at >= 0)
					keep[row_at] = true;
			}
		}
	}
}

static void parse(int argc, char **argv, struct opts *o)
{
	int c;

	*o = (struct opts){ .steps = 40, .seed = 1 };
	while ((c = getopt(argc, argv, "n:i:t:s:o:S:")) != -1) {
		switch (c) {
		case 'n': o->random = atol(optarg); break;
		case 'i': o->in = optarg; break;
		case 't': o->trace = optarg; break;
		case 's': o->steps = atol(optarg); break;
		case 'o':
			if (o->nr_over == MAX_OVER)
				die("at most %d -o", MAX_OVER);
			o->over[o->nr_over++] = optarg;
			break;
		case 'S': o->seed = (unsigned)atol(optarg); break;
		default: exit(2);
		}
	}
	if (argc - optind != 3) {
		fprintf(stderr, "usage: unwind_record [-n N [-i NAME]] [-t FUNC [-s STEPS] [-o NAME]...] "
				"[-S SEED] OUT WORKLOAD MODE\n");
		exit(2);
	}
	o->out = argv[optind];
	o->workload = argv[optind + 1];
	o->mode = argv[optind + 2];
}

int main(int argc, char **argv)
{
	struct recorder r = { 0 };
	char comment[1024], name[PATH_MAX];
	struct utsname un;
	sigset_t chld;
	int n = 0, err;

	parse(argc, argv, &r.o);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, NULL); /* run_until waits for it */
	elf_version(EV_CURRENT);
	r.img = unwind_image__new();
	r.syms = usyms__new();
	if (!r.img || !r.syms)
		die("out of memory");
	maps_open(&r);
	r.pid = spawn(&r.o);
	snprintf(name, sizeof(name), "%s", r.o.workload);
	snprintf(r.img->workload, sizeof(r.img->workload), "%s", basename(name));
	snprintf(r.img->mode, sizeof(r.img->mode), "%s", r.o.mode);
	/* the trace first: a PLT entry's first call binds it lazily */
	for (int i = 0; i < r.o.nr_over; i++)
		r.over_at[i] = address_of(&r, r.o.over[i]);
	if (r.o.trace)
		trace_samples(&r);
	if (r.o.random)
		random_samples(&r);
	maps_read(&r);
	for_each_code_addr(&r, add_name);
	keep = calloc(r.img->nr_slots ? r.img->nr_slots : 1, sizeof(*keep));
	if (!keep)
		die("out of memory");
	for_each_code_addr(&r, keep_slots);

	uname(&un);
	for (int i = 0; i < argc && n >= 0 && (size_t)n < sizeof(comment); i++)
		n += snprintf(comment + n, sizeof(comment) - n, "%s%s", i ? " " : "", argv[i]);
	if (n >= 0 && (size_t)n < sizeof(comment))
		snprintf(comment + n, sizeof(comment) - n, "\non %s %s: %zu samples", un.sysname,
			 un.release, r.img->nr_samples);
	if ((err = unwind_image__save(r.img, keep, comment, r.o.out)))
		die("cannot write %s: %s", r.o.out, strerror(-err));
	kill(r.pid, SIGKILL);
	waitpid(r.pid, NULL, 0);
	unwind_maps__free(r.um);
	usyms__free(r.syms);
	unwind_image__free(r.img);
	free(keep);
	return 0;
}
