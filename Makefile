# smolder: an eBPF CPU profiler.  `make` builds ./smolder; see README.md.
ARCH ?= $(shell uname -m | sed -e 's/aarch64/arm64/')
BPF_ARCH := $(subst x86_64,x86,$(ARCH))
OUT := build
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= $(shell command -v bpftool || echo /usr/sbin/bpftool)
CC ?= gcc
VERSION := 0.1.0

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -I$(OUT) -Iinclude -Isrc \
	-DSMOLDER_VERSION='"$(VERSION)"' -D_GNU_SOURCE
# libbpf, libelf and zlib go in statically so the binary runs on hosts
# without them: `ldd ./smolder` lists only the C library.
STATIC_LIBS := -Wl,-Bstatic -lbpf -lelf -lz -Wl,-Bdynamic
LDLIBS := $(STATIC_LIBS)

BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
	-Iinclude -Ivmlinux/$(ARCH)

SRCS := $(wildcard src/*.c)
OBJS := $(patsubst src/%.c,$(OUT)/obj/%.o,$(SRCS))
LIB_OBJS := $(filter-out $(OUT)/obj/main.o,$(OBJS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))
WORKLOAD_SRCS := $(wildcard tests/workloads/*.c)
WORKLOADS := $(patsubst tests/workloads/%.c,$(OUT)/workloads/%,$(WORKLOAD_SRCS))

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.PHONY: all clean deps test demo bench unit workloads test-kernels
all: smolder

$(OUT)/smolder.bpf.o: bpf/smolder.bpf.c include/smolder.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUT)/smolder.skel.h: $(OUT)/smolder.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name smolder_bpf > $@.tmp && mv $@.tmp $@

$(OUT)/obj/%.o: src/%.c $(wildcard src/*.h) include/smolder.h $(OUT)/smolder.skel.h | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUT)/libsmolder.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

smolder: $(OUT)/obj/main.o $(OUT)/libsmolder.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $^ $(LDLIBS) -o $@

$(OUT):
	$(Q)mkdir -p $(OUT)/obj $(OUT)/tests $(OUT)/workloads

# Unit tests link the modules, not main.
$(OUT)/tests/%: tests/unit/%.c tests/unit/unit.h $(OUT)/libsmolder.a
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/unit $< $(OUT)/libsmolder.a $(LDLIBS) -o $@

# Workloads keep frame pointers and stay unoptimised enough that every named
# function is a real frame: the tests compare against their known CPU split.
WORKLOAD_CFLAGS := -O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -pthread
$(OUT)/workloads/%: tests/workloads/%.c | $(OUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) $< -o $@ -ldl

unit: $(UNIT_BINS)
workloads: $(WORKLOADS)

deps:
	$(Q)scripts/deps.sh

test: deps
	$(Q)$(MAKE) --no-print-directory smolder unit workloads
	$(Q)tests/run.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory smolder
	./smolder -f -o smolder.folded 5
	@echo "top stacks (count, stack) from smolder.folded:"
	@awk '{ print $$NF "\t" $$0 }' smolder.folded | sort -rn | head -n 15 | cut -f2- | \
		awk '{ n = $$NF; sub(/ [^ ]*$$/, ""); printf "%8d  %s\n", n, $$0 }'

bench: deps
	$(Q)$(MAKE) --no-print-directory smolder workloads
	$(Q)scripts/bench.sh

# Boots Debian's 6.1 and 6.12 kernels under qemu and profiles there.
test-kernels: deps
	$(Q)$(MAKE) --no-print-directory smolder workloads
	$(Q)scripts/test-kernels.sh

clean:
	rm -rf $(OUT) smolder smolder.folded
