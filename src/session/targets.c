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
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "files/elf_syms.h"
#include "lib/log.h"
#include "session/targets.h"

struct watched {
	uint32_t pid;
	unsigned long long start; /* /proc/PID/stat's starttime, 0 if unread */
};

struct targets {
	struct watched *procs;
	size_t nr;
	char *const *command;
	bool out_to_err; /* the command's stdout is our stderr */
	pid_t child;   /* the command, 0 without one or once reaped */
	int go_fd;     /* write end: a byte lets the command exec */
	int exec_fd;   /* read end: the child's errno if exec failed */
	int pidfd;     /* the command's pidfd (targets__wake_fd), or -1 */
	int status;    /* the command's wait status, once reaped */
	bool reaped;
	bool status_lost; /* reaped by someone else: how it ended is unknown */
	bool stopped;     /* in a group stop (SIGSTOP, SIGTSTP...) */
	bool stop_said;   /* its first stop is said; later ones with -v */
	bool let_go;      /* it made us its tracer once, and was let go */
};

/*
 * A process's state letter and start time from /proc/PID/stat; false when
 * it is gone.  The fields after the name, which may hold ") ", are counted
 * from the last ')'.
 */
/* The start of a /proc file, NUL-terminated in buf; false if unreadable. */
static bool read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

