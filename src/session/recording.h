/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A developer's facility, not an interface: what a capture counted (sample
 * keys and counts in the map's order, their stacks' addresses, the work
 * items they name, the counters, how long it sampled) written to a file at
 * the end of a capture (SMOLDER_RECORD=FILE), and named and written again
 * later instead of capturing (SMOLDER_REPLAY=FILE).  Two builds replaying
 * one recording name the same counted data, so their outputs can be
 * compared byte for byte (tests/tools/compare-outputs.sh) while the
 * recorded processes still run.  The file is trusted: only its own writer
 * made it (a short or foreign file is refused, not believed).
 */
#ifndef SMOLDER_RECORDING_H
#define SMOLDER_RECORDING_H

#include <stdint.h>
#include "capture/capture.h"
#include "session/finish.h"

struct recording;

/* What the capture's readers see now, with captured_ns and the main
 * binary (may be ""), to path.  0, or -1 after printing why. */
int recording__save(const char *path, struct capture *cap, uint64_t captured_ns,
		    const char *main_binary, const char *main_build_id);
/* NULL after printing why. */
struct recording *recording__load(const char *path);
/* The samples of r, read as a capture's are (the stack and work item asked
 * for are those of the sample being delivered); r must outlive it. */
struct sample_source recording__source(struct recording *r);
/* The capture's counters[CNT__MAX], its length and main binary. */
const uint64_t *recording__counters(const struct recording *r);
uint64_t recording__captured_ns(const struct recording *r);
const char *recording__main_binary(const struct recording *r);
const char *recording__main_build_id(const struct recording *r);
void recording__free(struct recording *r);

#endif
