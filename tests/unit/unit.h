/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A minimal unit-test harness.  Each test file defines TEST(name) functions
 * and lists them in main() with RUN(name).  Output is one "PASS name" or
 * "FAIL name: why" line per test; tests/run.sh counts them.
 */
#ifndef SMOLDER_UNIT_H
#define SMOLDER_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_failed_checks;
static int unit_total_failed;

#define TEST(name) static void name(void)

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("  check failed at %s:%d: %s\n", __FILE__,      \
			       __LINE__, #cond);                               \
			unit_failed_checks++;                                  \
		}                                                              \
	} while (0)

#define CHECK_STR(got, want)                                                   \
	do {                                                                   \
		const char *g_ = (got), *w_ = (want);                          \
		if (!g_ || strcmp(g_, w_)) {                                   \
			printf("  check failed at %s:%d: got \"%s\", want \"%s\"\n", \
			       __FILE__, __LINE__, g_ ? g_ : "(null)", w_);    \
			unit_failed_checks++;                                  \
		}                                                              \
	} while (0)

#define RUN(name)                                                              \
	do {                                                                   \
		unit_failed_checks = 0;                                        \
		name();                                                        \
		if (unit_failed_checks) {                                      \
			printf("FAIL %s: %d checks failed\n", #name,           \
			       unit_failed_checks);                            \
			unit_total_failed++;                                   \
		} else {                                                       \
			printf("PASS %s\n", #name);                            \
		}                                                              \
	} while (0)

#define UNIT_EXIT() return unit_total_failed ? 1 : 0

#endif