static bool proc_stat(uint32_t pid, char *state, unsigned long long *start)
{
	char path[64], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	if (!read_small(path, buf, sizeof(buf)))
		return false;
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
static void __attribute__((noreturn)) run_child(char *const *command, bool out_to_err,
						 int go_fd, int exec_fd,
						 const struct sigaction *chld)
{
	sigset_t none;
	char go;
	int e;

	/* a closed stderr: the output goes nowhere rather than into the profile */
	if (out_to_err && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		e = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (e < 0 || dup2(e, STDOUT_FILENO) < 0)
			_exit(127);
	}

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	sigaction(SIGCHLD, chld, NULL); /* as it was given to smolder */
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
	struct sigaction chld;
	int go[2], ex[2];

	/* ignored SIGCHLD (inherited through exec) would reap the command for
	 * us, its status lost: the default keeps it until waited for */
	sigaction(SIGCHLD, &(struct sigaction){ .sa_handler = SIG_DFL }, &chld);
	if (pipe2(go, O_CLOEXEC) || pipe2(ex, O_CLOEXEC)) {
		err("cannot start %s: %s (raise the open file limit)", t->command[0], log__errstr(errno));
		return -1;
	}
	fflush(NULL);
	t->child = fork();
	if (t->child < 0) {
		err("cannot start %s: %s (check the process limit)", t->command[0], log__errstr(errno));
		t->child = 0;
		return -1;
	}
	if (!t->child) {
		close(go[1]);
		close(ex[0]);
		run_child(t->command, t->out_to_err, go[0], ex[1], &chld);
	}
	close(go[0]);
	close(ex[1]);
	t->go_fd = go[1];
	t->exec_fd = ex[0];
	return 0;
}

struct targets *targets__new(const uint32_t *tgids, size_t nr, char *const *command,
			     bool out_to_err)
{
	struct targets *t = calloc(1, sizeof(*t));
	char state;

	if (!t || (nr && !(t->procs = calloc(nr, sizeof(*t->procs))))) {
		free(t);
		err("out of memory");
		return NULL;
	}
	t->go_fd = t->exec_fd = t->pidfd = -1;
	t->nr = nr;
	for (size_t i = 0; i < nr; i++) {
		t->procs[i].pid = tgids[i];
		if (!proc_stat(tgids[i], &state, &t->procs[i].start))
			t->procs[i].start = 0;
	}
	t->command = command;
	t->out_to_err = out_to_err;
	if (command && fork_command(t)) {
		targets__free(t);
		return NULL;
	}
	return t;
}

int targets__wake_fd(struct targets *t)
{
	if (t->pidfd < 0 && t->child && !t->reaped)
		t->pidfd = syscall(SYS_pidfd_open, t->child, 0);
	return t->pidfd;
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
	err("cannot run %s: %s (check the command name and PATH)", t->command[0], log__errstr(e));
	return -1;
}

/* "SIGUSR1", or "signal 40" for one without an abbreviation (real-time). */
static const char *signame(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

/*
 * Whether a SIGTRAP stop of pid is the one execve sends a task traced
 * without PTRACE_O_TRACEEXEC: sent by the task to itself (SI_USER, its own
 * PID) while its system call is still execve's.  A kill(getpid(), SIGTRAP)
 * of the program's own is from inside kill, and is passed on.
 */
static bool exec_trap(pid_t pid, const siginfo_t *si)
{
	char path[64], buf[64];
	long nr;

	if (si->si_signo != SIGTRAP || si->si_code != SI_USER || si->si_pid != pid)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	if (!read_small(path, buf, sizeof(buf)))
		return false;
	return sscanf(buf, "%ld", &nr) == 1 && (nr == SYS_execve || nr == SYS_execveat);
}

/*
 * A task of ours in a ptrace stop: one of the command's threads made
 * smolder its tracer (PTRACE_TRACEME).  smolder is no debugger: it lets the
 * task go at once, handing on the signal the stop holds back (none for
 * execve's trap), so that the command runs as untraced and its signals,
 * stops and exit reach it and us as usual.  A task stopped by a group stop
 * goes back to that stop, untraced.  False when pid is in no ptrace stop
 * of ours (an ordinary stop).
 */
static bool let_go(struct targets *t, pid_t pid)
{
	char name[32];
	siginfo_t si;
	int sig = 0;

	if (ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) == 0) {
		if (!exec_trap(pid, &si))
			sig = si.si_signo;
	} else if (errno != EINVAL) {
		return false; /* EINVAL: a group stop, traced; ESRCH: not traced */
	}
	if (!t->let_go)
		info("PID %d (of %s) made smolder its tracer (PTRACE_TRACEME): let go, %s passed on",
		     pid, t->command[0], sig ? signame(sig, name, sizeof(name)) : "no signal");
	t->let_go = true;
	if (ptrace(PTRACE_DETACH, pid, NULL, (void *)(long)sig))
		debug("cannot let PID %d go: %s", pid, log__errstr(errno));
	return true;
}

/* What waitpid said of pid, one of our tasks. */
static void on_status(struct targets *t, pid_t pid, int status)
{
	char name[32];

	if (WIFSTOPPED(status)) {
		if (let_go(t, pid) || pid != t->child)
			return;
		t->stopped = true;
		if (t->stop_said)
			info("%s (PID %d) stopped by %s", t->command[0], pid,
			     signame(WSTOPSIG(status), name, sizeof(name)));
		else
			warn("%s (PID %d) stopped by %s: the capture waits for it to exit (kill -CONT %d resumes it)",
			     t->command[0], pid, signame(WSTOPSIG(status), name, sizeof(name)), pid);
		t->stop_said = true;
	} else if (WIFCONTINUED(status)) {
		t->stopped = false;
	} else if (pid == t->child) {
		/* exited or killed; a traced thread's own end is nothing to us */
		t->status = status;
		t->reaped = true;
	}
}

/*
 * Takes every status our tasks have to report, waiting for the command's
 * end when block is set; true once it has ended.  Only its exit or a
 * signal that killed it ends it: a stop is said, a ptrace stop let go.
 * Other tasks report to us too: the command's threads that called
 * PTRACE_TRACEME (their stops, and their exits, which must be reaped before
 * the command's own can be), and children we inherited through exec.
 */
static bool reap(struct targets *t, bool block)
{
	int status;
	pid_t r;

	while (!t->reaped) {
		r = waitpid(-1, &status, __WALL | WUNTRACED | WCONTINUED | (block ? 0 : WNOHANG));
		if (r > 0) {
			on_status(t, r, status);
		} else if (r < 0 && errno == ECHILD) {
			/* gone, its status taken by someone else: never ours to see */
			t->status_lost = t->reaped = true;
		} else if (!r || errno != EINTR) {
			break;
		}
	}
	return t->reaped;
}

bool targets__main_binary(const struct targets *t, char *path, size_t len, char *build_id,
			  size_t id_len)
{
	pid_t pid = t->child ? t->child : t->nr == 1 ? (pid_t)t->procs[0].pid : 0;
	unsigned char id[40];
	char link[64];
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
	if (fd >= 0) {
		n = elf_file__build_id_of(fd, id, sizeof(id));
		close(fd);
	}
	for (size_t i = 0; i < n && i < sizeof(id) && 2 * i + 2 < id_len; i++)
		snprintf(build_id + 2 * i, 3, "%02x", id[i]);
	return true;
}

bool targets__gone(struct targets *t)
{
	if (t->child)
		return reap(t, false);
	for (size_t i = 0; i < t->nr; i++)
		if (proc_alive(&t->procs[i]))
			return false;
	return t->nr > 0;
}

/* A stopped command acts on the signal it was sent only once continued. */
static void resume_if_stopped(struct targets *t)
{
	if (t->stopped)
		kill(t->child, SIGCONT);
}

int targets__finish(struct targets *t, int sig)
{
	if (!t || !t->child)
		return -1;
	if (!reap(t, false)) {
		kill(t->child, sig ? sig : SIGTERM);
		resume_if_stopped(t);
		for (int i = 0; i < 100 && !reap(t, false); i++) {
			resume_if_stopped(t); /* it may have stopped since */
			nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
		}
	}
	if (!t->reaped) {
		warn("%s (PID %d) did not exit on SIG%s: left running (kill it yourself)",
		     t->command[0], t->child, sigabbrev_np(sig ? sig : SIGTERM));
		return 128 + (sig ? sig : SIGTERM);
	}
	if (t->status_lost) {
		warn("%s (PID %d) exited, but its status was taken elsewhere: exit code 1",
		     t->command[0], t->child);
		return 1;
	}
	if (WIFSIGNALED(t->status))
		return 128 + WTERMSIG(t->status);
	return WEXITSTATUS(t->status);
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
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->child && !t->reaped)
		reap(t, held);
	free(t->procs);
	free(t);
}
