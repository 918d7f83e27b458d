/*
 * hostile: a process that makes a profiler's symbolization expensive, as an
 * unprivileged user can.  The main thread runs code that some file or map
 * must name; a second thread maps and unmaps a page in a loop, so that the
 * number of mappings changes all the time (a profiler told of every change
 * would re-read everything, again and again).  MODE:
 *   jit LINES NAMELEN  JIT code in anonymous executable memory, named
 *                      jit_hot_loop by the last line of a /tmp/perf-PID.map
 *                      of LINES lines (the others name code elsewhere, each
 *                      name NAMELEN bytes long)
 *   elf FILE           runs the code page of FILE (tests/tools/many_syms),
 *                      mapped executable from the file
 *   maps N             N more anonymous mappings (no perf map); JIT code
 *   files N DIR [SRC]  N files DIR/f0.. (copies of SRC, or small ELF files
 *                      of 8 KiB with one code page and no CFI), the code
 *                      page of each mapped; every 200 ms all are unmapped
 *                      and mapped again elsewhere; JIT code
 *   execmaps N FILE    N executable mappings of FILE's code page, side by
 *                      side (the same offset, so none merge); JIT code
 * Prints "ready" once set up; removes its map file at exit.  x86-64 only;
 * elsewhere it exits with status 3.
 * Usage: hostile SECONDS MODE ARGS...
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#define CODE_OFF 0x40

static volatile int stop;
static char map_path[64];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Maps and unmaps a page, as fast as it can. */
static void *churn(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);

	(void)arg;
	while (!stop) {
		void *p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p != MAP_FAILED)
			munmap(p, page);
	}
	return NULL;
}

__attribute__((noinline)) void run_code(void (*fn)(void), double seconds)
{
	double end = now() + seconds;

	while (now() < end)
		fn();
}

#if defined(__x86_64__)
static const unsigned char code[] = {
	0x55,                                         /* push %rbp */
	0x48, 0x89, 0xe5,                             /* mov %rsp, %rbp */
	0x48, 0xb9, 0x40, 0x42, 0x0f, 0, 0, 0, 0, 0, /* mov $1000000, %rcx */
	0x48, 0xff, 0xc9,                             /* 1: dec %rcx */
	0x75, 0xfb,                                   /* jnz 1b */
	0x5d,                                         /* pop %rbp */
	0xc3,                                         /* ret */
};

/* The generated code in anonymous executable memory. */
static unsigned char *jit_code(void)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *mem = mmap(NULL, page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return NULL;
	memset(mem, 0xcc, page);
	memcpy(mem + CODE_OFF, code, sizeof(code));
	if (mprotect(mem, page, PROT_READ | PROT_EXEC))
		return NULL;
	return mem + CODE_OFF;
}

/* LINES - 1 lines naming code elsewhere, then the one naming ours. */
static int write_map(const unsigned char *fn, long lines, int namelen)
{
	char *name = malloc(namelen + 1);
	FILE *f;
	long i;

	snprintf(map_path, sizeof(map_path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(map_path, "w");
	if (!f || !name)
		return -1;
	memset(name, 'x', namelen);
	name[namelen] = '\0';
	for (i = 0; i < lines - 1; i++) {
		int n = snprintf(name, namelen + 1, "LazyCompile:*fn%ld", i);

		if (n < namelen)
			name[n] = 'x';
		fprintf(f, "%lx 40 %s\n", 0x10000000UL + i * 0x40, name);
	}
	fprintf(f, "%lx %zx jit_hot_loop\n", (unsigned long)fn, sizeof(code));
	free(name);
	return fclose(f);
}

/* FILE's code page, mapped executable from the file itself. */
static void *file_code(const char *path)
{
	int fd = open(path, O_RDONLY);
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, 0x1000, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0x1000);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* n anonymous pages, every other one writable so that none merge. */
static int many_maps(long n)
{
	long page = sysconf(_SC_PAGESIZE), i;

	for (i = 0; i < n; i++)
		if (mmap(NULL, page, i % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			return -1;
	return 0;
}

/* The offset of the first executable PT_LOAD of the ELF file on fd, page
 * aligned; -1 if none. */
static long code_offset(int fd)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		return -1;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), eh.e_phoff + i * sizeof(ph)) != sizeof(ph))
			return -1;
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			return ph.p_offset & ~4095L;
	}
	return -1;
}

