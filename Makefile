# SPDX-License-Identifier: Apache-2.0
# hprof: build the agent, the tools and the tests.
#   make            build/libhprof.so and the tools
#   make test       unit + integration tests on every JDK found (see tests/lib/jdks.sh)
#   make install    copy libhprof.so into $(JAVA_HOME)/lib so -agentlib:hprof finds it,
#                   and the hprof tool into $(JAVA_HOME)/bin
#   make sample     build and profile the bundled sample program
#   make check      the agent, tools and unit tests built with ASan+UBSan (build-asan/), the
#                   tables' and site_objects' tests with TSan, run over the unit tests and part of the
#                   integration suite (tests/check.sh); make fuzz: tests/fuzz/fuzz.mk
#   make format     every C file in the tree's one style (.clang-format)

CC      ?= gcc
BUILD   := build
VERSION := 0.1.0
JDK_HOME := $(or $(JAVA_HOME),$(shell tests/lib/jdks.sh --first 2>/dev/null))
JNI_INC := -isystem $(JDK_HOME)/include -isystem $(JDK_HOME)/include/linux

# Warnings are errors in every build, CI's included (WERROR= to build anyway).
WERROR  ?= -Werror
WARN    := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes -Wmissing-prototypes $(WERROR)
CFLAGS  ?= -O2 -g
# Frame pointers: the exact heap=sites mode reads a return address through them.
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -DHPROF_VERSION=\"$(VERSION)\" -fPIC -fvisibility=hidden -fno-omit-frame-pointer $(WARN) $(CFLAGS) \
              -Isrc $(JNI_INC)
LDLIBS  := -lpthread -ldl
# Extra link flags (make check links the sanitizers' runtimes through them).
LDFLAGS ?=

# Every layer of the agent; the classfile and native layers have no JVMTI in them.
# src/sources has one subfolder per kind of source (cpu/, alloc/, heapdump/, ...).
AGENT_DIRS  := src/agent src/options src/report src/sources src/tables src/writers src/util src/classfile src/native
AGENT_SRCS  := $(sort $(foreach d,$(AGENT_DIRS),$(wildcard $(d)/*.c) $(wildcard $(d)/*/*.c)))
AGENT_OBJS  := $(patsubst %.c,$(BUILD)/obj/%.o,$(AGENT_SRCS)) $(BUILD)/obj/gen/tracker_class.o \
               $(BUILD)/obj/gen/flamegraph_html.o

