// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tally of code without symbols (src/fold/unsym.c): a sample counts
 * once for each file it has unsymbolized frames of, and once in the whole;
 * named frames and frames outside files count nothing; the summary keeps
 * the files with the most samples, most first; continuous mode's merge
 * adds by path; files beyond UNSYM_MAX_FILES count in the whole only.
 */
#include <stdio.h>
#include "fold/unsym.h"
#include "unit.h"

static struct usyms_frame frame(uint64_t ino, const char *path, bool unsym)
{
	return (struct usyms_frame){ .file = path, .build_id = "ab12", .dev = 1, .ino = ino,
				     .unsymbolized = unsym };
}

TEST(tally_and_top)
{
	struct unsym_tally *t = unsym_tally__new();
	struct usyms_frame a = frame(1, "/a", true), b = frame(2, "/b", true),
			   c = frame(3, "/c", true), d = frame(4, "/d", true),
			   named = frame(5, "/e", false), anon = { .unsymbolized = true };
	struct unsym_summary s;

	/* 10 samples with a twice and b: a and b once each */
	unsym_tally__frame(t, &a);
	unsym_tally__frame(t, &b);
	unsym_tally__frame(t, &a);
	unsym_tally__end_sample(t, 10);
	unsym_tally__frame(t, &c);
	unsym_tally__end_sample(t, 3);
	unsym_tally__frame(t, &d);
	unsym_tally__frame(t, &b);
	unsym_tally__end_sample(t, 1);
	unsym_tally__frame(t, &named);
	unsym_tally__frame(t, &anon);
	unsym_tally__end_sample(t, 100);
	unsym_tally__frame(t, &a);
	unsym_tally__end_sample(t, 0); /* an off-CPU key: not samples */
	unsym_tally__summary(t, &s);
	CHECK(s.samples == 14);
	CHECK(s.nr == 3);
	CHECK_STR(s.top[0].path, "/b");
	CHECK(s.top[0].samples == 11);
	CHECK_STR(s.top[1].path, "/a");
	CHECK(s.top[1].samples == 10);
	CHECK_STR(s.top[2].path, "/c");
	CHECK_STR(s.top[0].build_id, "ab12");
	unsym_tally__free(t);
}

TEST(merge_by_path)
{
	struct unsym_summary x = { .samples = 20, .nr = 2,
				   .top = { { "/a", "", 12 }, { "/b", "", 8 } } };
	struct unsym_summary y = { .samples = 15, .nr = 2,
				   .top = { { "/c", "", 9 }, { "/b", "", 6 } } };

	unsym_summary__merge(&x, &y);
	CHECK(x.samples == 35);
	CHECK(x.nr == 3);
	CHECK_STR(x.top[0].path, "/b");
	CHECK(x.top[0].samples == 14);
	CHECK_STR(x.top[1].path, "/a");
	CHECK_STR(x.top[2].path, "/c");
}

TEST(files_bounded)
{
	struct unsym_tally *t = unsym_tally__new();
	struct unsym_summary s;
	struct usyms_frame f;

	for (uint64_t i = 0; i < UNSYM_MAX_FILES + 100; i++) {
		f = frame(i + 1, "/many", true);
		unsym_tally__frame(t, &f);
		unsym_tally__end_sample(t, 1);
	}
	unsym_tally__summary(t, &s);
	CHECK(s.samples == UNSYM_MAX_FILES + 100);
	CHECK(s.nr == UNSYM_TOP && s.top[0].samples == 1);
	unsym_tally__free(t);
}

int main(void)
{
	RUN(tally_and_top);
	RUN(merge_by_path);
	RUN(files_bounded);
	UNIT_EXIT();
}
