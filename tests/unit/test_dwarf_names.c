// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for dwarf_names, the inline chains and lines of a file's
 * DWARF.  A program whose hot function runs through always_inline helpers
 * at depths 1 to 3 is built at run time by gcc and clang, -O2 -g (DWARF 5),
 * -gdwarf-4 and with compressed debug sections; at every instruction of
 * its functions the chain must agree with `addr2line -f -i`, binutils'
 * independent reading (function names and the innermost line), for at
 * least 99% of addresses (LLVM's llvm-addr2line where binutils 2.40
 * misreads clang's DWARF 5, and for C++), and each function's declaration
 * must be the line the source gives.  The same in C++ (namespaces, a
 * method, a template).  The program stripped reads the same from its
 * separate debug file, found by build id and by .gnu_debuglink under a
 * root the test makes; MiniDebugInfo alone says ENOMSG.
 * Hostile files (build/tools/hostile_dwarf: looping references, lying
 * lengths, endless line programs, 200,000 nested blocks (which overflowed
 * libdw's dwarf_getscopes' stack) or units, shared abbreviations, a wide
 * unit, debug files the file names that are FIFOs, a sparse 1 GB section,
 * compressed sections that lie) are opened, prepared in 1 ms slices and
 * asked in a child, untrusted and within a symbol budget (64 MiB, 1 s): each must end
 * within the budget's second, under 128 MiB of RSS, without a crash, and
 * name the crafted function or refuse the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "files/dwarf_names.h"
#include "lib/clock.h"
#include "unit.h"
#include "unit_sh.h"

/* The helpers nest: step1 -> step2 -> mix, with mix and step2 alone too. */
static const char prog_src[] =
	"#include <stdint.h>\n"
	"#include <stdlib.h>\n"
	"#define INLINE static inline __attribute__((always_inline))\n"
	"\n"
	"INLINE uint64_t mix(uint64_t x)\n"
	"{\n"
	"	x ^= x >> 33;\n"
	"	x *= 0xff51afd7ed558ccdULL;\n"
	"	x ^= x >> 29;\n"
	"	return x;\n"
	"}\n"
	"\n"
	"INLINE uint64_t step2(uint64_t x, int k)\n"
	"{\n"
	"	for (int i = 0; i < k; i++)\n"
	"		x = mix(x + i);\n"
	"	return x;\n"
	"}\n"
	"\n"
	"INLINE uint64_t step1(uint64_t x)\n"
	"{\n"
	"	uint64_t y = step2(x, 3);\n"
	"	return y * 7 + mix(y);\n"
	"}\n"
	"\n"
	"__attribute__((noinline)) uint64_t hot(uint64_t seed, long n)\n"
	"{\n"
	"	uint64_t acc = 0;\n"
	"	for (long i = 0; i < n; i++) {\n"
	"		acc += step1(seed + i);\n"
	"		acc ^= step2(acc, 2);\n"
	"		acc += mix(acc);\n"
	"	}\n"
	"	return acc;\n"
	"}\n"
	"\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"	return (int)hot(argc, argc > 1 ? atol(argv[1]) : 10);\n"
	"}\n";

/* The same shape in C++: a namespace, a class's inline method, a template. */
static const char cxx_src[] =
	"#include <cstdint>\n"
	"namespace ns {\n"
	"struct mixer {\n"
	"	uint64_t k;\n"
	"	__attribute__((always_inline)) uint64_t mix(uint64_t x) const\n"
	"	{\n"
	"		x ^= x >> 33;\n"
	"		return x * k;\n"
	"	}\n"
	"};\n"
	"template <int N> __attribute__((always_inline)) inline uint64_t rounds(const mixer &m, uint64_t x)\n"
	"{\n"
	"	for (int i = 0; i < N; i++)\n"
	"		x = m.mix(x + i);\n"
	"	return x;\n"
	"}\n"
	"__attribute__((noinline)) uint64_t hot(uint64_t seed, long n)\n"
	"{\n"
	"	mixer m{0xff51afd7ed558ccdULL};\n"
	"	uint64_t acc = 0;\n"
	"	for (long i = 0; i < n; i++)\n"
	"		acc += rounds<3>(m, seed + i) ^ m.mix(acc);\n"
	"	return acc;\n"
	"}\n"
	"} // namespace ns\n"
	"int main(int argc, char **) { return (int)ns::hot(argc, argc * 1000); }\n";

/* The functions whose every instruction is compared (their symbols). */
static const char *const c_funcs[] = { "hot", "main", NULL };
static const char *const cxx_funcs[] = { "_ZN2ns3hotEml", "main", NULL };
static const char *const *compared = c_funcs;
/* Where each function is declared: the line of its source that has decl. */
struct decl {
	const char *name, *decl;
};
static const struct decl c_decls[] = {
	{ "mix", "INLINE uint64_t mix(" }, { "step2", "INLINE uint64_t step2(" },
	{ "step1", "INLINE uint64_t step1(" }, { "hot", "uint64_t hot(" },
	{ "main", "int main(" }, { NULL, NULL },
};
static const struct decl cxx_decls[] = {
	{ "_ZNK2ns5mixer3mixEm", "uint64_t mix(" },
	{ "_ZN2ns6roundsILi3EEEmRKNS_5mixerEm", "uint64_t rounds(" },
	{ "_ZN2ns3hotEml", "uint64_t hot(" }, { "main", "int main(" }, { NULL, NULL },
};
/* The program being compared: its source and functions. */
static const char *src = prog_src, *src_name = "prog.c";
static const struct decl *decls = c_decls;

#define MAX_ADDRS 4096
#define AGREE_PERMILLE 990

static char dir[] = "/tmp/smolder-dwarf-XXXXXX";
static char tools[PATH_MAX]; /* build/tools, beside build/tests */
static int fixtures_ok;

/* popen in the test directory. */
static FILE *sh_read(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int n;

	n = snprintf(cmd, sizeof(cmd), "cd '%s' && ", dir);
	va_start(ap, fmt);
	vsnprintf(cmd + n, sizeof(cmd) - n, fmt, ap);
	va_end(ap);
	return popen(cmd, "r");
}

static int line_of(const char *needle)
{
	const char *at = strstr(src, needle);
	int line = 1;

	for (const char *p = src; at && p < at; p++)
		line += *p == '\n';
	return at ? line : 0;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

static int write_file(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		return -1;
	return 0;
}

/*
 * The program by both compilers, DWARF 5 and 4, compressed; stripped with
 * its debug file under root/ (by build id: root/usr/lib/debug/.build-id/,
 * by debug link: root/bin/dl, beside it), with MiniDebugInfo only, with
 * none; the C++ one by both; the program hostile_dwarf adds to.
 */
static int build_fixtures(void)
{
	if (write_file("prog.c", prog_src) || write_file("prog.cc", cxx_src))
		return -1;
	return sh("gcc -O2 -g prog.c -o gcc && clang -O2 -g prog.c -o clang && "
		  "gcc -O2 -gdwarf-4 prog.c -o gcc-dwarf4 && "
		  "clang -O2 -gdwarf-4 prog.c -o clang-dwarf4 && "
		  "gcc -O2 -g -gz prog.c -o gcc-gz && "
		  "objcopy --compress-debug-sections=zlib-gabi clang clang-gz && "
		  "g++ -O2 -g prog.cc -o gxx && clang++ -O2 -g prog.cc -o clangxx && "
		  "gcc -O2 -g0 prog.c -o plain && "
		  "gcc -O2 -g -Wl,--build-id=sha1 prog.c -o bid && "
		  "objcopy --only-keep-debug bid bid.debug && strip bid -o bid-stripped && "
		  "id=$(readelf -n bid | sed -n 's/.*Build ID: //p') && "
		  "mkdir -p root/usr/lib/debug/.build-id/${id%%${id#??}} root/bin && "
		  "mv bid.debug root/usr/lib/debug/.build-id/${id%%${id#??}}/${id#??}.debug && "
		  "gcc -O2 -g -Wl,--build-id=none prog.c -o dl && "
		  "objcopy --only-keep-debug dl root/bin/dl.debug && strip dl -o root/bin/dl && "
		  "(cd root/bin && objcopy --add-gnu-debuglink=dl.debug dl) && "
		  "strip dl -o mini && objcopy --only-keep-debug --remove-section=.debug_\\* dl mini.dbg && "
		  "xz -f mini.dbg && objcopy --add-section .gnu_debugdata=mini.dbg.xz mini && "
		  "mkfifo fifo");
}

/* [lo, hi) of the compared functions in file, from its symbol table. */
static size_t functions(const char *file, uint64_t (*range)[2], size_t max)
{
	FILE *p = sh_read("nm -S --defined-only '%s'", file);
	char line[512], name[128], type;
	uint64_t a, size;
	size_t n = 0;

	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %127s", &a, &size, &type, name) == 4)
			for (size_t i = 0; compared[i]; i++)
				if (!strcmp(name, compared[i]) && n < max) {
					range[n][0] = a;
					range[n++][1] = a + size;
				}
	if (p)
		pclose(p);
	return n;
}

/* The addresses of the instructions of the compared functions in file
 * (not the padding after them). */
static size_t instructions(const char *file, uint64_t *addrs, size_t max)
{
	FILE *p = sh_read("objdump -d --no-show-raw-insn '%s'", file);
	uint64_t range[8][2];
	size_t nr = functions(file, range, 8), n = 0;
	char line[512];

	while (p && fgets(line, sizeof(line), p)) {
		char *end;
		uint64_t a = strtoull(line, &end, 16);

		/* "    1140:\tpush ..." */
		if (line[0] != ' ' || end == line || end[0] != ':' || end[1] != '\t')
			continue;
		for (size_t i = 0; i < nr; i++)
			if (a >= range[i][0] && a < range[i][1] && n < max)
				addrs[n++] = a;
	}
	if (p)
		pclose(p);
	return n;
}

/* addr2line's reading of one address: innermost first. */
struct ref {
	int n;
	char func[DWARF_MAX_INLINE][128];
	char file[256]; /* the innermost line's, as it prints it */
	int line;       /* 0 for "?" */
};

/* tool (addr2line or llvm-addr2line) -f -i -a on every address of addrs,
 * in one run. */
static int reference(const char *tool, const char *file, const uint64_t *addrs, size_t n,
		     struct ref *refs)
{
	char list[PATH_MAX], line[1024];
	FILE *f, *p;
	int at = -1, pair = 0;

	snprintf(list, sizeof(list), "%s/addrs", dir);
	f = fopen(list, "w");
	for (size_t i = 0; f && i < n; i++)
		fprintf(f, "0x%" PRIx64 "\n", addrs[i]);
	if (!f || fclose(f) || !(p = sh_read("%s -f -i -a -e '%s' <addrs", tool, file)))
		return -1;
	memset(refs, 0, n * sizeof(*refs));
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "0x", 2) && pair == 0) {
			at++;
			continue;
		}
		if (at < 0 || (size_t)at >= n)
			break;
		if (pair == 0 && refs[at].n < DWARF_MAX_INLINE)
			snprintf(refs[at].func[refs[at].n], sizeof(refs[at].func[0]), "%.127s", line);
		if (pair == 1 && refs[at].n++ == 0) {
			char *colon = strrchr(line, ':');

			if (colon) {
				*colon = 0;
				refs[at].line = atoi(colon + 1);
			}
			snprintf(refs[at].file, sizeof(refs[at].file), "%.255s", line);
		}
		pair ^= 1;
	}
	pclose(p);
	return (size_t)at + 1 == n ? 0 : -1;
}