# Tools: one folder each under tools/, every .c in it linked into build/<name>, with
# build/libtools.a: tools/common, what several tools share (the readers of HPROF files).
TOOL_NAMES  := $(filter-out common,$(notdir $(wildcard tools/*)))
TOOLS_LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tools/common/*.c))
$(TOOLS_LIB_OBJS): ALL_CFLAGS += -Itools/common
TOOL_BINS   := $(addprefix $(BUILD)/,$(TOOL_NAMES))

UNIT_SRCS   := $(wildcard tests/unit/test_*.c)
UNIT_BINS   := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.PHONY: all test unit install sample clean bench check format
all: $(BUILD)/libhprof.so $(TOOL_BINS) $(UNIT_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The Tracker class is compiled for the oldest JDK we run on and embedded in the library.
# Its own DontInline annotation is renamed to HotSpot's: the constant-pool entry (tag 1,
# a 2-byte length, the name) replaced by a longer one, which a class file allows (nothing
# points into the pool by offset); the build fails if there was nothing to rename.
TRACKER_DONTINLINE = Lhprof/Tracker$$DontInline;
VM_DONTINLINE = Ljdk/internal/vm/annotation/DontInline;
$(BUILD)/tracker/hprof/Tracker.class: java/hprof/Tracker.java
	@mkdir -p $(BUILD)/tracker
	$(JDK_HOME)/bin/javac -nowarn --release 11 -d $(BUILD)/tracker $<
	perl -0777 -i -pe 'BEGIN { ($$o, $$n) = map { pack("Cn/a*", 1, $$_) } q($(TRACKER_DONTINLINE)), q($(VM_DONTINLINE)) } \
		s/\Q$$o\E/$$n/ or die "no DontInline in Tracker.class\n"' $@

# $(call embed,SYMBOL): the recipe of a C file holding the prerequisite's bytes as SYMBOL[]
# and their number as SYMBOL_len.
embed = @mkdir -p $(dir $@); \
	{ echo '/* Generated from $<. */'; \
	  echo '\#include <stddef.h>'; \
	  echo 'const unsigned char $(1)[] = {'; \
	  od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; \
	  echo 'const size_t $(1)_len = sizeof $(1);'; } >$@

$(BUILD)/gen/tracker_class.c: $(BUILD)/tracker/hprof/Tracker.class
	$(call embed,hprof_tracker_class)

# The flame graph's page (view=html, hprof view), embedded the same way.
$(BUILD)/gen/flamegraph_html.c: src/writers/flamegraph.html
	$(call embed,hprof_flamegraph_html)

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libtools.a: $(TOOLS_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libhprof.a: $(AGENT_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libhprof.so: $(AGENT_OBJS)
	$(CC) -shared $(LDFLAGS) -o $@ $^ $(LDLIBS) -Wl,--version-script=src/agent/exports.map

.SECONDEXPANSION:
$(BUILD)/%: tools/%/*.c $$(wildcard tools/%/*.h) $(wildcard tools/common/*.h) $(BUILD)/libtools.a $(BUILD)/libhprof.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -Itools/$* -Itools/common -o $@ $(filter %.c,$^) $(BUILD)/libtools.a $(BUILD)/libhprof.a $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/unit.h $(BUILD)/libhprof.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -Itests/unit -o $@ $< $(BUILD)/libhprof.a $(LDLIBS)

test: all
	tests/run.sh

# test_native_unwind walks through a library of its own, built as a JNI library would be
# but without frame pointers, so that only its .eh_frame can unwind it.
$(BUILD)/tests/test_native_unwind: $(BUILD)/tests/libnative_chain.so
$(BUILD)/tests/libnative_chain.so: tests/unit/native_chain.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -O2 -g -fomit-frame-pointer -fno-optimize-sibling-calls -fPIC -shared $(LDFLAGS) -o $@ $<

unit: $(UNIT_BINS)
	tests/run.sh --unit-only

# The hprof tool goes beside jcmd, and finds the agent in ../lib from there.
install: $(BUILD)/libhprof.so $(BUILD)/hprof
	@test -n "$(JDK_HOME)" || { echo "no JDK found: set JAVA_HOME"; exit 1; }
	install -m 0755 $(BUILD)/libhprof.so $(JDK_HOME)/lib/libhprof.so
	install -m 0755 $(BUILD)/hprof $(JDK_HOME)/bin/hprof
	@echo "installed $(JDK_HOME)/lib/libhprof.so and $(JDK_HOME)/bin/hprof"

# The profile is what this shows: the build's compiler lines go to a log, shown only
# when the build fails.
sample:
	@mkdir -p $(BUILD)/sample
	@echo "make sample: building $(BUILD)/libhprof.so (compiler output in $(BUILD)/sample/build.log)"
	@$(MAKE) --no-print-directory $(BUILD)/libhprof.so >$(BUILD)/sample/build.log 2>&1 || \
	  { cat $(BUILD)/sample/build.log; echo "make sample: the build failed"; exit 1; }
	@bench/profile-sample.sh

bench: all
	bench/run.sh

# Sanitizers: a second build tree, so build/ (the one the tests and users load) stays as it is;
# build/ is made too, for the tests whose JVMs run unsanitized (tests/run.sh, plain-jvm).
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined
check: all
	$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="-O1 -g $(SAN_FLAGS)" LDFLAGS="$(SAN_FLAGS)" all
	$(MAKE) --no-print-directory BUILD=build-tsan CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" \
	    build-tsan/tests/test_tables build-tsan/tests/test_site_objects
	tests/check.sh

# The tree's C in one style (.clang-format); tests/tools/format.sh fails on what it would change.
FORMAT_FILES = $(shell git ls-files '*.c' '*.h')
format:
	clang-format -i $(FORMAT_FILES)

clean:
	rm -rf $(BUILD) build-asan build-tsan

-include $(AGENT_OBJS:.o=.d) $(TOOLS_LIB_OBJS:.o=.d)
# Fuzz targets (clang + libFuzzer) keep their rules beside their sources.
-include tests/fuzz/fuzz.mk
