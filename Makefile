# smolder: an eBPF CPU profiler.  `make` builds ./smolder; see README.md.
HOST_ARCH := $(shell uname -m | sed -e 's/aarch64/arm64/')
ARCH ?= $(HOST_ARCH)
override ARCH := $(patsubst amd64,x86_64,$(patsubst aarch64,arm64,$(ARCH)))
ifeq ($(wildcard vmlinux/$(ARCH)/vmlinux.h),)
$(error no vmlinux/$(ARCH)/vmlinux.h: ARCH is x86_64 or arm64)
endif
BPF_ARCH := $(subst x86_64,x86,$(ARCH))
# Another architecture builds apart: build/ARCH (OUT=DIR on the command line
# puts it elsewhere).
ifeq ($(ARCH),$(HOST_ARCH))
OUT := build
BIN := smolder
else
OUT := build/$(ARCH)
endif
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= $(shell command -v bpftool || echo /usr/sbin/bpftool)
CC ?= gcc
OBJCOPY ?= objcopy
# Another architecture's binary, smolder-ARCH, is built by ARCH's gcc and
# binutils (Debian's gcc-aarch64-linux-gnu) against ARCH's static libraries
# (Debian's multiarch -dev:arm64 packages: scripts/deps.sh arm64), linked
# wholly static so it runs on any arm64 host, whatever its C library; its
# workloads are built the same way, clang's for --target=ARCH.  It runs
# here only under qemu's user emulation (qemu-user-static), which writes
# its man page.
TRIPLE_arm64 := aarch64-linux-gnu
TRIPLE_x86_64 := x86_64-linux-gnu
QEMU_ARCH_arm64 := aarch64
QEMU_ARCH_x86_64 := x86_64
ifneq ($(ARCH),$(HOST_ARCH))
BIN := smolder-$(ARCH)
CROSS_COMPILE ?= $(TRIPLE_$(ARCH))-
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
OBJCOPY := $(CROSS_COMPILE)objcopy
CLANG_TARGET := --target=$(TRIPLE_$(ARCH))
RUN_BIN := qemu-$(QEMU_ARCH_$(ARCH))-static ./$(BIN)
else
RUN_BIN := ./$(BIN)
endif
VERSION := 0.1.0

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -I$(OUT) -Iinclude -Isrc \
	-DSMOLDER_VERSION='"$(VERSION)"' -D_GNU_SOURCE
# libbpf, elfutils' libdw (DWARF: inline frames and lines) and libelf,
# zlib, liblzma, bzip2 and zstd (the compressions libdw reads), libiberty
# (the demangler) and libevent's core and evhttp (--serve) go in statically
# so the binary runs on hosts without them: `ldd ./smolder` lists only the
# C library.
LIBS := -lbpf -ldw -lelf -lz -llzma -lbz2 -lzstd -liberty -levent_extra -levent_core
STATIC_LIBS := -Wl,-Bstatic $(LIBS) -Wl,-Bdynamic -pthread
ifeq ($(ARCH),$(HOST_ARCH))
LDLIBS := $(STATIC_LIBS)
else
# Static glibc warns at the link that getaddrinfo would need the host's NSS
# libraries: --serve asks it for numeric addresses only, which need none.
# libevent-dev is not multiarch: scripts/deps.sh unpacks ARCH's in
# build/deps/ARCH.
CROSS_DEPS := build/deps/$(ARCH)
ALL_CFLAGS += -isystem $(CROSS_DEPS)/usr/include
LDLIBS := -static -L$(CROSS_DEPS)/usr/lib/$(TRIPLE_$(ARCH)) $(LIBS) -pthread
endif

BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
	-Iinclude -Ivmlinux/$(ARCH)