/* Whether our chain c is addr2line's r: the same functions and innermost line. */
static bool agrees(const struct dwarf_chain *c, const struct ref *r)
{
	const struct dwarf_frame *leaf = c->n ? &c->f[c->n - 1] : NULL;

	if ((int)c->n != r->n || !leaf)
		return false;
	for (uint32_t i = 0; i < c->n; i++)
		if (!c->f[i].func || strcmp(c->f[i].func, r->func[c->n - 1 - i]))
			return false;
	if ((int)leaf->line != r->line)
		return false;
	return !r->line || (leaf->file && !strcmp(base_name(leaf->file), base_name(r->file)));
}

static void print_disagreement(const char *tool, uint64_t a, const struct dwarf_chain *c,
			       const struct ref *r)
{
	printf("    %#" PRIx64 ": ours", a);
	for (uint32_t i = 0; i < c->n; i++)
		printf(" %s", c->f[i].func ? c->f[i].func : "?");
	printf(" :%u; %s", c->n ? c->f[c->n - 1].line : 0, tool);
	for (int i = r->n; i-- > 0;)
		printf(" %s", r->func[i]);
	printf(" :%d\n", r->line);
}

/* Each frame's declaration is where the source has it. */
static int check_decls(const struct dwarf_chain *c)
{
	int bad = 0;

	for (uint32_t i = 0; i < c->n; i++)
		for (size_t k = 0; decls[k].name; k++)
			if (c->f[i].func && !strcmp(c->f[i].func, decls[k].name) &&
			    ((int)c->f[i].decl_line != line_of(decls[k].decl) ||
			     strcmp(base_name(c->f[i].decl_file) ?: "", src_name)))
				bad++;
	return bad;
}

