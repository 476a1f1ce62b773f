# hprof: build the agent, the tools and the tests.
#   make            build/libhprof.so and the tools
#   make test       unit + integration tests on every JDK found (see tests/lib/jdks.sh)
#   make install    copy libhprof.so into $(JAVA_HOME)/lib so -agentlib:hprof finds it
#   make sample     build and profile the bundled sample program

CC      ?= gcc
BUILD   := build
VERSION := 0.1.0
JDK_HOME := $(or $(JAVA_HOME),$(shell tests/lib/jdks.sh --first 2>/dev/null))
JNI_INC := -isystem $(JDK_HOME)/include -isystem $(JDK_HOME)/include/linux

WARN    := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes
CFLAGS  ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -DHPROF_VERSION=\"$(VERSION)\" -fPIC -fvisibility=hidden $(WARN) $(CFLAGS) \
              -Isrc $(JNI_INC)
LDLIBS  := -lpthread -ldl

# Every layer of the agent; the classfile layer has no JVMTI in it.
AGENT_DIRS  := src/agent src/sources src/tables src/writers src/util src/classfile
AGENT_SRCS  := $(foreach d,$(AGENT_DIRS),$(wildcard $(d)/*.c))
AGENT_OBJS  := $(patsubst %.c,$(BUILD)/obj/%.o,$(AGENT_SRCS))

# Tools: one folder each under tools/, every .c in it linked into build/<name>.
TOOL_NAMES  := $(notdir $(wildcard tools/*))
TOOL_BINS   := $(addprefix $(BUILD)/,$(TOOL_NAMES))

UNIT_SRCS   := $(wildcard tests/unit/test_*.c)
UNIT_BINS   := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

.PHONY: all test unit install sample clean bench
all: $(BUILD)/libhprof.so $(TOOL_BINS) $(UNIT_BINS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/libhprof.a: $(AGENT_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libhprof.so: $(AGENT_OBJS)
	$(CC) -shared -o $@ $^ $(LDLIBS) -Wl,--version-script=src/agent/exports.map

.SECONDEXPANSION:
$(BUILD)/%: tools/%/*.c $$(wildcard tools/%/*.h) $(BUILD)/libhprof.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itools/$* -o $@ $(filter %.c,$^) $(BUILD)/libhprof.a $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c tests/unit/unit.h $(BUILD)/libhprof.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libhprof.a $(LDLIBS)

test: all
	tests/run.sh

unit: $(UNIT_BINS)
	tests/run.sh --unit-only

install: $(BUILD)/libhprof.so
	@test -n "$(JDK_HOME)" || { echo "no JDK found: set JAVA_HOME"; exit 1; }
	install -m 0755 $(BUILD)/libhprof.so $(JDK_HOME)/lib/libhprof.so
	@echo "installed $(JDK_HOME)/lib/libhprof.so"

sample: all
	bench/profile-sample.sh

bench: all
	bench/run.sh

clean:
	rm -rf $(BUILD)

-include $(AGENT_OBJS:.o=.d)
# Fuzz targets (clang + libFuzzer) keep their rules beside their sources.
-include tests/fuzz/fuzz.mk