/* An 8 KiB ELF file: headers, then one executable page of our code. */
static int write_small_elf(const char *path, int n)
{
	unsigned char img[8192];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(*eh));
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0755);
	ssize_t w;

	if (fd < 0)
		return -1;
	memset(img, 0, sizeof(img));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	*ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 4096,
			    .p_vaddr = 4096, .p_filesz = 4096, .p_memsz = 4096, .p_align = 4096 };
	memset(img + 4096, 0xcc, 4096);
	memcpy(img + 4096 + CODE_OFF, code, sizeof(code));
	memcpy(img + 8192 - sizeof(n), &n, sizeof(n)); /* each file its own content */
	w = write(fd, img, sizeof(img));
	close(fd);
	return w == sizeof(img) ? 0 : -1;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_CREAT | O_TRUNC | O_WRONLY, 0755);
	ssize_t n = 0;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			n = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in >= 0 && out >= 0 && !n ? 0 : -1;
}

static long nr_files;
static char files_dir[PATH_MAX - 32];
static void **file_maps;

/* The code page of DIR/fN, mapped executable from the file. */
static void *map_code_page(long i)
{
	char path[PATH_MAX];
	long off;
	void *p = MAP_FAILED;
	int fd;

	snprintf(path, sizeof(path), "%s/f%ld", files_dir, i);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	off = code_offset(fd);
	if (off >= 0)
		p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

/* Every 200 ms, each file's page is unmapped and mapped again. */
static void *remap(void *arg)
{
	(void)arg;
	while (!stop) {
		usleep(200000);
		for (long i = 0; i < nr_files; i++) {
			if (file_maps[i])
				munmap(file_maps[i], 4096);
			file_maps[i] = map_code_page(i);
		}
	}
	return NULL;
}

static int many_files(long n, const char *dir, const char *src)
{
	char path[PATH_MAX];
	pthread_t tid;

	nr_files = n;
	snprintf(files_dir, sizeof(files_dir), "%s", dir);
	file_maps = calloc(n, sizeof(*file_maps));
	if (!file_maps)
		return -1;
	for (long i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%ld", dir, i);
		if (src ? copy_file(src, path) : write_small_elf(path, (int)i))
			return -1;
		if (!(file_maps[i] = map_code_page(i)))
			return -1;
	}
	return pthread_create(&tid, NULL, remap, NULL) ? -1 : 0;
}

/* n mappings of FILE's code page, side by side in one reserved range. */
static int exec_maps(long n, const char *file)
{
	int fd = open(file, O_RDONLY);
	long off = fd >= 0 ? code_offset(fd) : -1;
	char *base;

	if (off < 0)
		return -1;
	base = mmap(NULL, n * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return -1;
	for (long i = 0; i < n; i++)
		if (mmap(base + i * 4096, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd,
			 off) == MAP_FAILED)
			return -1;
	close(fd);
	return 0;
}

static void *setup(int argc, char **argv)
{
	const char *mode = argv[2];

	if (!strcmp(mode, "jit") && argc == 5) {
		unsigned char *fn = jit_code();

		return fn && !write_map(fn, atol(argv[3]), atoi(argv[4])) ? fn : NULL;
	}
	if (!strcmp(mode, "elf") && argc == 4)
		return file_code(argv[3]);
	if (!strcmp(mode, "maps") && argc == 4)
		return many_maps(atol(argv[3])) ? NULL : jit_code();
	if (!strcmp(mode, "files") && (argc == 5 || argc == 6))
		return many_files(atol(argv[3]), argv[4], argc == 6 ? argv[5] : NULL) ? NULL
										      : jit_code();
	if (!strcmp(mode, "execmaps") && argc == 5)
		return exec_maps(atol(argv[3]), argv[4]) ? NULL : jit_code();
	fprintf(stderr, "usage: hostile SECONDS jit LINES NAMELEN | elf FILE | maps N | "
			"files N DIR [SRC] | execmaps N FILE\n");
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid;
	void *fn;

	if (argc < 3)
		return 2;
	fn = setup(argc, argv);
	if (!fn) {
		perror("hostile");
		return 1;
	}
	if (pthread_create(&tid, NULL, churn, NULL))
		return 1;
	printf("ready\n");
	fflush(stdout);
	run_code((void (*)(void))fn, atof(argv[1]));
	stop = 1;
	pthread_join(tid, NULL);
	if (map_path[0])
		unlink(map_path);
	return 0;
}
#else
int main(void)
{
	fprintf(stderr, "hostile: x86-64 only\n");
	return 3;
}
#endif