static struct dwarf_names *open_within(const char *name, const char *root, const char *path,
				       bool untrusted, const struct budget *b)
{
	char p[PATH_MAX];
	struct dwarf_names *dn;
	int fd, e;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	dn = dwarf_names__open(fd, root, path, untrusted, b);
	e = errno;
	close(fd);
	errno = e;
	return dn;
}

static struct dwarf_names *open_file(const char *name, const char *root, const char *path)
{
	return open_within(name, root, path, false, NULL);
}

/*
 * Compares our chains in file (read through root and path when they are
 * given) at every instruction of the compared functions with tool's
 * reading of ref; the share that agree, in permille (0 if a declaration
 * was wrong), and a line saying it.
 */
static int compare(const char *label, const char *tool, const char *file, const char *ref,
		   const char *root, const char *path)
{
	static uint64_t addrs[MAX_ADDRS];
	static struct ref refs[MAX_ADDRS];
	struct dwarf_names *dn = open_file(file, root ? root : "", path);
	size_t n = instructions(ref, addrs, MAX_ADDRS), agree = 0, shown = 0;
	int bad_decls = 0;

	if (!dn || n < 16 || reference(tool, ref, addrs, n, refs)) {
		printf("  %s: %s, %zu instructions\n", label, dn ? "no reference" : "no DWARF", n);
		dwarf_names__free(dn);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		struct dwarf_chain c;

		dwarf_names__chain(dn, addrs[i], NULL, &c);
		bad_decls += check_decls(&c);
		if (agrees(&c, &refs[i]))
			agree++;
		else if (shown++ < 5)
			print_disagreement(tool, addrs[i], &c, &refs[i]);
	}
	printf("  %s: %zu of %zu instructions agree with %s (%.1f%%), %d wrong declarations\n",
	       label, agree, n, tool, 100.0 * agree / n, bad_decls);
	dwarf_names__free(dn);
	return bad_decls ? 0 : (int)(agree * 1000 / n);
}

