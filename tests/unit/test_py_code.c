// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * CPython code objects read from live interpreters: for each installed
 * CPython 3.8 to 3.13 (pyenv) and Debian's /usr/bin/python3.11, a child
 * runs tests/workloads/python/code_objects.py, which prints each code
 * object's address with what CPython says of it (names, file, first line,
 * flags, the line of every instruction); py_code__read and py_code__line
 * must say the same through the child's pid.  Debian's python3.11 runs
 * again as nobody when the test is root.  Then hostile objects planted in
 * this process's own memory (lies about lengths and kinds, text running
 * into unmapped memory) and hostile line tables, which must give an error
 * or no line, within bounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "unit.h"
#include "interp/python/py_code.h"

/* What the script says of one code object. */
struct expect {
	uint64_t addr;
	char *qualname, *file;
	uint32_t firstlineno, flags, nr_instr;
	uint32_t *at, *line; /* where the line changes, and to what */
	size_t nr_changes;
};

struct child {
	pid_t pid;
	int to_child; /* its stdin: closing it ends the script */
	FILE *from_child;
};

static void result(const char *name, const char *version, const char *why)
{
	if (why) {
		printf("FAIL %s_%s: %s\n", name, version, why);
		unit_total_failed++;
	} else {
		printf("PASS %s_%s\n", name, version);
	}
}

static char *unhex(const char *hex)
{
	size_t i, n = strlen(hex) / 2;
	char *s = malloc(n + 1);
	unsigned b;

	for (i = 0; s && i < n; i++) {
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			break;
		s[i] = b;
	}
	if (s)
		s[i] = 0;
	return s;
}

