// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The command a capture runs and the -p processes it watches (see targets.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include "elf_syms.h"
#include "log.h"
#include "targets.h"

struct watched {
	uint32_t pid;
	unsigned long long start; /* /proc/PID/stat's starttime, 0 if unread */
};

struct targets {
	struct watched *procs;
	size_t nr;
	char *const *command;
	pid_t child;   /* the command, 0 without one or once reaped */
	int go_fd;     /* write end: a byte lets the command exec */
	int exec_fd;   /* read end: the child's errno if exec failed */
	int status;    /* the command's wait status, once reaped */
	bool reaped;
};

/*
 * A process's state letter and start time from /proc/PID/stat; false when
 * it is gone.  The fields after the name, which may hold ") ", are counted
 * from the last ')'.
 */
static bool proc_stat(uint32_t pid, char *state, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* state is field 3, starttime field 22: 19 fields after the state */
	return p && sscanf(p + 1, " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
				  "%*s %*s %*s %*s %llu", state, start) == 2;
}

static bool proc_alive(const struct watched *w)
{
	unsigned long long start;
	char state;

	if (!proc_stat(w->pid, &state, &start))
		return false;
	/* a zombie has exited; its parent just has not reaped it yet */
	return state != 'Z' && state != 'X' && (!w->start || start == w->start);
}

/* The child: waits for the go byte, then execs; on failure tells the
 * parent why through exec_fd (close-on-exec: nothing arrives on success). */
static void __attribute__((noreturn)) run_child(char *const *command, int go_fd, int exec_fd)
{
	sigset_t none;
	char go;
	int e;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* until the exec, its samples (the exec itself) are the command's */
	prctl(PR_SET_NAME, basename(command[0]));
	if (read(go_fd, &go, 1) != 1)
		_exit(127); /* smolder gave up before the capture started */
	close(go_fd);
	execvp(command[0], command);
	e = errno;
	if (write(exec_fd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static int fork_command(struct targets *t)
{
	int go[2], ex[2];

	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
		err("cannot start %s: %s (raise the open file limit)", t->command[0], errstr(errno));
		return -1;
	}
	fflush(NULL);
	t->child = fork();
	if (t->child < 0) {
		err("cannot start %s: %s (check the process limit)", t->command[0], errstr(errno));
		t->child = 0;
		return -1;
	}
	if (!t->child) {
		close(go[1]);
		close(ex[0]);
		run_child(t->command, go[0], ex[1]);
	}
	close(go[0]);
	close(ex[1]);
	t->go_fd = go[1];
	t->exec_fd = ex[0];
	return 0;
}

struct targets *targets__new(const uint32_t *tgids, size_t nr, char *const *command)
{
	struct targets *t = calloc(1, sizeof(*t));
	char state;

	if (!t || (nr && !(t->procs = calloc(nr, sizeof(*t->procs))))) {
		free(t);
		err("out of memory");
		return NULL;
	}
	t->go_fd = t->exec_fd = -1;
	t->nr = nr;
	for (size_t i = 0; i < nr; i++) {
		t->procs[i].pid = tgids[i];
		if (!proc_stat(tgids[i], &state, &t->procs[i].start))
			t->procs[i].start = 0;
	}
	t->command = command;
	if (command && fork_command(t)) {
		targets__free(t);
		return NULL;
	}
	return t;
}

pid_t targets__command_pid(const struct targets *t)
{
	return t->child;
}

int targets__go(struct targets *t)
{
	char go = 1;
	ssize_t n;
	int e = 0;

	if (!t->child)
		return 0;
	if (write(t->go_fd, &go, 1) != 1)
		e = errno;
	close(t->go_fd);
	t->go_fd = -1;
	if (!e) {
		do
			n = read(t->exec_fd, &e, sizeof(e)); /* EOF: exec succeeded */
		while (n < 0 && errno == EINTR);
		if (n != sizeof(e))
			e = 0;
	}
	close(t->exec_fd);
	t->exec_fd = -1;
	if (!e)
		return 0;
	err("cannot run %s: %s (check the command name and PATH)", t->command[0], errstr(e));
	return -1;
}

static bool reap(struct targets *t, int flags)
{
	pid_t r;

	if (t->reaped)
		return true;
	do
		r = waitpid(t->child, &t->status, flags);
	while (r < 0 && errno == EINTR);
	if (r == t->child || (r < 0 && errno == ECHILD))
		t->reaped = true;
	return t->reaped;
}

bool targets__main_binary(const struct targets *t, char *path, size_t len, char *build_id,
			  size_t id_len)
{
	pid_t pid = t->child ? t->child : t->nr == 1 ? (pid_t)t->procs[0].pid : 0;
	unsigned char id[40];
	char link[64];
	struct elf_file *ef;
	size_t n = 0;
	ssize_t r;
	int fd;

	if (!pid || !len || !id_len)
		return false;
	snprintf(link, sizeof(link), "/proc/%d/exe", pid);
	r = readlink(link, path, len - 1);
	if (r <= 0)
		return false;
	path[r] = '\0';
	build_id[0] = '\0';
	/* the file the process runs, whatever its name says now */
	fd = open(link, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	ef = fd >= 0 ? elf_file__open_fd(fd) : NULL;
	if (ef)
		n = elf_file__build_id(ef, id, sizeof(id));
	for (size_t i = 0; i < n && 2 * i + 2 < id_len; i++)
		snprintf(build_id + 2 * i, 3, "%02x", id[i]);
	elf_file__close(ef);
	if (fd >= 0)
		close(fd);
	return true;
}

bool targets__gone(struct targets *t)
{
	if (t->child)
		return reap(t, WNOHANG);
	for (size_t i = 0; i < t->nr; i++)
		if (proc_alive(&t->procs[i]))
			return false;
	return t->nr > 0;
}

int targets__finish(struct targets *t, int sig)
{
	if (!t || !t->child)
		return -1;
	if (!reap(t, WNOHANG)) {
		kill(t->child, sig ? sig : SIGTERM);
		for (int i = 0; i < 100 && !reap(t, WNOHANG); i++)
			nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
	}
	if (!t->reaped) {
		warn("%s (PID %d) did not exit on SIG%s: left running (kill it yourself)",
		     t->command[0], t->child, sigabbrev_np(sig ? sig : SIGTERM));
		return 128 + (sig ? sig : SIGTERM);
	}
	if (WIFSIGNALED(t->status))
		return 128 + WTERMSIG(t->status);
	return WIFEXITED(t->status) ? WEXITSTATUS(t->status) : 1;
}

void targets__free(struct targets *t)
{
	bool held;

	if (!t)
		return;
	held = t->go_fd >= 0;
	if (held)
		close(t->go_fd); /* a held command exits without running */
	if (t->exec_fd >= 0)
		close(t->exec_fd);
	if (t->child && !t->reaped)
		reap(t, held ? 0 : WNOHANG);
	free(t->procs);
	free(t);
}