TEST(fixtures_built)
{
	CHECK(fixtures_ok);
}

TEST(gcc_agrees_with_addr2line)
{
	CHECK(compare("gcc -O2 -g", "addr2line", "gcc", "gcc", NULL, NULL) >= AGREE_PERMILLE);
	CHECK(compare("gcc -O2 -gdwarf-4", "addr2line", "gcc-dwarf4", "gcc-dwarf4", NULL, NULL) >=
	      AGREE_PERMILLE);
	CHECK(compare("gcc -O2 -g -gz", "addr2line", "gcc-gz", "gcc-gz", NULL, NULL) >=
	      AGREE_PERMILLE);
}

/*
 * Names only (dwarf_names__set_lines off), on the compressed builds: the
 * same functions as addr2line at every instruction, with no file or line,
 * and .debug_line (like the location lists) set aside rather than
 * inflated: fewer bytes inflated (whole, or read sparse: issue 27) than
 * with lines, and some set aside.
 */
static int compare_names(const char *tool, const char *file)
{
	static uint64_t addrs[MAX_ADDRS];
	static struct ref refs[MAX_ADDRS];
	struct dwarf_names *dn = open_file(file, "", NULL), *lined = open_file(file, "", NULL);
	size_t n = instructions(file, addrs, MAX_ADDRS), agree = 0, bad = 0;
	size_t inflated, aside, lined_inflated, lined_aside, kept, sparse, lined_sparse;

	if (!dn || !lined || n < 16 || reference(tool, file, addrs, n, refs)) {
		dwarf_names__free(dn);
		dwarf_names__free(lined);
		return 0;
	}
	dwarf_names__set_lines(dn, false);
	for (size_t i = 0; i < n; i++) {
		struct dwarf_chain c;
		bool same = dwarf_names__chain(dn, addrs[i], NULL, &c) == 0 && (int)c.n == refs[i].n;

		for (uint32_t k = 0; same && k < c.n; k++) {
			same = c.f[k].func && !strcmp(c.f[k].func, refs[i].func[c.n - 1 - k]);
			bad += c.f[k].file || c.f[k].line || c.f[k].decl_file || c.f[k].decl_line;
		}
		agree += same;
	}
	dwarf_names__prepare(lined, NULL);
	dwarf_names__inflated(dn, &inflated, &aside);
	dwarf_names__inflated(lined, &lined_inflated, &lined_aside);
	/* sections read sparse are neither inflated whole nor set aside */
	dwarf_names__sparse(dn, &kept, &sparse);
	dwarf_names__sparse(lined, &kept, &lined_sparse);
	printf("  %s, names only: %zu of %zu instructions agree with %s, %zu frames with lines; "
	       "inflated %zu bytes, %zu set aside, %zu read sparse (with lines: %zu, %zu, %zu)\n",
	       file, agree, n, tool, bad, inflated, aside, sparse, lined_inflated, lined_aside,
	       lined_sparse);
	dwarf_names__free(dn);
	dwarf_names__free(lined);
	if (bad || !inflated || inflated + sparse >= lined_inflated + lined_sparse ||
	    aside <= lined_aside ||
	    inflated + aside + sparse != lined_inflated + lined_aside + lined_sparse)
		return 0;
	return (int)(agree * 1000 / n);
}

TEST(names_only_sets_line_table_aside)
{
	CHECK(compare_names("addr2line", "gcc-gz") >= AGREE_PERMILLE);
	CHECK(compare_names("llvm-addr2line", "clang-gz") >= AGREE_PERMILLE);
}

/*
 * clang 14's DWARF 5 gives inlined instances of several ranges as
 * DW_FORM_rnglistx, which binutils 2.40's addr2line does not follow: it
 * leaves out those functions (mix, at about half the addresses).  There,
 * LLVM's own reader (llvm-addr2line) is the reference; binutils' figure is
 * printed.  In DWARF 4 binutils reads the same ranges.
 */