static int start_python(const char *python, const char *script, bool as_nobody, struct child *c)
{
	int in[2], out[2];

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return -1;
	c->pid = fork();
	if (c->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		if (as_nobody && (setgroups(0, NULL) || setgid(65534) || setuid(65534)))
			_exit(126);
		if (chdir("/"))
			_exit(126);
		execl(python, python, "-I", script, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->to_child = in[1];
	c->from_child = fdopen(out[0], "r");
	return c->pid > 0 && c->from_child ? 0 : -1;
}

static void stop_python(struct child *c)
{
	close(c->to_child);
	if (c->from_child)
		fclose(c->from_child);
	waitpid(c->pid, NULL, 0);
}

/* "lines I:L I:L ..." into e. */
static void parse_lines(char *text, struct expect *e)
{
	size_t cap = 0;
	char *tok, *save;

	for (tok = strtok_r(text, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		unsigned at, line;

		if (sscanf(tok, "%u:%u", &at, &line) != 2)
			continue;
		if (e->nr_changes == cap) {
			cap = cap ? 2 * cap : 64;
			e->at = realloc(e->at, cap * sizeof(*e->at));
			e->line = realloc(e->line, cap * sizeof(*e->line));
		}
		e->at[e->nr_changes] = at;
		e->line[e->nr_changes++] = line;
	}
}

/* The script's lines up to "ready": the number of code objects in *out. */
static size_t read_expectations(FILE *f, struct expect **out)
{
	char *text = NULL, q[4096], file[4096];
	size_t cap = 0, n = 0;
	unsigned nr = 0;
	struct expect *e = NULL;

	while (getline(&text, &cap, f) > 0 && strncmp(text, "ready", 5)) {
		if (!strncmp(text, "lines ", 6) && n) {
			parse_lines(text + 6, &e[n - 1]);
			continue;
		}
		e = realloc(e, (n + 1) * sizeof(*e));
		memset(&e[n], 0, sizeof(*e));
		if (sscanf(text, "code %lu %4095s %4095s %u %u %u", &e[n].addr, q, file,
			   &e[n].firstlineno, &e[n].flags, &nr) != 6)
			break;
		e[n].nr_instr = nr;
		e[n].qualname = unhex(q);
		e[n].file = unhex(file);
		n++;
	}
	free(text);
	*out = e;
	return n;
}

static void free_expectations(struct expect *e, size_t n)
{
	while (n--) {
		free(e[n].qualname);
		free(e[n].file);
		free(e[n].at);
		free(e[n].line);
	}
	free(e);
}

/* The expected line of instr. */
static uint32_t want_line(const struct expect *e, uint32_t instr)
{
	uint32_t line = 0;
	size_t i;

	for (i = 0; i < e->nr_changes && e->at[i] <= instr; i++)
		line = e->line[i];
	return line;
}

/* Compares the line of instr; 1 when it is wrong, and why in why. */
static int check_line(const struct py_layout *l, const struct py_code *c, const struct expect *e,
		      uint32_t instr, size_t *unknown, char *why, size_t len)
{
	int got = py_code__line(l, c, instr);
	uint32_t want = want_line(e, instr);

	if ((uint32_t)got == want)
		return 0;
	if (got == 0 && c->lines_cut) {
		(*unknown)++;
		return 0;
	}
	snprintf(why, len, "%s: instruction %u is on line %d, CPython says %u", c->qualname, instr,
		 got, want);
	return 1;
}

/* Every instruction of a short code object; of a long one, each side of
 * every 50th change of line (a line costs a walk of the table). */
static int check_lines(const struct py_layout *l, const struct py_code *c, const struct expect *e,
		       size_t *unknown, char *why, size_t len)
{
	uint32_t i;
	size_t k;

	if (py_code__line(l, c, PY_INSTR_MASK) != (int)e->firstlineno)
		return snprintf(why, len, "%s: a frame not started is not on its first line",
				c->qualname), 1;
	if (py_code__line(l, c, e->nr_instr) != 0)
		return snprintf(why, len, "%s: an instruction past the end has a line",
				c->qualname), 1;
	if (e->nr_instr <= 4096) {
		for (i = 0; i < e->nr_instr; i++)
			if (check_line(l, c, e, i, unknown, why, len))
				return 1;
		return 0;
	}
	for (k = 0; k < e->nr_changes; k += 50)
		if ((e->at[k] && check_line(l, c, e, e->at[k] - 1, unknown, why, len)) ||
		    check_line(l, c, e, e->at[k], unknown, why, len))
			return 1;
	return check_line(l, c, e, e->nr_instr - 1, unknown, why, len);
}

/* Reads each code object; one FAIL line per kind of check that failed. */
static void check_codes(const struct py_layout *l, pid_t pid, const char *version,
			struct expect *e, size_t n)
{
	char fields[512] = "", lines[512] = "", capped[512] = "";
	size_t i, unknown = 0, cut = 0;
	struct py_code c;
	int err;

	for (i = 0; i < n; i++) {
		err = py_code__read(l, pid, e[i].addr, &c);
		if (err) {
			snprintf(fields, sizeof(fields), "%s: py_code__read: %s", e[i].qualname,
				 strerror(-err));
			continue;
		}
		if (strcmp(c.qualname, e[i].qualname) || strcmp(c.file, e[i].file) ||
		    c.firstlineno != e[i].firstlineno || c.flags != e[i].flags ||
		    c.nr_instr != e[i].nr_instr)
			snprintf(fields, sizeof(fields),
				 "read %.40s %.40s %u %#x %u, CPython says %.40s %.40s %u %#x %u",
				 c.qualname, c.file, c.firstlineno, c.flags, c.nr_instr,
				 e[i].qualname, e[i].file, e[i].firstlineno, e[i].flags,
				 e[i].nr_instr);
		if (!lines[0])
			check_lines(l, &c, &e[i], &unknown, lines, sizeof(lines));
		cut += c.lines_cut;
		if (c.lines_cut && c.nr_lines != PY_LINES_MAX)
			snprintf(capped, sizeof(capped), "a cut line table has %zu bytes", c.nr_lines);
		py_code__free(&c);
	}
	if (!n)
		snprintf(fields, sizeof(fields), "the script printed no code object");
	result("py_code_read", version, fields[0] ? fields : NULL);
	result("py_code_lines", version, lines[0] ? lines : NULL);
	/* long_body's table is over PY_LINES_MAX: some lines must be unknown */
	if (!capped[0] && (cut != 1 || !unknown))
		snprintf(capped, sizeof(capped), "%zu tables cut, %zu lines unknown", cut, unknown);
	result("py_code_lines_capped", version, capped[0] ? capped : NULL);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The 10 MB name: cut at PY_NAME_MAX, in bounded time (retaken, not
 * loosened, when the machine is busy). */
static void check_big_name(const struct py_layout *l, pid_t pid, const char *version,
			   const struct expect *e, size_t n)
{
	double best = 1e9, t0;
	char why[256] = "";
	struct py_code c;
	size_t i;
	int try;

	for (i = 0; i < n && strncmp(e[i].qualname, "nnnn", 4); i++)
		;
	if (i == n) {
		result("py_code_big_name", version, "the script printed no 10 MB name");
		return;
	}
	for (try = 0; try < 3 && best > 0.005; try++) {
		t0 = now();
		if (py_code__read(l, pid, e[i].addr, &c)) {
			snprintf(why, sizeof(why), "cannot read it");
			break;
		}
		best = now() - t0 < best ? now() - t0 : best;
		if (strlen(c.qualname) != PY_NAME_MAX + 3)
			snprintf(why, sizeof(why), "read %zu bytes of it", strlen(c.qualname));
		py_code__free(&c);
	}
	if (!why[0] && best > 0.005)
		snprintf(why, sizeof(why), "reading it took %.1f ms (at most 5)", best * 1e3);
	result("py_code_big_name", version, why[0] ? why : NULL);
}

static void check_python(const char *python, unsigned minor, const char *script, bool as_nobody,
			 const char *version)
{
	const struct py_layout *l = py_layout__find(3, minor);
	struct child ch;
	struct expect *e;
	size_t n;
	int err;

	if (access(python, X_OK)) {
		printf("SKIP py_code_%s: cannot run %s (not installed, or not this user's to run)\n", version, python);
		return;
	}
	if (start_python(python, script, as_nobody, &ch)) {
		result("py_code_start", version, strerror(errno));
		return;
	}
	n = read_expectations(ch.from_child, &e);
	check_codes(l, ch.pid, version, e, n);
	check_big_name(l, ch.pid, version, e, n);
	stop_python(&ch);
	err = n ? py_code__read(l, ch.pid, e[0].addr, &(struct py_code){ 0 }) : 0;
	result("py_code_gone", version, err == -ESRCH ? NULL : "a reaped child's read is not -ESRCH");
	free_expectations(e, n);
}

/* Debian's python3.11 (the pyenv ones are under /root) as nobody, the
 * script in a directory nobody can read: what a profiled stranger is. */
static void check_as_nobody(const char *script)
{
	char dir[] = "/tmp/smolder-pycode.XXXXXX", copy[64], buf[65536];
	int in, out;
	ssize_t n;

	if (geteuid()) {
		printf("SKIP py_code_nobody_3.11: not root, cannot run a child as nobody\n");
		return;
	}
	if (!mkdtemp(dir) || chmod(dir, 0755)) {
		result("py_code_start", "nobody_3.11", strerror(errno));
		return;
	}
	snprintf(copy, sizeof(copy), "%s/code_objects.py", dir);
	in = open(script, O_RDONLY | O_CLOEXEC);
	out = open(copy, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			break;
	close(in);
	close(out);
	check_python("/usr/bin/python3.11", 11, copy, true, "nobody_3.11");
	unlink(copy);
	rmdir(dir);
}

/* ---- hostile objects, planted in this process (3.12's layout) ---- */

static void put64(uint8_t *p, size_t off, uint64_t v) { memcpy(p + off, &v, 8); }
static void put32(uint8_t *p, size_t off, uint32_t v) { memcpy(p + off, &v, 4); }

/* A compact str at p: kind, ascii, compact as given, len characters of
 * text (len * kind bytes). */
static void plant_str(const struct py_layout *l, uint8_t *p, int64_t len, unsigned kind, bool ascii,
		      bool compact, const void *text, size_t bytes)
{
	put64(p, l->str.length, len);
	put32(p, l->str.state, kind << l->str.kind_shift | compact << l->str.compact_bit |
				       ascii << l->str.ascii_bit);
	memcpy(p + (ascii ? l->str.ascii_data : l->str.compact_data), text, bytes);
}

static struct {
	uint8_t code[256], name[512], file[512], lines[64];
} planted;

/* A well-formed planted code object: "f\u00e9\u4e2d" from "/x.py", line 7. */
static void plant_code(const struct py_layout *l)
{
	static const uint16_t name[] = { 'f', 0xe9, 0x4e2d };
	static const uint8_t table[] = { 0x80 | 13 << 3 | 1, 6 };

	memset(&planted, 0, sizeof(planted));
	put64(planted.code, l->bpf.code_flags, 0x3);
	put32(planted.code, l->bpf.code_firstlineno, 7);
	put64(planted.code, l->code_size_field, 2);
	put64(planted.code, l->code_qualname, (uintptr_t)planted.name);
	put64(planted.code, l->code_name, (uintptr_t)planted.name);
	put64(planted.code, l->code_filename, (uintptr_t)planted.file);
	put64(planted.code, l->code_lines, (uintptr_t)planted.lines);
	plant_str(l, planted.name, 3, 2, false, true, name, sizeof(name));
	plant_str(l, planted.file, 5, 1, true, true, "/x.py", 5);
	put64(planted.lines, l->bytes.size, sizeof(table));
	memcpy(planted.lines + l->bytes.data, table, sizeof(table));
}

static int read_planted(const struct py_layout *l, struct py_code *c)
{
	return py_code__read(l, getpid(), (uintptr_t)planted.code, c);
}

TEST(planted_well_formed)
{
	const struct py_layout *l = py_layout__find(3, 12);
	struct py_code c;

	plant_code(l);
	CHECK(read_planted(l, &c) == 0);
	CHECK_STR(c.qualname, "f\xc3\xa9\xe4\xb8\xad");
	CHECK_STR(c.file, "/x.py");
	CHECK(c.firstlineno == 7 && c.flags == 3 && c.nr_instr == 2 && c.nr_lines == 2);
	CHECK(py_code__line(l, &c, 0) == 10 && py_code__line(l, &c, 1) == 10);
	py_code__free(&c);
}

/* Each lie in turn, on a fresh plant: the error it must give. */
TEST(planted_lies)
{
	const struct py_layout *l = py_layout__find(3, 12);
	static const uint32_t beyond[] = { 'a', 0x110000, 'b' };
	struct py_code c;

	plant_code(l);
	put64(planted.name, l->str.length, -1);
	CHECK(read_planted(l, &c) == -EINVAL);
	plant_code(l);
	put32(planted.name, l->str.state, 3 << l->str.kind_shift | 1 << l->str.compact_bit);
	CHECK(read_planted(l, &c) == -EINVAL); /* no kind 3 */
	plant_code(l);
	put32(planted.name, l->str.state, 2 << l->str.kind_shift | 1 << l->str.compact_bit |
						  1 << l->str.ascii_bit);
	CHECK(read_planted(l, &c) == -EINVAL); /* ASCII of two bytes a character */
	plant_code(l);
	put32(planted.file, l->str.state, 1 << l->str.kind_shift | 1 << l->str.ascii_bit);
	CHECK(read_planted(l, &c) == -EINVAL); /* not compact */
	plant_code(l);
	put64(planted.code, l->code_filename, 0);
	CHECK(read_planted(l, &c) == -EFAULT);
	plant_code(l);
	put64(planted.lines, l->bytes.size, 1ull << 40);
	CHECK(read_planted(l, &c) == -EINVAL);
	plant_code(l);
	put64(planted.code, l->code_size_field, -2);
	CHECK(read_planted(l, &c) == -EINVAL);
	CHECK(py_code__read(l, getpid(), 8, &c) == -EFAULT);
	/* ASCII that is not, a code point past U+10FFFF: U+FFFD */
	plant_code(l);
	plant_str(l, planted.file, 3, 1, true, true, "a\xff" "b", 3);
	plant_str(l, planted.name, 3, 4, false, true, beyond, sizeof(beyond));
	CHECK(read_planted(l, &c) == 0);
	CHECK_STR(c.file, "a\xef\xbf\xbd" "b");
	CHECK_STR(c.qualname, "a\xef\xbf\xbd" "b");
	py_code__free(&c);
}

/* Text and tables that run into memory that is not mapped. */
TEST(planted_unmapped)
{
	const struct py_layout *l = py_layout__find(3, 12);
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			    -1, 0);
	uint8_t *str = map + page - 80, *bytes = map + page - 100;
	struct py_code c;

	CHECK(map != MAP_FAILED && !munmap(map + page, page));
	plant_code(l);
	plant_str(l, str, 100, 1, true, true, "abcdefgh", 8); /* 100 claimed, 40 mapped */
	put64(planted.code, l->code_qualname, (uintptr_t)str);
	CHECK(read_planted(l, &c) == -EFAULT);
	plant_code(l);
	put64(bytes, l->bytes.size, 1 << 20);
	put64(planted.code, l->code_lines, (uintptr_t)bytes);
	CHECK(read_planted(l, &c) == -EFAULT);
	plant_str(l, str, 40, 1, true, true, "0123456789012345678901234567890123456789", 40);
	put64(planted.code, l->code_qualname, (uintptr_t)str);
	put64(bytes, l->bytes.size, 60);
	CHECK(read_planted(l, &c) == 0); /* both end exactly where the mapping does */
	CHECK_STR(c.qualname, "0123456789012345678901234567890123456789");
	CHECK(c.nr_lines == 60 && !c.lines_cut);
	py_code__free(&c);
	munmap(map, page);
}

/* py_code__line over a table given as bytes, with nr_instr instructions. */
static int line_of(unsigned minor, const uint8_t *table, size_t n, uint32_t nr_instr, bool cut,
		   uint32_t instr)
{
	struct py_code c = { .firstlineno = 100, .lines = (uint8_t *)table, .nr_lines = n,
			     .nr_instr = nr_instr, .lines_cut = cut };

	return py_code__line(py_layout__find(3, minor), &c, instr);
}

/* Tables written by hand from each format's description. */
TEST(line_tables_known)
{
	static const uint8_t lnotab[] = { 2, 1, 4, 0xff, 2, 3 };
	static const uint8_t t310[] = { 4, 1, 2, 0x80, 4, 2 };
	static const uint8_t loc[] = { 0x80 | 13 << 3 | 1, 6, /* 2 units, +3 */
				       0x80 | 15 << 3,         /* 1 unit, no line */
				       0x80 | 11 << 3 | 2, 5, 7, /* 3 units, +1 */
				       0x80 | 14 << 3, 5, 0, 0, 0, /* 1 unit, -2 */
				       0x80 | 0 << 3, 0 };    /* 1 unit, same */
	static const int want_lnotab[] = { 100, 100, 101, 101, 101, 101, 100, 100, 103, 103 };
	static const int want_310[] = { 101, 101, 0, 103, 103 };
	static const int want_loc[] = { 103, 103, 0, 104, 104, 104, 102, 102 };
	uint32_t i;

	for (i = 0; i < 10; i++)
		CHECK(line_of(8, lnotab, sizeof(lnotab), 10, false, i) == want_lnotab[i]);
	for (i = 0; i < 5; i++)
		CHECK(line_of(10, t310, sizeof(t310), 5, false, i) == want_310[i]);
	for (i = 0; i < 8; i++)
		CHECK(line_of(11, loc, sizeof(loc), 8, false, i) == want_loc[i]);
	CHECK(line_of(8, lnotab, sizeof(lnotab), 10, false, 10) == 0);
	CHECK(line_of(8, lnotab, sizeof(lnotab), 10, true, 9) == 0); /* past a cut */
	CHECK(line_of(11, loc, 7, 8, true, 5) == 104);
	CHECK(line_of(11, loc, 7, 8, true, 6) == 0); /* its varint cut */
	CHECK(line_of(13, loc, sizeof(loc), 8, false, PY_INSTR_MASK) == 100);
}

/* Tables that never end, lie or are all one byte: no line or a line,
 * every answer bounded by PY_LINES_MAX bytes of work. */
TEST(line_tables_hostile)
{
	uint8_t *t = malloc(PY_LINES_MAX);
	double t0 = now();
	static const unsigned minors[] = { 8, 10, 11 };
	static const uint8_t fill[] = { 0xf0, 0xff, 0x00, 0x80, 0x7f };
	size_t f, m;
	int line;

	for (f = 0; t && f < sizeof(fill); f++) {
		memset(t, fill[f], PY_LINES_MAX);
		t[0] |= 0x80; /* from 3.11 a first byte */
		for (m = 0; m < 3; m++) {
			line = line_of(minors[m], t, PY_LINES_MAX, UINT32_MAX - 1, true, 1000000);
			CHECK(line >= 0);
			line = line_of(minors[m], t, PY_LINES_MAX, UINT32_MAX - 1, false, UINT32_MAX - 2);
			CHECK(line >= 0);
		}
	}
	t[0] = 0x05; /* not an entry's start */
	CHECK(line_of(11, t, PY_LINES_MAX, 100, false, 3) == 0);
	CHECK(now() - t0 < 1.0);
	free(t);
}

static void run_hostile(void)
{
	RUN(planted_well_formed);
	RUN(planted_lies);
	RUN(planted_unmapped);
	RUN(line_tables_known);
	RUN(line_tables_hostile);
}

int main(void)
{
	static const struct {
		const char *path, *version;
		unsigned minor;
	} pythons[] = {
		{ "/root/.pyenv/versions/3.8.18/bin/python3.8", "3.8", 8 },
		{ "/root/.pyenv/versions/3.9.18/bin/python3.9", "3.9", 9 },
		{ "/root/.pyenv/versions/3.10.13/bin/python3.10", "3.10", 10 },
		{ "/root/.pyenv/versions/3.11.7/bin/python3.11", "3.11", 11 },
		{ "/root/.pyenv/versions/3.12.1/bin/python3.12", "3.12", 12 },
		{ "/root/.pyenv/versions/3.13.0/bin/python3.13", "3.13", 13 },
		{ "/usr/bin/python3.11", "debian_3.11", 11 },
	};
	char exe[PATH_MAX], script[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t i;

	alarm(300); /* a child that never answers must not hang the tier */
	if (n <= 0)
		return 2;
	exe[n] = 0;
	*strrchr(exe, '/') = 0; /* build/tests */
	snprintf(script, sizeof(script), "%s/../../tests/workloads/python/code_objects.py", exe);
	for (i = 0; i < sizeof(pythons) / sizeof(pythons[0]); i++)
		check_python(pythons[i].path, pythons[i].minor, script, false, pythons[i].version);
	check_as_nobody(script);
	run_hostile();
	UNIT_EXIT();
}
