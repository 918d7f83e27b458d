// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Context frame names: the documented thread grouping rule, interrupt and
 * queuer names, and idle paths from the kernel's own function names
 * (including forced idle, which this machine cannot produce: it has no
 * idle injection driver).
 */
#include "unit.h"
#include "fold/ctxframes.h"

static const char *grouped(const char *comm)
{
	static char buf[64];

	return ctxframes__group_thread(comm, buf, sizeof(buf)) ? buf : "(kept)";
}

TEST(group_per_cpu_and_pool_threads)
{
	CHECK_STR(grouped("kworker/u16:3"), "kworker");
	CHECK_STR(grouped("kworker/2:1H"), "kworker");
	CHECK_STR(grouped("kworker/R-kblockd"), "kworker");
	CHECK_STR(grouped("ksoftirqd/0"), "ksoftirqd");
	CHECK_STR(grouped("idle_inject/1"), "idle_inject");
	CHECK_STR(grouped("migration/3"), "migration");
	CHECK_STR(grouped("cpuhp/12"), "cpuhp");
	CHECK_STR(grouped("swapper/0"), "swapper");
	CHECK_STR(grouped("irq/24-nvme0q1"), "irq/nvme0q1");
}

TEST(group_keeps_other_names)
{
	CHECK_STR(grouped("jbd2/vda1-8"), "(kept)");
	CHECK_STR(grouped("kswapd0"), "(kept)");
	CHECK_STR(grouped("rcu_preempt"), "(kept)");
	CHECK_STR(grouped("kworker/"), "(kept)");
	CHECK_STR(grouped("/0"), "(kept)");
	CHECK_STR(grouped("kworker/uX"), "(kept)");
	CHECK_STR(grouped("irq/24-"), "(kept)");
}

static const char *irq_name(uint32_t ctx, bool loop)
{
	static char buf[64];

	return ctxframes__irq(ctx, loop, buf, sizeof(buf)) ? buf : "(none)";
}

TEST(irq_names)
{
	CHECK_STR(irq_name(CTX_TASK, false), "(none)");
	CHECK_STR(irq_name(CTX_HARDIRQ, true), "[irq]");
	CHECK_STR(irq_name(CTX_IRQ_STACK, false), "[irq]");
	CHECK_STR(irq_name(CTX_IRQ_STACK, true), "[softirq]");
	CHECK_STR(irq_name(CTX_SOFTIRQ + 3, false), "[softirq:NET_RX]");
	CHECK_STR(irq_name(CTX_SOFTIRQ + 1, false), "[softirq:TIMER]");
	CHECK_STR(irq_name(CTX_SOFTIRQ + 9, false), "[softirq:RCU]");
	CHECK_STR(irq_name(CTX_SOFTIRQ + 12, false), "[softirq:12]");
	CHECK(ctxframes__is_softirq_loop("handle_softirqs"));
	CHECK(ctxframes__is_softirq_loop("__do_softirq"));
	CHECK(!ctxframes__is_softirq_loop("do_softirq"));
}

TEST(queuer_names)
{
	struct work_desc d = { .queued_from = QUEUED_BY_TASK, .queuer_tgid = 1234 };
	char buf[64];

	memcpy(d.queuer_comm, "dd", 3);
	ctxframes__queuer(&d, true, buf, sizeof(buf));
	CHECK_STR(buf, "queued-by:dd-1234");
	memcpy(d.queuer_comm, "kworker/u16:3", 14);
	ctxframes__queuer(&d, true, buf, sizeof(buf));
	CHECK_STR(buf, "queued-by:kworker/u16:3-1234"); /* a task: never grouped */
	d.queued_from = QUEUED_BY_KTHREAD;
	ctxframes__queuer(&d, true, buf, sizeof(buf));
	CHECK_STR(buf, "queued-by:kworker");
	ctxframes__queuer(&d, false, buf, sizeof(buf));
	CHECK_STR(buf, "queued-by:kworker/u16:3-1234");
	memcpy(d.queuer_comm, "a;b\nc", 6);
	ctxframes__queuer(&d, false, buf, sizeof(buf));
	CHECK_STR(buf, "queued-by:a:b?c-1234");
	d.queued_from = CTX_SOFTIRQ + 4;
	ctxframes__queuer(&d, true, buf, sizeof(buf));
	CHECK_STR(buf, "queued-by:[softirq:BLOCK]");
	d.queued_from = CTX_HARDIRQ;
	ctxframes__queuer(&d, true, buf, sizeof(buf));
	CHECK_STR(buf, "queued-by:[irq]");
	d.queued_from = QUEUED_UNKNOWN;
	ctxframes__queuer(&d, true, buf, sizeof(buf));
	CHECK_STR(buf, "queued-by:[unknown]");
}

TEST(idle_paths_from_function_names)
{
	CHECK(ctxframes__idle_path_of("pv_native_safe_halt") == IDLE_PATH_HALT);
	CHECK(ctxframes__idle_path_of("default_idle") == IDLE_PATH_HALT);
	CHECK(ctxframes__idle_path_of("cpu_do_idle") == IDLE_PATH_HALT);
	CHECK(ctxframes__idle_path_of("default_idle_call") == IDLE_PATH__MAX);
	CHECK(ctxframes__idle_path_of("mwait_idle_with_hints.constprop.0") == IDLE_PATH_MWAIT);
	CHECK(ctxframes__idle_path_of("intel_idle") == IDLE_PATH_MWAIT);
	CHECK(ctxframes__idle_path_of("intel_idle_irq") == IDLE_PATH_MWAIT);
	CHECK(ctxframes__idle_path_of("acpi_processor_ffh_cstate_enter") == IDLE_PATH_MWAIT);
	CHECK(ctxframes__idle_path_of("poll_idle") == IDLE_PATH_POLL);
	CHECK(ctxframes__idle_path_of("cpu_idle_poll.isra.0") == IDLE_PATH_POLL);
	CHECK(ctxframes__idle_path_of("cpu_idle_polling") == IDLE_PATH__MAX);
	CHECK(ctxframes__idle_path_of("play_idle_precise") == IDLE_PATH_INJECT);
	CHECK(ctxframes__idle_path_of("cpuidle_enter_state") == IDLE_PATH_CPUIDLE);
	CHECK(ctxframes__idle_path_of("do_idle") == IDLE_PATH__MAX);
	CHECK_STR(ctxframes__idle_path_name(IDLE_PATH_INJECT), "inject");
	CHECK_STR(ctxframes__idle_path_name(IDLE_PATH__MAX), "other");
}

int main(void)
{
	RUN(group_per_cpu_and_pool_threads);
	RUN(group_keeps_other_names);
	RUN(irq_names);
	RUN(queuer_names);
	RUN(idle_paths_from_function_names);
	UNIT_EXIT();
}