# src/ is one folder per stage (README: Layout); an object's header
# dependencies come from the compiler (-MMD -MP, in a .deps folder beside
# each target), so touching one header rebuilds only the objects that
# include it.  A stage may keep one level of subfolders (interp/python/).
SRCS := $(wildcard src/*/*.c src/*/*/*.c)
OBJS := $(patsubst src/%.c,$(OUT)/obj/%.o,$(SRCS))
LIB_OBJS := $(filter-out $(OUT)/obj/cmd/main.o,$(OBJS))
LIBBPF_A := $(shell $(CC) -print-file-name=libbpf.a)
LIBBPF_BTF_O := $(OUT)/obj/libbpf_btf.o
DEPFLAGS = -MMD -MP -MF $(@D)/.deps/$(@F).d
# Unit tests in tests/unit/ need neither root nor BPF (make check runs
# them); those in tests/unit/root/ load BPF or plant other users' files, and
# run in make test only.  They build to build/tests/ and build/tests/root/.
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))
ROOT_UNIT_SRCS := $(wildcard tests/unit/root/test_*.c)
ROOT_UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(ROOT_UNIT_SRCS))
WORKLOAD_SRCS := $(wildcard tests/workloads/*.c)
WORKLOADS := $(patsubst tests/workloads/%.c,$(OUT)/workloads/%,$(WORKLOAD_SRCS))

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.PHONY: all clean deps deps-build deps-check check check-build test demo bench bench-flamegraph bench-soak bench-serve bench-kcontext bench-unwind bench-unwind-cost bench-python bench-hostile bench-oneshot bench-offcpu bench-inline deps-bench unit workloads tools test-kernels fuzzers fuzz
# make ARCH=arm64 on x86_64 (or the reverse) builds smolder-arm64, its BPF
# object compiled against vmlinux/arm64/vmlinux.h with arm64's pt_regs.
all: $(BIN)

$(OUT)/smolder.bpf.o: bpf/smolder.bpf.c $(wildcard bpf/*.bpf.h) include/smolder.h include/unwind.h include/python.h | $(OUT)/.dirs
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUT)/smolder.skel.h: $(OUT)/smolder.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name smolder_bpf > $@.tmp && mv $@.tmp $@

# The generated headers come first (order-only): a first build has no
# dependency files yet; afterwards those name the objects that include them.
GEN_HEADERS := $(OUT)/smolder.skel.h $(OUT)/flamegraph_js.h
$(OUT)/obj/%.o: src/%.c | $(GEN_HEADERS) $(OUT)/.dirs
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)/.deps
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

# The loader walks a waiting task's user stack with the BPF walk itself,
# compiled for user space (src/unwind/task_walk.c, as tests/replay does).
$(OUT)/obj/unwind/task_walk.o: ALL_CFLAGS += -Ibpf

# The flame graph's script, embedded in every SVG: src/output/flamegraph.js as
# a C byte array (od and sed, since xxd may be missing on a fresh machine).
$(OUT)/flamegraph_js.h: src/output/flamegraph.js | $(OUT)/.dirs
	$(call msg,GEN,$@)
	$(Q){ echo 'static const unsigned char flamegraph_js[] = {'; \
		od -An -v -tx1 $< | sed -e 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; echo '};'; } >$@.tmp && mv $@.tmp $@

$(OUT)/libsmolder.a: $(LIB_OBJS) $(LIBBPF_BTF_O)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# libbpf's btf.o with its malloc, memcpy and free renamed to
# src/capture/vmlinux_btf.c's, which let it parse the kernel's BTF in
# place from a mapping instead of copying 5.5 MB (libbpf 1.1 always
# copies).  It goes into libsmolder.a, so it is linked before libbpf.a,
# whose own btf.o is then never pulled in.
$(LIBBPF_BTF_O): $(LIBBPF_A) | $(OUT)/.dirs
	$(call msg,OBJCOPY,$@)
	$(Q)ar p $< btf.o >$@.tmp && $(OBJCOPY) --redefine-sym malloc=vmlinux_btf__malloc \
		--redefine-sym memcpy=vmlinux_btf__memcpy --redefine-sym free=vmlinux_btf__free \
		$@.tmp $@ && rm -f $@.tmp

# libbpf's btf__load_vmlinux_btf, wrapped (src/capture/vmlinux_btf.c: the
# kernel's BTF parsed from a mapping, at half the peak RSS)
VMLINUX_BTF_WRAP := -Wl,--wrap=btf__load_vmlinux_btf -Wl,--undefined=__wrap_btf__load_vmlinux_btf

$(BIN): $(OUT)/obj/cmd/main.o $(OUT)/libsmolder.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(VMLINUX_BTF_WRAP) $(filter-out %.a,$^) $(OUT)/libsmolder.a $(LDLIBS) -o $@
ifneq ($(ARCH),$(HOST_ARCH))
$(BIN): $(CROSS_DEPS)/usr/lib/$(TRIPLE_$(ARCH))/libevent_core.a
$(CROSS_DEPS)/usr/lib/$(TRIPLE_$(ARCH))/libevent_core.a:
	@echo "smolder: no $(ARCH) libevent in $(CROSS_DEPS) (run as root: scripts/deps.sh $(ARCH))" >&2; exit 1
endif

# A stamp, not the directory: scripts/deps.sh may have made build/ already
# (for speedscope's schema) without the subdirectories.
$(OUT)/.dirs:
	$(Q)mkdir -p $(OUT)/obj $(OUT)/tests $(OUT)/workloads
	$(Q)touch $@

# Unit tests link the modules, not main (% may be root/test_NAME).
$(OUT)/tests/%: tests/unit/%.c $(OUT)/libsmolder.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)/.deps
	$(Q)$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Itests/unit $< $(OUT)/libsmolder.a $(LDLIBS) -o $@

# Workloads keep frame pointers and stay unoptimised enough that every named
# function is a real frame: the tests compare against their known CPU split.
WORKLOAD_CFLAGS := -O1 -g -fno-omit-frame-pointer -fno-inline -fno-optimize-sibling-calls -pthread
# arm64's gcc leaves a leaf function without a frame record even so: its
# caller, whose return address is only in the link register, would be lost
# to a frame-pointer walk (x86_64's call pushes it on the stack).
ifeq ($(ARCH),arm64)
WORKLOAD_CFLAGS += -mno-omit-leaf-frame-pointer
endif
$(OUT)/workloads/%: tests/workloads/%.c | $(OUT)/.dirs
	$(call msg,CC,$@)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) $< -o $@ -ldl

# inline_split is built as distributions build code, -O2 -g, by gcc and by
# clang (inline_split_clang): its known split runs through functions the
# compiler inlines, which only DWARF names (tests/cli/inline_frames.sh).
INLINE_WORKLOADS := $(OUT)/workloads/inline_split_clang
$(OUT)/workloads/inline_split: WORKLOAD_CFLAGS := -O2 -g
$(OUT)/workloads/inline_split_clang: tests/workloads/inline_split.c | $(OUT)/.dirs
	$(call msg,CC,$@)
	$(Q)$(CLANG) $(CLANG_TARGET) -O2 -g $< -o $@

# Frameless workloads (tests/workloads/frameless), built the way
# distributions build code, -O2 without frame pointers, by gcc and by clang:
# unwind_paths-gcc, unwind_paths-clang and the libraries they dlopen, for
# the DWARF unwinder and its tables.  unwind_paths-noasync (gcc) and
# unwind_paths-noasync-clang are built without asynchronous unwind tables,
# so their own code's CFI is only in .debug_frame, which goes to a separate
# debug file (unwind_paths-noasync.debug and -clang.debug, named by their
# .gnu_debuglink) as in a stripped distribution binary.
FRAMELESS_CFLAGS := -O2 -g -fomit-frame-pointer -pthread
FRAMELESS_CC_gcc := $(CC)
FRAMELESS_CC_clang := $(CLANG) $(CLANG_TARGET)
FRAMELESS := $(foreach c,gcc clang,$(OUT)/workloads/unwind_paths-$(c) \
	$(OUT)/workloads/unwind_dl-$(c).so) $(OUT)/workloads/unwind_paths-noasync \
	$(OUT)/workloads/unwind_paths-noasync-clang
$(OUT)/workloads/unwind_paths-gcc $(OUT)/workloads/unwind_paths-clang: \
		$(OUT)/workloads/unwind_paths-%: tests/workloads/frameless/unwind_paths.c | $(OUT)/.dirs
	$(call msg,CC,$@)
	$(Q)$(FRAMELESS_CC_$*) $(FRAMELESS_CFLAGS) -DWL_CC='"$*"' $< -o $@ -ldl

$(OUT)/workloads/unwind_dl-%.so: tests/workloads/frameless/unwind_dl.c | $(OUT)/.dirs
	$(call msg,CC,$@)
	$(Q)$(FRAMELESS_CC_$*) $(FRAMELESS_CFLAGS) -shared -fPIC $< -o $@

$(OUT)/workloads/unwind_paths-noasync: NOASYNC_CC := gcc
$(OUT)/workloads/unwind_paths-noasync-clang: NOASYNC_CC := clang
$(OUT)/workloads/unwind_paths-noasync $(OUT)/workloads/unwind_paths-noasync-clang: \
		tests/workloads/frameless/unwind_paths.c | $(OUT)/.dirs
	$(call msg,CC,$@)
	$(Q)$(FRAMELESS_CC_$(NOASYNC_CC)) $(FRAMELESS_CFLAGS) -fno-asynchronous-unwind-tables \
		-DWL_CC='"$(NOASYNC_CC)"' $< -o $@.full -ldl
	$(Q)$(OBJCOPY) --only-keep-debug $@.full $@.debug
	$(Q)$(OBJCOPY) --strip-debug --add-gnu-debuglink=$@.debug $@.full $@.tmp
	$(Q)rm -f $@.full && mv $@.tmp $@

# The frameless workloads again for arm64, cross-compiled on any host
# (gcc-aarch64-linux-gnu, and clang --target) into workloads/a64: the arm64
# unwind tables are checked against readelf there (test_unwind_table).  The
# -pac ones sign their return addresses (-mbranch-protection=standard: the
# CFI toggles DW_CFA_AARCH64_negate_ra_state, and BTI lands in the code).
A64_CC ?= aarch64-linux-gnu-gcc
A64_CC_gcc = $(A64_CC)
A64_CC_clang = $(CLANG) --target=aarch64-linux-gnu
FRAMELESS_A64 := $(foreach c,gcc clang,$(OUT)/workloads/a64/unwind_paths-$(c) \
	$(OUT)/workloads/a64/unwind_paths-$(c)-pac $(OUT)/workloads/a64/unwind_dl-$(c).so) \
	$(OUT)/workloads/a64/sigreturn.so $(OUT)/workloads/a64/vdso.so
$(OUT)/workloads/a64/unwind_paths-%: tests/workloads/frameless/unwind_paths.c | $(OUT)/.dirs
	$(call msg,CC-A64,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(A64_CC_$(firstword $(subst -, ,$*))) $(FRAMELESS_CFLAGS) \
		$(if $(findstring -pac,$*),-mbranch-protection=standard) \
		-DWL_CC='"$(firstword $(subst -, ,$*))"' $< -o $@ -ldl

# The kernel's sigreturn trampoline, as its vDSO has it.
$(OUT)/workloads/a64/sigreturn.so: tests/workloads/frameless/sigreturn_arm64.S | $(OUT)/.dirs
	$(call msg,CC-A64,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(A64_CC) -shared -nostdlib $< -o $@

# The vDSO of Debian's arm64 kernels: code without CFI.
$(OUT)/workloads/a64/vdso.so: tests/workloads/frameless/vdso_arm64.S | $(OUT)/.dirs
	$(call msg,CC-A64,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(A64_CC) -shared -nostdlib -Wl,--no-eh-frame-hdr $< -o $@

$(OUT)/workloads/a64/unwind_dl-%.so: tests/workloads/frameless/unwind_dl.c | $(OUT)/.dirs
	$(call msg,CC-A64,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(A64_CC_$*) $(FRAMELESS_CFLAGS) -shared -fPIC $< -o $@

# unwind_fallbacks-gcc and -clang: hand-written x86_64 leaves whose CFI the
# unwinder must fall back from (an unsupported rule, unreadable memory).
ifeq ($(ARCH),x86_64)
FRAMELESS += $(OUT)/workloads/unwind_fallbacks-gcc $(OUT)/workloads/unwind_fallbacks-clang
endif
$(OUT)/workloads/unwind_fallbacks-%: tests/workloads/frameless/unwind_fallbacks.c \
		tests/workloads/frameless/unwind_fallbacks_x86_64.S | $(OUT)/.dirs
	$(call msg,CC,$@)
	$(Q)$(FRAMELESS_CC_$*) $(FRAMELESS_CFLAGS) $^ -o $@

# Tools the tests run (tests/tools): btf_rename writes a kernel's BTF with
# one field renamed (a real verifier rejection), deny makes the kernel refuse
# BPF features to one process (a BPF LSM program).  Linked like smolder, so
# the kernel matrix's guests run them too.  many_syms writes an ELF file with
# millions of symbols (hostile input for the symbol reader), hostile_cfi one
# whose CFI makes an unwind-table build work hard (hostile input for it),
# hostile_dwarf a program with crafted DWARF (for the inline-frame reader).
# source_profile writes a profile with source-location frames through the
# real writers (tests/check/pprof_source.sh).
TOOLS := $(OUT)/tools/btf_rename $(OUT)/tools/deny $(OUT)/tools/unwind_dump $(OUT)/tools/many_syms \
	$(OUT)/tools/hostile_cfi $(OUT)/tools/hostile_dwarf $(OUT)/tools/py_layout \
	$(OUT)/tools/source_profile
$(OUT)/tools/deny.bpf.o: tests/tools/deny.bpf.c
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUT)/tools/deny.skel.h: $(OUT)/tools/deny.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name deny_bpf > $@.tmp && mv $@.tmp $@

$(OUT)/tools/deny: tests/tools/deny.c $(OUT)/tools/deny.skel.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -I$(OUT)/tools $< $(LDLIBS) -o $@

$(OUT)/tools/unwind_dump: tests/tools/unwind_dump.c $(OUT)/libsmolder.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(OUT)/libsmolder.a $(LDLIBS) -o $@

# py_layout X.Y prints smolder's CPython X.Y layout for tests/check/py_layout.sh,
# which compares it with what that version's headers say.
$(OUT)/tools/py_layout: tests/tools/py_layout.c $(OUT)/libsmolder.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(OUT)/libsmolder.a $(LDLIBS) -o $@

$(OUT)/tools/source_profile: tests/tools/source_profile.c $(OUT)/libsmolder.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(OUT)/libsmolder.a $(LDLIBS) -o $@

$(OUT)/tools/btf_rename: tests/tools/btf_rename.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< $(LDLIBS) -o $@

$(OUT)/tools/many_syms: tests/tools/many_syms.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< -o $@

$(OUT)/tools/hostile_cfi: tests/tools/hostile_cfi.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< -lz -o $@

$(OUT)/tools/hostile_dwarf: tests/tools/hostile_dwarf.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) $< -lz -o $@

# libFuzzer targets, one per tests/fuzz/fuzz_*.c, built by clang with ASan
# and UBSan (any report is a crash) from the module sources themselves:
# build/libsmolder.a is gcc-built without sanitizers.  A module a target
# needs goes in FUZZ_MODULES.  Seed corpora are generated here, never
# committed.  `make fuzz` runs each target FUZZ_SECONDS and keeps what it
# finds in build/fuzz/corpus-NAME; tests/cli/fuzz_smoke.sh runs them briefly,
# tests/check/fuzz_seeds.sh (make check) on their seeds alone.
FUZZ_SECONDS ?= 60
FUZZ_CC ?= $(CLANG)
FUZZ_CFLAGS := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-g -O1 -std=gnu11 -D_GNU_SOURCE -Iinclude -Isrc -I$(OUT) \
	-DSMOLDER_VERSION='"$(VERSION)"'
FUZZ_MODULES := elf_file elf_syms debuginfo dwarf_names dwarf_scopes dwarf_sections dwarf_aranges dwarf_abbrevs dwarf_sparse dwarf_stream proc_maps perfmap perfmap_file safe_open budget \
	demangle log unwind_table unwind_cfi unwind_a64_code unwind_funcs func_ranges folded_read profile profile_addr strtab format folded svg flame \
	speedscope pprof pprof_addr pb utf8 clock grow py_code py_layout
FUZZ_OBJS := $(patsubst src/%.c,$(OUT)/fuzz/obj/%.o,\
	$(foreach m,$(FUZZ_MODULES),$(wildcard src/*/$(m).c src/*/*/$(m).c)))
