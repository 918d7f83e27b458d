/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The processes a capture is about, when it is about some: the command
 * `smolder [options] -- COMMAND ARGS...` starts (forked at once, held
 * until the capture is attached, then exec'd, so its first instructions
 * are sampled), and the -p processes, watched so that the capture ends
 * when every one of them has exited.  A -p PID whose number comes back as
 * another process (its start time changed) counts as exited.
 */
#ifndef SMOLDER_TARGETS_H
#define SMOLDER_TARGETS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct targets;

/*
 * Starts watching tgids[0..nr) and, when command is not NULL, forks it
 * (held).  With out_to_err the command's standard output is smolder's
 * standard error: the profile goes to standard output, and the command's
 * output must not land in it.  NULL after printing why.
 */
struct targets *targets__new(const uint32_t *tgids, size_t nr, char *const *command,
			     bool out_to_err);
/* The held command's PID, 0 without one. */
pid_t targets__command_pid(const struct targets *t);
/* Lets the held command exec.  0, or -1 after printing why it could not
 * run (the command's exit code is then 127, as a shell's). */
int targets__go(struct targets *t);
/*
 * The executable of the command, or of the one -p process, into path
 * (readlink of /proc/PID/exe) and its GNU build id in hex into build_id
 * ("" when it has none).  False when there is no single such process.
 */
bool targets__main_binary(const struct targets *t, char *path, size_t len, char *build_id,
			  size_t id_len);
/*
 * True once the command has exited or been killed, or without one, every
 * -p process.  A stop is no exit: the command's first stop is said (once)
 * and the capture waits on; a ptrace stop (the command made smolder its
 * tracer with PTRACE_TRACEME) is let go at once, its signal handed on.
 */
bool targets__gone(struct targets *t);
/*
 * A descriptor that turns readable when the command exits (a pidfd, 5.3+),
 * so that a capture waiting for events ends at once rather than at its
 * next look; -1 without a command, or on older kernels (then only the
 * looks, every 100 ms at most, tell).  Closed by targets__free.
 */
int targets__wake_fd(struct targets *t);
/*
 * The exit code smolder ends with for the command: its own, or 128 + the
 * signal that killed it; -1 without a command.  A command still running
 * (the capture ended first, by a signal or the duration) gets sig, or
 * SIGTERM when sig is 0 (and SIGCONT when stopped, to act on it), and up
 * to a second to exit; one that does not is left running, and said.
 */
int targets__finish(struct targets *t, int sig);
void targets__free(struct targets *t);

#endif
