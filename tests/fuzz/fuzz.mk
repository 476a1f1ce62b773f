# SPDX-License-Identifier: Apache-2.0
# Fuzzing every parser of outside input (clang + libFuzzer + ASan/UBSan). A target
# tests/fuzz/fuzz_NAME.c, its corpus tests/fuzz/corpus/NAME/ (committed), the inputs it
# once broke tests/fuzz/regressions/NAME/ (committed, replayed by every test run):
#   classfile        class files (src/classfile), as the JVM hands them to ClassFileLoadHook
#   options          the agent's options (src/options)
#   socket_commands  the net= socket's command stream (sources/net/socket_protocol.c)
#   jdk_dump         the JVM's own heap dump, read back (sources/heapdump/jdk_dump_*.c)
#   hprof_dump       hprof-dump's reader: any file, binary or text (tools/common)
#   analyze          hprof analyze: index, dominators, reports of a heap dump (tools/hprof/analyze_*.c)
#   text_profile     hprof view's reader of text profiles, and the views it writes
#   perfdata         the JVM's jvmstat memory, as timeline= maps it (util/perfdata.c)
#                    and hprof list/stat read another JVM's (util/jvmstat.c)
#                    and hprof list/stat read it (util/jvmstat.c)
#   maps             /proc/self/maps text (native/native_maps.c)
#   elf              ELF files: headers, sections, symbols, build ID, debuglink (native/native_elf.c)
#   eh_frame         .eh_frame compiled to unwind rows, and walks over them (native/native_cfi*.c,
#                    native/native_unwind.c)
#   demangle         C++ symbol names (native/native_demangle.c)
#   kallsyms         /proc/kallsyms text, the kernel's functions (native/native_kallsyms.c)
#
#   make fuzz                         every target FUZZ_SECONDS (60) from its corpus, classfile
#                                     also from JDK classes (fuzz-seed)
#   make fuzz-ci                      the same from the committed corpora only (.ci/run)
#   make fuzz FUZZ_TARGETS=jdk_dump FUZZ_SECONDS=600
#   make fuzz-replay                  build/fuzz-replay/NAME: the targets without libFuzzer
#                                     (gcc), replayed over corpus and regressions by make test
# New crashes land in build/fuzz/NAME/crash-*; tests/fuzz/run.sh says what to do with them.
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_OUT     := $(BUILD)/fuzz
FUZZ_NAMES   := classfile options socket_commands jdk_dump hprof_dump text_profile perfdata \
                maps elf eh_frame demangle analyze kallsyms
FUZZ_TARGETS ?= $(FUZZ_NAMES)
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
# -Wno-gnu-...: struct trace's flexible array (never used in the empty trace) sits inside
# struct tables; gcc accepts that silently, clang says it is an extension.
FUZZ_FLAGS   := -g -O1 -std=c11 -D_GNU_SOURCE -DHPROF_VERSION=\"$(VERSION)\" -fno-omit-frame-pointer \
                -Wno-gnu-variable-sized-type-not-at-end -Isrc $(JNI_INC) $(FUZZ_SAN)
# The agent, the tools' shared readers (tools/common) and the flame graph's page.
# hprof analyze's files but the one that opens and maps a file (the target hands it memory).
ANALYZE_SRCS := $(filter-out tools/hprof/analyze_file.c,$(wildcard tools/hprof/analyze_*.c))
FUZZ_SRCS    := $(AGENT_SRCS) $(wildcard tools/common/*.c) $(BUILD)/gen/flamegraph_html.c $(ANALYZE_SRCS)
FUZZ_OBJS    := $(patsubst %.c,$(FUZZ_OUT)/obj/%.o,$(FUZZ_SRCS))
FUZZ_BINS    := $(addprefix $(FUZZ_OUT)/fuzz_,$(FUZZ_NAMES))
REPLAY_BINS  := $(addprefix $(BUILD)/fuzz-replay/,$(FUZZ_NAMES))

.PHONY: fuzz fuzz-ci fuzz-build fuzz-replay fuzz-seed
all: $(REPLAY_BINS) $(BUILD)/gen-hostile
fuzz-build: $(FUZZ_BINS)
fuzz-replay: $(REPLAY_BINS)

# The agent's and the tools' files, instrumented for coverage (fuzzer-no-link: no main).
$(FUZZ_OUT)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -Itools/common -Itools/hprof -MMD -MP -c $< -o $@

$(FUZZ_OUT)/libfuzz.a: $(FUZZ_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_one.h tests/fuzz/fuzz_target.h $(FUZZ_OUT)/libfuzz.a
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -Itools/common -Itools/hprof -o $@ $< $(FUZZ_OUT)/libfuzz.a $(LDLIBS)

# The same targets for replaying, built as the rest of the tree is (make check: sanitized);
# analyze's with its files from tools/hprof.
$(BUILD)/fuzz-replay/analyze: tests/fuzz/fuzz_analyze.c tests/fuzz/replay.c tests/fuzz/fuzz_one.h $(ANALYZE_SRCS) \
                              tools/hprof/analyze.h $(BUILD)/libtools.a $(BUILD)/libhprof.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -Itools/common -Itools/hprof -o $@ $< tests/fuzz/replay.c $(ANALYZE_SRCS) \
	    $(BUILD)/libtools.a $(BUILD)/libhprof.a $(LDLIBS)
$(BUILD)/fuzz-replay/%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz_one.h $(BUILD)/libtools.a \
                        $(BUILD)/libhprof.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -Itools/common -o $@ $< tests/fuzz/replay.c \
	    $(BUILD)/libtools.a $(BUILD)/libhprof.a $(LDLIBS)

# Structured hostile inputs, too big for the fuzzers to find (tests/tools/hostile_inputs.sh).
$(BUILD)/gen-hostile: tests/fuzz/gen_hostile.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $<

# Extra classfile seeds from the JDK (not committed: the JDK's own classes), once.
fuzz-seed: $(BUILD)/cf-rewrite
	tests/fuzz/seed.sh $(FUZZ_OUT)/classfile/extra

fuzz: fuzz-build fuzz-seed
	FUZZ_OUT=$(FUZZ_OUT) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ_TARGETS)

fuzz-ci: fuzz-build
	FUZZ_OUT=$(FUZZ_OUT) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $(FUZZ_TARGETS)

-include $(FUZZ_OBJS:.o=.d)
