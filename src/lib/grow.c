// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Growable arrays (see grow.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "lib/grow.h"

int grow__room(void **items, size_t *cap, size_t need, size_t size, size_t first, size_t max)
{
	size_t ncap = *cap ? *cap : first ? first : 1;
	void *n;

	if (need <= *cap)
		return 0;
	if (max && need > max)
		return -E2BIG;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (max && ncap > max)
		ncap = max;
	if (ncap > SIZE_MAX / size)
		return -ENOMEM;
	n = realloc(*items, ncap * size);
	if (!n)
		return -ENOMEM;
	*items = n;
	*cap = ncap;
	return 0;
}
