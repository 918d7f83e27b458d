// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Context frame names and kernel thread grouping (see ctxframes.h).  The
 * softirq names are the kernel's own (softirq_to_name, as in
 * /proc/softirqs); the idle functions are those of x86_64 and arm64 idle
 * paths since 5.x.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "fold/ctxframes.h"
#include "profile/frame_name.h"

static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU",
};

/* A per-CPU or per-pool suffix: "0", "u16:3", "2:1H", "R-kblockd". */
static bool numbered_suffix(const char *s)
{
	if (s[0] == 'R' && s[1] == '-')
		return true;
	return isdigit((unsigned char)s[s[0] == 'u']);
}

bool ctxframes__group_thread(const char *comm, char *buf, size_t len)
{
	const char *slash = strchr(comm, '/'), *dash;

	if (!slash || slash == comm || !numbered_suffix(slash + 1))
		return false;
	if (slash - comm == 3 && !strncmp(comm, "irq", 3)) {
		/* irq/24-nvme0q1: one thread per interrupt line; keep the device */
		dash = strchr(slash, '-');
		if (!dash || !dash[1])
			return false;
		snprintf(buf, len, "irq/%s", dash + 1);
		return true;
	}
	snprintf(buf, len, "%.*s", (int)(slash - comm), comm);
	return true;
}

bool ctxframes__is_softirq_loop(const char *func)
{
	return !strcmp(func, "handle_softirqs") || !strcmp(func, "__do_softirq");
}

bool ctxframes__is_timer_wakeup(const char *func)
{
	return !strcmp(func, "hrtimer_wakeup") || !strcmp(func, "process_timeout");
}

bool ctxframes__irq(uint32_t ctx, bool in_softirq_loop, char *buf, size_t len)
{
	uint32_t vec = ctx - CTX_SOFTIRQ;

	if (ctx == CTX_TASK)
		return false;
	if (ctx == CTX_HARDIRQ || (ctx == CTX_IRQ_STACK && !in_softirq_loop))
		snprintf(buf, len, "[irq]");
	else if (ctx == CTX_IRQ_STACK)
		snprintf(buf, len, "[softirq]");
	else if (ctx >= CTX_SOFTIRQ && vec < sizeof(softirq_names) / sizeof(*softirq_names))
		snprintf(buf, len, "[softirq:%s]", softirq_names[vec]);
	else if (ctx >= CTX_SOFTIRQ && ctx < CTX_SOFTIRQ_END)
		snprintf(buf, len, "[softirq:%u]", vec);
	else
		snprintf(buf, len, "[irq:%u]", ctx); /* from a newer BPF object: say so */
	return true;
}

void ctxframes__queuer(const struct work_desc *d, bool group, char *buf, size_t len)
{
	char comm[SMOLDER_COMM_LEN + 1], grouped[SMOLDER_COMM_LEN + 1], ctx[32];

	if (d->queued_from == QUEUED_BY_TASK || d->queued_from == QUEUED_BY_KTHREAD) {
		memcpy(comm, d->queuer_comm, SMOLDER_COMM_LEN);
		comm[SMOLDER_COMM_LEN] = 0;
		frame_name__sanitize(comm);
		if (group && d->queued_from == QUEUED_BY_KTHREAD &&
		    ctxframes__group_thread(comm, grouped, sizeof(grouped)))
			snprintf(buf, len, "queued-by:%s", grouped);
		else
			snprintf(buf, len, "queued-by:%s-%u", comm, d->queuer_tgid);
	} else if (d->queued_from != QUEUED_UNKNOWN &&
		   ctxframes__irq(d->queued_from, false, ctx, sizeof(ctx))) {
		snprintf(buf, len, "queued-by:%s", ctx);
	} else {
		snprintf(buf, len, "queued-by:[unknown]");
	}
}

struct idle_func {
	const char *name;
	bool prefix; /* also names with a suffix: cpu_idle_poll.isra.0, intel_idle_irq */
	enum idle_path path;
};

static const struct idle_func idle_funcs[] = {
	{ "play_idle_precise", false, IDLE_PATH_INJECT },
	{ "poll_idle", true, IDLE_PATH_POLL },
	{ "cpu_idle_poll", true, IDLE_PATH_POLL },
	{ "mwait_idle", true, IDLE_PATH_MWAIT },
	{ "intel_idle", true, IDLE_PATH_MWAIT },
	{ "acpi_processor_ffh_cstate_enter", false, IDLE_PATH_MWAIT },
	{ "native_safe_halt", false, IDLE_PATH_HALT },
	{ "pv_native_safe_halt", false, IDLE_PATH_HALT },
	{ "acpi_safe_halt", false, IDLE_PATH_HALT },
	{ "xen_safe_halt", false, IDLE_PATH_HALT },
	{ "native_halt", false, IDLE_PATH_HALT },
	{ "default_idle", false, IDLE_PATH_HALT },
	{ "default_enter_idle", false, IDLE_PATH_HALT }, /* cpuidle-haltpoll's halt state */
	{ "arch_cpu_idle", false, IDLE_PATH_HALT },
	{ "cpu_do_idle", false, IDLE_PATH_HALT }, /* arm64: wfi */
	{ "cpuidle_enter_state", false, IDLE_PATH_CPUIDLE },
};

enum idle_path ctxframes__idle_path_of(const char *func)
{
	for (size_t i = 0; i < sizeof(idle_funcs) / sizeof(*idle_funcs); i++) {
		const struct idle_func *f = &idle_funcs[i];
		size_t n = strlen(f->name);

		if (!strncmp(func, f->name, n) && (!func[n] || (f->prefix && !isalnum((unsigned char)func[n]))))
			return f->path;
	}
	return IDLE_PATH__MAX;
}

const char *ctxframes__idle_path_name(enum idle_path p)
{
	static const char *const names[IDLE_PATH__MAX] = {
		[IDLE_PATH_HALT] = "halt",       [IDLE_PATH_MWAIT] = "mwait",
		[IDLE_PATH_POLL] = "poll",       [IDLE_PATH_CPUIDLE] = "cpuidle",
		[IDLE_PATH_INJECT] = "inject",   [IDLE_PATH_OTHER] = "other",
	};

	return p < IDLE_PATH__MAX ? names[p] : "other";
}