TEST(clang_agrees_with_addr2line)
{
	compare("clang -O2 -g", "addr2line", "clang", "clang", NULL, NULL);
	CHECK(compare("clang -O2 -g", "llvm-addr2line", "clang", "clang", NULL, NULL) >=
	      AGREE_PERMILLE);
	CHECK(compare("clang -O2 -gdwarf-4", "addr2line", "clang-dwarf4", "clang-dwarf4", NULL,
		      NULL) >= AGREE_PERMILLE);
	CHECK(compare("clang -O2 -gdwarf-4", "llvm-addr2line", "clang-dwarf4", "clang-dwarf4", NULL,
		      NULL) >= AGREE_PERMILLE);
	CHECK(compare("clang -O2 -g, compressed", "llvm-addr2line", "clang-gz", "clang-gz", NULL,
		      NULL) >= AGREE_PERMILLE);
}

/* The C++ one: namespaces, a class's method, a template (LLVM's reader:
 * binutils' names some C++ inlined instances by their caller). */
TEST(cxx_agrees_with_llvm_addr2line)
{
	compared = cxx_funcs;
	src = cxx_src;
	src_name = "prog.cc";
	decls = cxx_decls;
	CHECK(compare("g++ -O2 -g", "llvm-addr2line", "gxx", "gxx", NULL, NULL) >= AGREE_PERMILLE);
	CHECK(compare("clang++ -O2 -g", "llvm-addr2line", "clangxx", "clangxx", NULL, NULL) >=
	      AGREE_PERMILLE);
	compared = c_funcs;
	src = prog_src;
	src_name = "prog.c";
	decls = c_decls;
}

/* Stripped, with the DWARF in a separate file found under the test's root. */
TEST(separate_debug_files)
{
	char root[PATH_MAX];
	struct dwarf_names *dn;

	snprintf(root, sizeof(root), "%s/root", dir);
	CHECK(compare("stripped, debug file by build id", "addr2line", "bid-stripped", "bid", root,
		      NULL) >= AGREE_PERMILLE);
	CHECK(compare("stripped, debug file by .gnu_debuglink", "addr2line", "root/bin/dl", "dl",
		      root, "/bin/dl") >= AGREE_PERMILLE);
	dn = open_file("bid-stripped", root, NULL);
	CHECK(dn && dwarf_names__separate(dn));
	dwarf_names__free(dn);
	dn = open_file("gcc", root, NULL);
	CHECK(dn && !dwarf_names__separate(dn));
	dwarf_names__free(dn);
	/* not found: the root has no such file, or no path for the debug link */
	CHECK(!open_file("bid-stripped", dir, NULL) && errno == ENODATA);
	CHECK(!open_file("root/bin/dl", root, NULL) && errno == ENODATA);
}

TEST(no_dwarf)
{
	CHECK(!open_file("mini", dir, NULL) && errno == ENOMSG);
	CHECK(!open_file("plain", dir, NULL) && errno == ENODATA);
	CHECK_STR(dwarf_names__strerror(ENOMSG),
		  "only MiniDebugInfo (.gnu_debugdata), which has no DWARF");
}

/* Bounds of a hostile file's reading: the symbol budget's, and the tests'. */
#define HOSTILE_BYTES (64u << 20)
#define HOSTILE_SECONDS 1.0
#define HOSTILE_MARGIN 0.5
#define HOSTILE_RSS_KIB (128 << 10)
#define HOSTILE_WATCHDOG 20

/* What a child made of a hostile file. */
struct hostile_result {
	int err;          /* errno of dwarf_names__open, else of its index */
	unsigned asked, chains, outer, lines;
	size_t bytes;     /* dwarf_names__bytes */
};

struct hostile_case {
	const char *name, *args;
	int want;         /* errno of dwarf_names__open, or (opened) of its index
			   * (dwarf_names__error; for E2BIG, ETIMEDOUT too: the
			   * budget's time ran out first); 0: names "outer" */
};

static const struct hostile_case hostile_cases[] = {
	{ "references_that_loop", "cycle", 0 },
	{ "unit_length_lies", "length", 0 },
	{ "unit_length_lies_64", "-n 64 length", 0 },
	{ "line_program_without_end", "line", 0 },
	{ "line_program_length_lies", "-n 1 line", 0 },
	{ "line_header_million_files", "lhead", 0 },
	{ "line_header_length_lies", "-n 0 lhead", 0 },
	{ "nested_blocks_200k", "-n 200000 deep", 0 },
	{ "units_200k", "-n 200000 units", E2BIG },
	{ "abbreviations_shared_by_units", "abbrev", E2BIG },
	{ "wide_unit", "-n 200000 wide", 0 },
	{ "altlink_names_fifo", "-p fifo altlink", ENOLINK },
	{ "skeleton_dwo_is_fifo", "-p fifo skeleton", ENODATA },
	{ "sparse_1g_info", "sparse", E2BIG },
	{ "compressed_claims_1g", "zlib", E2BIG },
	{ "compressed_bomb", "zbomb", ENODATA },
};

