/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every frame name obeys: no byte that would break the folded grammar
 * ("frame;frame;... COUNT" per line).  A leaf: folding and the context
 * frames' names both use it.
 */
#ifndef SMOLDER_FRAME_NAME_H
#define SMOLDER_FRAME_NAME_H

/* Replaces ';' with ':', and newlines and other control bytes with '?'. */
void frame_name__sanitize(char *name);

#endif