# expat and json-c check that fuzz_outputs' SVG and JSON stay well-formed
FUZZ_LIBS := -ldw -lelf -lz -llzma -lbz2 -lzstd -liberty -lexpat -ljson-c
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(FUZZ_SRCS))
FUZZERS := $(addprefix $(OUT)/fuzz/,$(FUZZ_NAMES))
FUZZ_SEEDS := $(patsubst %,$(OUT)/fuzz/corpus-%/.seeded,$(FUZZ_NAMES))
# Kept: they are shared by every target, not intermediate files.
.SECONDARY: $(FUZZ_OBJS)

$(OUT)/fuzz/obj/%.o: src/%.c | $(GEN_HEADERS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)/.deps
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(OUT)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJS)
	$(call msg,FUZZ-LD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(FUZZ_OBJS) $(FUZZ_LIBS) -o $@

# Seeds: small real ELF files (objects and shared objects, with and without
# .symtab, with MiniDebugInfo or a debug link, 32-bit, big-endian and ARM
# ones from clang, /bin/true), real and odd maps text, perf maps, mangled
# names (some of the costly kind).
$(OUT)/fuzz/corpus-fuzz_elf/.seeded:
	$(Q)mkdir -p $(@D)
	$(Q)printf 'int f(void) { return 1; }\nint g(int x) { return x + f(); }\n' >$(@D)/seed.c
	$(Q)$(CC) -c -O1 $(@D)/seed.c -o $(@D)/rel.o
	$(Q)$(CC) -shared -fPIC -nostdlib -O1 $(@D)/seed.c -o $(@D)/dso.so
	$(Q)strip -o $(@D)/dso-stripped.so $(@D)/dso.so
	$(Q)-objcopy --only-keep-debug $(@D)/dso.so $(@D)/dbg && xz -f $(@D)/dbg && \
		objcopy --add-section .gnu_debugdata=$(@D)/dbg.xz $(@D)/dso-stripped.so $(@D)/dso-minidebuginfo.so
	$(Q)-objcopy --only-keep-debug $(@D)/dso.so $(@D)/dbg && \
		objcopy --add-gnu-debuglink=$(@D)/dbg $(@D)/dso-stripped.so $(@D)/dso-debuglink.so
	$(Q)rm -f $(@D)/dbg $(@D)/dbg.xz
	$(Q)-$(CLANG) --target=i386-linux-gnu -shared -fPIC -nostdlib -O1 $(@D)/seed.c -o $(@D)/dso32.so 2>/dev/null
	$(Q)-$(CLANG) --target=powerpc64-linux-gnu -c -O1 $(@D)/seed.c -o $(@D)/rel-be.o 2>/dev/null
	$(Q)-$(CLANG) --target=armv7a-linux-gnueabihf -mthumb -c -O1 $(@D)/seed.c -o $(@D)/rel-thumb.o 2>/dev/null
	$(Q)rm -f $(@D)/seed.c
	$(Q)cp /bin/true $(@D)/true
	$(Q)touch $@

# CFI: small libraries from both compilers, .debug_frame, CFI sections
# alone, ld.so's and libc's among them, and hostile shapes (see
# tests/fuzz/cfi_seeds.sh).
$(OUT)/fuzz/corpus-fuzz_cfi/.seeded: tests/fuzz/cfi_seeds.sh $(OUT)/tools/hostile_cfi \
		tests/workloads/frameless/sigreturn_arm64.S tests/workloads/frameless/vdso_arm64.S
	$(Q)CC=$(CC) CLANG=$(CLANG) HOSTILE_CFI=$(abspath $(OUT)/tools/hostile_cfi) \
		TRAMPOLINE=$(abspath tests/workloads/frameless/sigreturn_arm64.S) \
		tests/fuzz/cfi_seeds.sh $(@D)
	$(Q)touch $@

# DWARF: small libraries from both compilers, DWARF 4 and 5, compressed,
# and hostile_dwarf's shapes, small (see tests/fuzz/dwarf_seeds.sh).
$(OUT)/fuzz/corpus-fuzz_dwarf/.seeded: tests/fuzz/dwarf_seeds.sh $(OUT)/tools/hostile_dwarf
	$(Q)CC=$(CC) CLANG=$(CLANG) HOSTILE_DWARF=$(abspath $(OUT)/tools/hostile_dwarf) \
		tests/fuzz/dwarf_seeds.sh $(@D)
	$(Q)touch $@

$(OUT)/fuzz/corpus-fuzz_proc_maps/.seeded:
	$(Q)mkdir -p $(@D)
	$(Q)cat /proc/self/maps >$(@D)/self
	$(Q)printf '%s\n' '55d0c0a00000-55d0c0a02000 r-xp 00001000 fd:01 1234 /usr/bin/app (deleted)' \
		'7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0 [stack:42]' \
		'7f0000000000-7f0000001000 r--p 00000000 00:00 0 [anon:jit code]' \
		'7f0000001000-7f0000002000 r-xs 00000000 103:02 99 /dev/shm/a file' \
		'ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 [vsyscall]' >$(@D)/odd
	$(Q)touch $@

# CPython line tables: those of real functions, compiled by the Pythons
# there are (Debian's python3 everywhere; pyenv's when readable), each
# behind its version byte and first line.
$(OUT)/fuzz/corpus-fuzz_py_lines/.seeded: tests/fuzz/py_lines_seeds.py
	$(Q)mkdir -p $(@D)
	$(Q)for py in python3 /root/.pyenv/versions/3.*/bin/python3; do \
		[ -x "$$(command -v $$py)" ] && "$$py" tests/fuzz/py_lines_seeds.py $(@D) 2>/dev/null; \
	done; true
	$(Q)printf '\003\001\000\000\000\200\377\377\377\377\377' >$(@D)/varint-forever
	$(Q)touch $@

$(OUT)/fuzz/corpus-fuzz_perfmap/.seeded:
	$(Q)mkdir -p $(@D)
	$(Q)printf '%s\n' '7f0000001000 100 LazyCompile:*foo /app/x.js:1' \
		'0x7f0000001080 0x40 Builtin:Add' '7f0000001000 20 re-mapped' \
		'7f0000003000 0 empty' 'garbage' >$(@D)/v8
	$(Q)printf '1000 10 a\r\n2000\t10\tb c\r\n' >$(@D)/crlf
	$(Q)touch $@

# Two leading bytes: where the file is cut between its first read and the
# update, and the budget's bytes (0: none).
$(OUT)/fuzz/corpus-fuzz_perfmap_file/.seeded:
	$(Q)mkdir -p $(@D)
	$(Q){ printf '\200\000'; printf '%s\n' '7f0000001000 100 LazyCompile:*foo /app/x.js:1' \
		'0x7f0000001080 0x40 Builtin:Add' '7f0000001000 20 re-mapped' \
		'7f0000003000 0 empty' 'garbage'; } >$(@D)/v8
	$(Q){ printf '\100\003'; printf '%s\n' '1000 10 a' '2000 10 b' '1800 10 c' '3000 10 partial'; } >$(@D)/budget
	$(Q)printf '\377\000%s' '1000 10 a\r\n2000\t10\tb c\r\n3000 1 unterminated' >$(@D)/crlf
	$(Q)touch $@

$(OUT)/fuzz/corpus-fuzz_demangle/.seeded:
	$(Q)mkdir -p $(@D)
	$(Q)printf '%s' '_ZNSt6vectorIiSaIiEE9push_backERKi' >$(@D)/cxx
	$(Q)printf '%s' '_ZZN2ns5inner10use_lambdaEiENKUliE_clEi' >$(@D)/lambda
	$(Q)printf '%s' '_ZN2ns5inner5scaleIlLi3EEET_S2_' >$(@D)/template
	$(Q)printf '%s' '_ZN4core3ptr13drop_in_place17h0123456789abcdefE' >$(@D)/rust-legacy
	$(Q)printf '%s' '_RNvMNtCs1234_7mycrate3fooNtB2_3Bar3new' >$(@D)/rust-v0
	$(Q)printf '%s' '_RINvNtCs1234_7mycrate3foo3barmE' >$(@D)/rust-v0-generic
	$(Q)printf '%s' '_RINvC3foo3barFG0_RL0_lRL1_lEuE' >$(@D)/rust-v0-binder
	$(Q)printf '%s' '_RINvC3foo3barTllETBb_Bb_ETBf_Bf_ETBn_Bn_ETBv_Bv_EE' >$(@D)/rust-v0-backrefs
	$(Q)printf '%s' '_Z1fPFviEPFvS0_S0_EPFvS2_S2_EPFvS4_S4_EPFvS6_S6_E' >$(@D)/cxx-substitutions
	$(Q)touch $@

$(OUT)/fuzz/corpus-fuzz_folded/.seeded:
	$(Q)mkdir -p $(@D)
	$(Q)printf '%s\n' 'main;run_loop;burn_a;spin 700' 'app;a b  c;x 1' 'java;Foo::bar(int, char) const 2.5' \
		'worker 12 5' 'a;b 1000000000000000000' >$(@D)/one
	$(Q)printf 'a;b 3 5\r\na;c\t0.00001 0\n\n' >$(@D)/diff
	$(Q)touch $@

# fuzz_outputs: flags, TITLE NUL SUBTITLE NUL COUNTNAME NUL, folded text
$(OUT)/fuzz/corpus-fuzz_outputs/.seeded:
	$(Q)mkdir -p $(@D)
	$(Q)printf '\001Flame Graph\000sub\000samples\000main;a 3\nmain;b 1\n' >$(@D)/plain
	$(Q)printf '\042x</title><script>alert(1)</script>\000]]>&amp;\000x</title><script>\000a;<b> 1\n' >$(@D)/inject
	$(Q)printf '\377\303(\000\355\240\200\000\001\000a;\342\202 2 3\n' >$(@D)/utf8
	$(Q)touch $@

fuzzers: $(FUZZERS) $(FUZZ_SEEDS)

fuzz: fuzzers
	$(Q)for f in $(FUZZ_NAMES); do \
		echo "fuzz: $$f for $(FUZZ_SECONDS) s"; \
		$(OUT)/fuzz/$$f -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-rss_limit_mb=2048 -artifact_prefix=$(OUT)/fuzz/crash-$$f- \
			$(OUT)/fuzz/corpus-$$f || exit 1; \
	done

unit: $(UNIT_BINS) $(ROOT_UNIT_BINS)
workloads: $(WORKLOADS) $(FRAMELESS) $(FRAMELESS_A64) $(INLINE_WORKLOADS)
tools: $(TOOLS)

deps:
	$(Q)scripts/deps.sh test

deps-build:
	$(Q)scripts/deps.sh build

deps-bench:
	$(Q)scripts/deps.sh bench

deps-check:
	$(Q)scripts/deps.sh check

# Everything: both tiers, the kernel matrix (tests/run.sh says what).
test: deps
	$(Q)$(MAKE) --no-print-directory smolder unit workloads tools
	$(Q)tests/run.sh

# The fast tier: no root, no BPF, under a minute on two CPUs.  It runs the
# unit tests of tests/unit/ and the scripts of tests/check/, which need
# smolder, the frameless workloads and hostile_cfi (test_unwind_table's
# inputs), and the fuzzers with their seeds.
# >>> Hook: what else a fast test needs built is named as a prerequisite of
# check-build in a line of its own, as the unwinder replay does below; the
# test is a tests/check/*.sh script or a build/tests/test_* binary, which
# the tier runs by where it lives.
check: deps-check
	$(Q)$(MAKE) --no-print-directory check-build
	$(Q)tests/run.sh --check

check-build: smolder $(UNIT_BINS) $(FRAMELESS) $(OUT)/tools/hostile_cfi fuzzers
check-build: $(FRAMELESS_A64)
check-build: $(OUT)/tools/hostile_dwarf
check-build: $(OUT)/tools/py_layout
check-build: $(OUT)/tools/source_profile

# Only what building needs: the demo is not the test suite.
demo: deps-build
	$(Q)$(MAKE) --no-print-directory smolder $(OUT)/workloads/cpu_split
	$(Q)scripts/demo.sh

bench: deps-bench
	$(Q)$(MAKE) --no-print-directory smolder workloads
	$(Q)scripts/bench.sh
	$(Q)scripts/bench-flamegraph.sh
	$(Q)scripts/bench-unwind-cost.sh
	$(Q)scripts/bench-oneshot.sh
	$(Q)scripts/bench-offcpu.sh
	$(Q)scripts/bench-python.sh
	$(Q)scripts/bench-inline.sh

# smolder flamegraph against flamegraph.pl (FLAMEGRAPH_PL=path, or
# FLAMEGRAPH_DIR=a FlameGraph checkout; skipped without either), on 10,000
# and 100,000 generated folded lines.
bench-flamegraph:
	$(Q)$(MAKE) --no-print-directory smolder
	$(Q)scripts/bench-flamegraph.sh

# Unwind tables of big Debian binaries (libc, ld.so, libstdc++, libLLVM-14,
# python3.11): rows, kinds, bytes, build time and memory, readelf beside.
bench-unwind:
	$(Q)$(MAKE) --no-print-directory tools
	$(Q)scripts/bench-unwind.sh

# What --unwind dwarf costs: BPF ns per sample against --unwind fp and
# libbpf-tools profile (LIBBPF_TOOLS_PROFILE=path, or built in ../bcc), CPU time and bytes
# written against perf record --call-graph dwarf, tables of a C++ process.
bench-unwind-cost:
	$(Q)$(MAKE) --no-print-directory smolder workloads
	$(Q)scripts/bench-unwind-cost.sh

# What CPython frames cost (issue 23), each against --no-python: BPF ns per
# sample on a 20-deep Python recursion (CPython 3.12: PYTHON312=path, and
# python3.11), start-up with no Python process, CPU and RSS of naming 5,000
# code objects.
bench-python: deps-bench
	$(Q)$(MAKE) --no-print-directory smolder workloads
	$(Q)scripts/bench-python.sh

# What inline frames cost (issue 26): naming time and peak RSS of 10 s
# captures with inline frames against --no-inline, of inline_split and of a
# program linking a generated ~200k-line -g library (built here, not kept),
# and perf script --inline on perf record's data of the same workloads.
bench-inline: deps-bench
	$(Q)$(MAKE) --no-print-directory smolder workloads
	$(Q)scripts/bench-inline.sh

# A one-shot `smolder -f -q 1`: peak RSS, time outside the second and CPU
# time against libbpf-tools profile (LIBBPF_TOOLS_PROFILE=path, or built from
# bcc's source in ../bcc) and perf record + perf script; the time from exec
# to the first sample, and to a COMMAND's exec against perf record's; then
# what libbpf's BTF parse and /proc/kallsyms cost alone.
bench-oneshot:
	$(Q)$(MAKE) --no-print-directory smolder workloads
	$(Q)scripts/bench-oneshot.sh

# What off-CPU tracing costs a pipe ping-pong (build/workloads/pingpong):
# round trips/s alone, under libbpf-tools offcputime (whole machine, -p),
# smolder --off-cpu (whole machine, -p, --off-cpu-sample) and CPU-only,
# perf record --off-cpu; then the BPF ns per run of each tool's programs.
bench-offcpu: deps-bench
	$(Q)$(MAKE) --no-print-directory smolder workloads
	$(Q)scripts/bench-offcpu.sh

# Continuous mode for 30 minutes (SOAK_SECONDS) at 49 and 19 Hz on a
# machine starting thousands of short processes: RSS, fds, CPU, losses.
bench-soak:
	$(Q)$(MAKE) --no-print-directory smolder workloads
	$(Q)scripts/bench-soak.sh

# --serve scraped every 2 s for 10 minutes (SERVE_SECONDS): RSS growth,
# lost samples, failed scrapes and smolder's own CPU at 19 Hz.
bench-serve:
	$(Q)$(MAKE) --no-print-directory smolder workloads
	$(Q)scripts/bench-serve.sh

# What --irq-frames and --kworker cost a loopback TCP workload, against
# perf recording the same tracepoints.
bench-kcontext:
	$(Q)$(MAKE) --no-print-directory smolder workloads
	$(Q)scripts/bench-kcontext.sh

# What an unprivileged process can make a capture cost: huge perf maps and
# symbol tables, mapping churn (time, SIGTERM latency, peak RSS, the unit
# under its MemoryMax).  SMOLDER=path measures another build.
bench-hostile:
	$(Q)$(MAKE) --no-print-directory smolder workloads tools
	$(Q)scripts/bench-hostile.sh

# Boots Debian's 5.10, 6.1 and 6.12 kernels under qemu: captures, degraded
# features, lockdown and the failures production users meet.
test-kernels: deps
	$(Q)$(MAKE) --no-print-directory smolder workloads tools
	$(Q)scripts/test-kernels.sh

# ---- install, uninstall, man ----
# make install [PREFIX=/usr/local] [DESTDIR=DIR]: what a package holds, in
# DESTDIR (a staging directory, empty: the system) below PREFIX.
#   PREFIX/bin/smolder
#   PREFIX/share/man/man1/smolder.1         (make man: build/smolder.1)
#   UNITDIR/smolder.service                 its ExecStart names PREFIX/bin/smolder
#   SYSUSERSDIR/smolder.conf                the unit's user, for systemd-sysusers
# UNITDIR and SYSUSERSDIR are PREFIX/lib/systemd/system and
# PREFIX/lib/sysusers.d, where systemd looks for /usr/local's; for
# PREFIX=/usr they are what systemd's pkg-config file says (Debian 12:
# /lib/systemd/system and /usr/lib/sysusers.d), as Debian packages have
# them.  Any of them may be given on the command line.
.PHONY: install uninstall man
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
ifeq ($(PREFIX),/usr)
UNITDIR ?= $(or $(shell pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null),/lib/systemd/system)
SYSUSERSDIR ?= $(or $(shell pkg-config --variable=sysusersdir systemd 2>/dev/null),/usr/lib/sysusers.d)
else
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
endif
INSTALL ?= install

# The page comes from the binary's own help tables (src/cmd/help_text.c).
man: $(OUT)/smolder.1
$(OUT)/smolder.1: $(BIN)
	$(call msg,GEN,$@)
	$(Q)$(RUN_BIN) --man >$@.tmp && mv $@.tmp $@

install: $(BIN) $(OUT)/smolder.1
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(SYSUSERSDIR)
	$(Q)$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/smolder
	$(Q)$(INSTALL) -m 644 $(OUT)/smolder.1 $(DESTDIR)$(MANDIR)/man1/smolder.1
	$(Q)sed 's|/usr/local/bin/smolder|$(BINDIR)/smolder|g' scripts/smolder.service >$(OUT)/smolder.service
	$(Q)$(INSTALL) -m 644 $(OUT)/smolder.service $(DESTDIR)$(UNITDIR)/smolder.service
	$(Q)sed 's|/usr/local/bin/smolder|$(BINDIR)/smolder|g' scripts/smolder-serve.service >$(OUT)/smolder-serve.service
	$(Q)$(INSTALL) -m 644 $(OUT)/smolder-serve.service $(DESTDIR)$(UNITDIR)/smolder-serve.service
	$(Q)$(INSTALL) -m 644 scripts/smolder.sysusers $(DESTDIR)$(SYSUSERSDIR)/smolder.conf
	@echo "installed $(DESTDIR)$(BINDIR)/smolder, its man page, smolder.service, smolder-serve.service and smolder.conf"

uninstall:
	$(Q)rm -f $(DESTDIR)$(BINDIR)/smolder $(DESTDIR)$(MANDIR)/man1/smolder.1 \
		$(DESTDIR)$(UNITDIR)/smolder.service $(DESTDIR)$(UNITDIR)/smolder-serve.service \
		$(DESTDIR)$(SYSUSERSDIR)/smolder.conf
# ---- end of install, uninstall, man ----

clean:
	rm -rf $(OUT) $(BIN) smolder.folded

# Header dependencies of every object, unit test and fuzz object built so far.
-include $(wildcard $(OUT)/obj/*/.deps/*.d $(OUT)/obj/*/*/.deps/*.d $(OUT)/tests/.deps/*.d $(OUT)/tests/root/.deps/*.d \
	$(OUT)/fuzz/obj/*/.deps/*.d)

# ---- The unwinder replayed (issue 22) -----------------------------------
# bpf/unwind.bpf.h compiled for user space (tests/replay/walk.c: the BPF
# helpers behind tests/replay/bpf_shim.h answer from an unwind image, maps
# and memory held in user space) and replayed over recorded samples of the
# frameless workloads (tests/replay/*.rec.gz): build/tests/test_unwind_replay
# needs no root and no BPF, and runs with the unit tests (`make replay`
# runs it alone).  test_unwind_maps looks rows up with the same walk.  The
# recorder, build/tools/unwind_record, runs a workload under ptrace, samples
# it and reads back the tables the loader (src/unwind) puts in real BPF
# maps: `make replay-record` (root) writes the recordings again.
REPLAY_CFLAGS = $(ALL_CFLAGS) -Ibpf -Itests/replay
REPLAY_OBJS := $(OUT)/replay/walk.o $(OUT)/replay/unwind_image.o
REPLAY_KERNEL_OBJS := $(REPLAY_OBJS) $(OUT)/replay/kernel_image.o
REPLAY_BIN := $(OUT)/tests/test_unwind_replay
.PHONY: replay replay-record

# The walk's own source, named too: a change to it must rebuild the replay.
$(OUT)/replay/walk.o: bpf/unwind.bpf.h tests/replay/bpf_shim.h

$(OUT)/replay/%.o: tests/replay/%.c | $(GEN_HEADERS) $(OUT)/.dirs
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)/.deps
	$(Q)$(CC) $(REPLAY_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(REPLAY_BIN): tests/replay/replay.c $(REPLAY_OBJS) $(OUT)/libsmolder.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)/.deps
	$(Q)$(CC) $(REPLAY_CFLAGS) $(DEPFLAGS) $< $(REPLAY_OBJS) $(OUT)/libsmolder.a $(LDLIBS) -o $@

$(OUT)/tests/root/test_unwind_maps: tests/unit/root/test_unwind_maps.c $(REPLAY_KERNEL_OBJS) \
		$(OUT)/libsmolder.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)/.deps
	$(Q)$(CC) $(REPLAY_CFLAGS) $(DEPFLAGS) -Itests/unit $< $(REPLAY_KERNEL_OBJS) \
		$(OUT)/libsmolder.a $(LDLIBS) -o $@

$(OUT)/tools/unwind_record: tests/tools/unwind_record.c $(REPLAY_KERNEL_OBJS) $(OUT)/libsmolder.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)/.deps
	$(Q)$(CC) $(REPLAY_CFLAGS) $(DEPFLAGS) $< $(REPLAY_KERNEL_OBJS) $(OUT)/libsmolder.a \
		$(LDLIBS) -o $@

# Mutants: the replay built on bpf/unwind.bpf.h with one deliberate bug each
# (tests/replay/mutate.sh); test_unwind_replay runs them and wants each to
# fail a recording.  A mutation that no longer applies to the walk's source
# leaves a note instead (test_unwind_replay fails on it), not a failed build.
REPLAY_MUTANTS := cfa_plus_8 ra_below_cfa row_search plt_push signal_pc
REPLAY_MUTANT_BINS := $(patsubst %,$(OUT)/replay/mutants/%/replay,$(REPLAY_MUTANTS))

$(OUT)/replay/mutants/%/replay: bpf/unwind.bpf.h tests/replay/mutate.sh tests/replay/replay.c \
		tests/replay/walk.c $(wildcard tests/replay/*.h) $(OUT)/replay/unwind_image.o \
		$(OUT)/libsmolder.a
	$(call msg,MUTANT,$@)
	$(Q)mkdir -p $(@D) && rm -f $@ $(@D)/not-applied
	$(Q)if tests/replay/mutate.sh $* $< $(@D)/unwind.bpf.h 2>$(@D)/not-applied; then \
		rm $(@D)/not-applied && \
		$(CC) $(ALL_CFLAGS) -I$(@D) -Ibpf -Itests/replay -c tests/replay/walk.c -o $(@D)/walk.o && \
		$(CC) $(REPLAY_CFLAGS) tests/replay/replay.c $(@D)/walk.o $(OUT)/replay/unwind_image.o \
			$(OUT)/libsmolder.a $(LDLIBS) -o $@; \
	else cat $(@D)/not-applied >&2; fi

# The replay again with the walk built for arm64 (UNWIND_ARM64: bpf/unwind_arch.bpf.h),
# and a64_image, which makes recordings of static arm64 workloads sampled
# under qemu-user (tests/replay/qemu_samples.py; tests/check/unwind_arm64_qemu.sh).
REPLAY_A64_BIN := $(OUT)/replay/a64/replay
$(OUT)/replay/a64/walk.o: tests/replay/walk.c bpf/unwind.bpf.h bpf/unwind_arch.bpf.h \
		tests/replay/bpf_shim.h | $(GEN_HEADERS) $(OUT)/.dirs
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(REPLAY_CFLAGS) -DUNWIND_ARM64=1 -c $< -o $@

$(REPLAY_A64_BIN): tests/replay/replay.c $(OUT)/replay/a64/walk.o $(OUT)/replay/unwind_image.o \
		$(OUT)/libsmolder.a
	$(call msg,CC,$@)
	$(Q)$(CC) $(REPLAY_CFLAGS) $< $(OUT)/replay/a64/walk.o $(OUT)/replay/unwind_image.o \
		$(OUT)/libsmolder.a $(LDLIBS) -o $@

$(OUT)/tools/a64_image: tests/replay/a64_image.c $(OUT)/replay/unwind_image.o $(OUT)/libsmolder.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(REPLAY_CFLAGS) $< $(OUT)/replay/unwind_image.o $(OUT)/libsmolder.a $(LDLIBS) -o $@

# Static arm64 workloads for it (one mapping: the walk needs no loader).
A64_STATIC := $(OUT)/workloads/a64/static-gcc $(OUT)/workloads/a64/static-clang-pac
$(OUT)/workloads/a64/static-%: tests/workloads/frameless/unwind_paths.c | $(OUT)/.dirs
	$(call msg,CC-A64,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(A64_CC_$(firstword $(subst -, ,$*))) $(FRAMELESS_CFLAGS) -static \
		$(if $(findstring -pac,$*),-mbranch-protection=standard) \
		-DWL_CC='"$(firstword $(subst -, ,$*))"' $< -o $@ -ldl

unit: $(REPLAY_BIN) $(REPLAY_MUTANT_BINS) $(REPLAY_A64_BIN) $(OUT)/tools/a64_image $(A64_STATIC)
check-build: $(REPLAY_BIN) $(REPLAY_MUTANT_BINS) $(REPLAY_A64_BIN) $(OUT)/tools/a64_image $(A64_STATIC)
# (the recorder reads x86_64's registers by ptrace: built there only)
ifeq ($(ARCH),x86_64)
tools: $(OUT)/tools/unwind_record
endif

replay: $(REPLAY_BIN) $(REPLAY_MUTANT_BINS)
	$(Q)$(REPLAY_BIN)

replay-record: $(OUT)/tools/unwind_record $(REPLAY_BIN) $(REPLAY_MUTANT_BINS) $(FRAMELESS)
	$(Q)tests/replay/record.sh

-include $(wildcard $(OUT)/replay/.deps/*.d $(OUT)/tools/.deps/*.d)