/* In the child: open name untrusted within the symbol budget and ask
 * every 16th address of its units' ranges. */
static struct hostile_result hostile_read(const char *name)
{
	struct budget b = { .until = clock__now() + HOSTILE_SECONDS, .max_bytes = HOSTILE_BYTES };
	struct hostile_result r = { 0 };
	struct dwarf_names *dn = open_within(name, dir, NULL, true, &b);
	uint64_t lo, hi;

	struct dwarf_chain first;

	if (!dn) {
		r.err = errno;
		return r;
	}
	/* prepared in 1 ms slices first, as a capture of the machine's quiet
	 * time does (a sparse listing goes on where it stopped) */
	while (!budget__expired(&b)) {
		struct budget slice = b;

		if (clock__now() + 0.001 < b.until)
			slice.until = clock__now() + 0.001;
		if (dwarf_names__prepare(dn, &slice) != -ETIMEDOUT)
			break;
	}
	/* indexes the units: out of time is the budget's refusal too */
	r.err = dwarf_names__chain(dn, 0, &b, &first) == -ETIMEDOUT ? ETIMEDOUT :
		-dwarf_names__error(dn);
	for (size_t i = 0; dwarf_names__unit_range(dn, i, &lo, &hi); i++)
		for (uint64_t a = lo; a < hi && r.asked < 4096; a += 16) {
			struct dwarf_chain c;

			r.asked++;
			if (dwarf_names__chain(dn, a, &b, &c))
				continue;
			r.chains++;
			r.outer += c.f[0].func && !strcmp(c.f[0].func, "outer");
			r.lines += c.f[c.n - 1].line != 0;
		}
	r.bytes = dwarf_names__bytes(dn);
	dwarf_names__free(dn);
	return r;
}

/* Runs hostile_read in a child; its wall time, max RSS and wait status. */
static int hostile_run(const char *name, struct hostile_result *r, double *secs, long *rss_kib,
		       int *status)
{
	double t0 = clock__now();
	struct rusage ru;
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct hostile_result got;

		close(fds[0]);
		alarm(HOSTILE_WATCHDOG);
		got = hostile_read(name);
		_exit(write(fds[1], &got, sizeof(got)) == sizeof(got) ? 0 : 1);
	}
	close(fds[1]);
	memset(r, 0, sizeof(*r));
	r->err = -1;
	if (pid < 0 || read(fds[0], r, sizeof(*r)) < 0 || wait4(pid, status, 0, &ru) != pid) {
		close(fds[0]);
		return -1;
	}
	close(fds[0]);
	*secs = clock__now() - t0;
	*rss_kib = ru.ru_maxrss;
	return 0;
}

/*
 * Each hostile shape, untrusted, in a child: no crash, within the budget's
 * second (retaken once when over: the machine may be busy), under 128 MiB,
 * and what it should give: names (the crafted "outer") or a refusal.
 */
TEST(hostile_files)
{
	for (size_t i = 0; i < sizeof(hostile_cases) / sizeof(hostile_cases[0]); i++) {
		const struct hostile_case *h = &hostile_cases[i];
		struct hostile_result r;
		double secs = 0;
		long rss = 0;
		int status = 0, bad = 0;

		if (sh("'%s/hostile_dwarf' %s plain %s", tools, h->args, h->name)) {
			unit_failed_checks++;
			continue;
		}
		for (int take = 0; take < 2; take++)
			if (hostile_run(h->name, &r, &secs, &rss, &status) ||
			    secs < HOSTILE_SECONDS + HOSTILE_MARGIN)
				break;
		printf("  %s: %.2f s, %ld MiB, %s%s, %u of %u asked named, %u with lines, %zu KiB held\n",
		       h->name, secs, rss >> 10, WIFSIGNALED(status) ? "signal " : "",
		       WIFSIGNALED(status) ? strsignal(WTERMSIG(status)) :
		       r.err ? strerror(r.err) : "opened", r.chains, r.asked, r.lines, r.bytes >> 10);
		bad += !WIFEXITED(status) || WEXITSTATUS(status);
		bad += secs >= HOSTILE_SECONDS + HOSTILE_MARGIN || rss >= HOSTILE_RSS_KIB;
		bad += (r.err != h->want && (h->want != E2BIG || r.err != ETIMEDOUT)) ||
		       (!h->want && !r.outer);
		bad += r.bytes > HOSTILE_BYTES;
		if (bad)
			printf("  check failed: %s (want %s)\n", h->name,
			       h->want ? strerror(h->want) : "\"outer\" named");
		unit_failed_checks += bad;
		sh("rm -f %s", h->name);
	}
}

/* What the process holds now: anonymous and file pages, in KiB. */
static long rss_kib(void)
{
	char line[256];
	long anon = 0, file = 0;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f)) {
		sscanf(line, "RssAnon: %ld", &anon);
		sscanf(line, "RssFile: %ld", &file);
	}
	if (f)
		fclose(f);
	return anon + file;
}

