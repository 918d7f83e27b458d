// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* UTF-8 checking for the text formats (see utf8.h). */
#include "lib/utf8.h"

/* Table 3-7 of the Unicode standard: the lead byte fixes the length and the
 * range of the second byte (which rules out overlong forms, surrogates and
 * code points past U+10FFFF); later bytes are 80..BF. */
int utf8__seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0], len, lo = 0x80, hi = 0xbf;
	size_t i;

	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return -1;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (i = 1; i < len; i++) {
		if (i >= n || s[i] < lo || s[i] > hi)
			return -(int)i;
		lo = 0x80;
		hi = 0xbf;
	}
	return len;
}
