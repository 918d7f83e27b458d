// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Frame names kept to the folded grammar (see frame_name.h). */
#include "profile/frame_name.h"

void frame_name__sanitize(char *name)
{
	for (unsigned char *p = (unsigned char *)name; *p; p++) {
		if (*p == ';')
			*p = ':';
		else if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	}
}