/*
 * In a child: the RSS that opening name and asking every 4th address of
 * its ranges added, and what dwarf_names__bytes says it holds, in KiB.
 */
static int measure_bytes(const char *name, long *grown, long *said)
{
	int fds[2], status;
	long got[2] = { -1, -1 };
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct budget b = { .max_bytes = 1ul << 30 };
		struct dwarf_names *dn = open_file("gcc", dir, NULL);
		uint64_t lo, hi;
		long before;

		struct dwarf_chain c;

		/* libdw's and libelf's code and first allocations: not the file's */
		dwarf_names__chain(dn, 0, &b, &c);
		for (size_t i = 0; dn && dwarf_names__unit_range(dn, i, &lo, &hi); i++)
			dwarf_names__chain(dn, lo, &b, &c);
		dwarf_names__free(dn);
		before = rss_kib();
		dn = open_within(name, dir, NULL, false, &b);
		if (dn)
			dwarf_names__chain(dn, 0, &b, &c);

		for (size_t i = 0; dn && dwarf_names__unit_range(dn, i, &lo, &hi); i++)
			for (uint64_t a = lo; a < hi; a += 4)
				dwarf_names__chain(dn, a, &b, &c);
		got[0] = rss_kib() - before;
		got[1] = dn ? (long)(dwarf_names__bytes(dn) >> 10) : -1;
		_exit(write(fds[1], got, sizeof(got)) == sizeof(got) ? 0 : 1);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], got, sizeof(got)) != sizeof(got))
		got[1] = -1;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	*grown = got[0];
	*said = got[1];
	return got[1] < 0 ? -1 : 0;
}

/*
 * dwarf_names__bytes follows what reading costs, libdw's allocations and
 * the file's pages it reads included: at least 80% of the RSS added, at
 * most twice it, for shapes whose cost is libdw's (many units, a long
 * line program read whole) and a -g program of a few thousand lines.
 */
TEST(bytes_follow_rss)
{
	static const struct { const char *name, *make; } shapes[] = {
		{ "units", "'%s/hostile_dwarf' -n 20000 units plain units" },
		{ "line", "'%s/hostile_dwarf' -s 1000000 line plain line" },
		{ "many", "for i in $(seq 300); do printf 'static inline int h%%d(int x) "
			  "{ return x * %%d + 1; }\\nint f%%d(int x) { return h%%d(x) ^ h%%d(x >> 1); }\\n' "
			  "$i $i $i $i $i; done >many.c && gcc -O2 -g -shared -fPIC many.c -o many" },
	};

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		long grown = 0, said = 0;

		if (sh(shapes[i].make, tools) || measure_bytes(shapes[i].name, &grown, &said)) {
			unit_failed_checks++;
			continue;
		}
		printf("  %s: RSS grew %ld KiB, dwarf_names__bytes %ld KiB\n", shapes[i].name, grown,
		       said);
		CHECK(said * 10 >= grown * 8 && said <= 2 * grown);
	}
}

/*
 * libdw's line rows are let go past DWARF_ROWS_HELD (shed_lines) and read
 * again as needed: two units of SHED_FUNCS one-line functions each (-O0:
 * 4 rows a function, both units' rows over the limit together, not one's),
 * the even functions of each asked, then the odd ones, so that the rows
 * of each unit are read again after they were let go: every function's
 * line is right.
 */
#define SHED_FUNCS 15000

static int shed_fixture(void)
{
	return sh("for u in a b; do awk -v u=$u 'BEGIN { for (i = 0; i < %d; i++) "
		  "printf \"int %%s%%d(int x) { return x * %%d + 1; }\\n\", u, i, i }' >$u.c; done && "
		  "gcc -O0 -g -shared -fPIC a.c b.c -o shed.so", SHED_FUNCS);
}

TEST(lines_let_go)
{
	static uint64_t at[2][SHED_FUNCS];
	struct dwarf_names *dn;
	struct dwarf_chain c;
	char name[64];
	uint64_t addr;
	size_t right = 0, asked = 0, held_max = 0;
	unsigned n;
	FILE *f;

	CHECK(!shed_fixture());
	f = sh_read("nm --defined-only shed.so");
	while (f && fscanf(f, "%" SCNx64 " %*s %63s", &addr, name) == 2)
		if ((name[0] == 'a' || name[0] == 'b') && sscanf(name + 1, "%u", &n) == 1 &&
		    n < SHED_FUNCS)
			at[name[0] - 'a'][n] = addr;
	if (f)
		pclose(f);
	dn = open_file("shed.so", NULL, NULL);
	CHECK(dn != NULL);
	for (unsigned k = 0; dn && k < 4 * SHED_FUNCS / 2; k++) {
		unsigned half = k / (SHED_FUNCS / 2), i = 2 * (k % (SHED_FUNCS / 2)) + half / 2;
		int u = half % 2;

		{
			asked++;
			if (at[u][i] && !dwarf_names__chain(dn, at[u][i], NULL, &c) && c.n == 1 &&
			    c.f[0].line == i + 1 && c.f[0].file && strstr(c.f[0].file, u ? "b.c" : "a.c"))
				right++;
			if (dwarf_names__bytes(dn) > held_max)
				held_max = dwarf_names__bytes(dn);
		}
	}
	printf("  %zu of %zu functions' lines right, at most %zu KiB held\n", right, asked,
	       held_max >> 10);
	CHECK(right == asked);
	dwarf_names__free(dn);
}

static void release(void);

/*
 * A sparse index (dwarf_sparse.c) listed in slices of half a millisecond
 * goes on where each stopped, as a capture of the machine lists libc6-dbg's
 * units in its quiet time: it ends, and every chain (its units marked
 * first, read in one build) is the one-go index's, at every 25th function
 * of the C library.
 */
#define SPARSE_LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define SPARSE_ADDRS 512

static void chain_text(const struct dwarf_chain *c, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (uint32_t i = 0; i < c->n && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s:%u;", c->f[i].func ?: "?",
				       c->f[i].line);
}

static struct dwarf_names *open_libc(void)
{
	int fd = open(SPARSE_LIBC, O_RDONLY | O_CLOEXEC);
	struct dwarf_names *dn = fd >= 0 ? dwarf_names__open(fd, "", NULL, false, NULL) : NULL;

	if (fd >= 0)
		close(fd);
	return dn;
}

TEST(sparse_listing_goes_on)
{
	static uint64_t addrs[SPARSE_ADDRS];
	static char want[SPARSE_ADDRS][256];
	struct dwarf_names *one = open_libc(), *sliced = open_libc();
	FILE *p = sh_read("nm -D --defined-only %s | awk '$2 ~ /^[Tt]$/ && NR %% 25 == 0 "
			  "{ print $1 }'", SPARSE_LIBC);
	size_t n = 0, agree = 0, chained = 0, kept = 0, full = 0;
	unsigned slices = 0;
	int e = -ETIMEDOUT;

	while (p && n < SPARSE_ADDRS && fscanf(p, "%" SCNx64, &addrs[n]) == 1)
		n++;
	if (p)
		pclose(p);
	CHECK(one && sliced && n >= 32); /* libc6-dbg: scripts/deps.sh */
	if (!one || !sliced || n < 32)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct dwarf_chain c;

		dwarf_names__chain(one, addrs[i], NULL, &c);
		chain_text(&c, want[i], sizeof(want[i]));
		chained += c.n > 0;
	}
	while (e == -ETIMEDOUT && slices < 100000) {
		struct budget b = { .until = clock__now() + 0.0005 };

		e = dwarf_names__prepare(sliced, &b);
		slices++;
	}
	for (size_t i = 0; !e && i < n; i++)
		dwarf_names__mark(sliced, addrs[i], NULL);
	for (size_t i = 0; !e && i < n; i++) {
		struct dwarf_chain c;
		char got[256];

		dwarf_names__chain(sliced, addrs[i], NULL, &c);
		chain_text(&c, got, sizeof(got));
		agree += !strcmp(got, want[i]);
	}
	dwarf_names__sparse(sliced, &kept, &full);
	printf("  %zu addresses (%zu with a chain): prepared in %u slices (%d), %zu agree; "
	       "%zu of %zu bytes kept\n", n, chained, slices, e, agree, kept, full);
	CHECK(e == 0 && slices >= 4);
	CHECK(chained * 2 >= n && agree == n);
	CHECK(kept > 0 && kept * 4 < full);
out:
	dwarf_names__free(one);
	dwarf_names__free(sliced);
}

int main(void)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = 0;
		/* build/tests/test_dwarf_names -> build/tools */
		snprintf(tools, sizeof(tools), "%.*s/tools",
			 (int)(strrchr(self, '/') - self) - (int)strlen("/tests"), self);
	}
	if (!mkdtemp(dir)) {
		printf("FAIL fixtures: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	sh_dir = dir;
	fixtures_ok = !build_fixtures();
	RUN(fixtures_built);
	if (fixtures_ok) {
		RUN(gcc_agrees_with_addr2line);
		RUN(clang_agrees_with_addr2line);
		RUN(names_only_sets_line_table_aside);
		RUN(cxx_agrees_with_llvm_addr2line);
		RUN(separate_debug_files);
		RUN(no_dwarf);
		RUN(hostile_files);
		RUN(bytes_follow_rss);
		RUN(lines_let_go);
	}
	RUN(sparse_listing_goes_on);
	release();
	UNIT_EXIT();
}

static void release(void)
{
	if (!getenv("SMOLDER_KEEP_TMP"))
		sh("cd / && rm -rf '%s'", dir);
	else
		printf("  fixtures kept in %s\n", dir);
}
