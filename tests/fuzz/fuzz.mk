# Fuzzing the class-file layer (clang + libFuzzer + ASan/UBSan). Not part of `make test`.
#   make fuzz                  build, seed the corpus with JDK classes, run FUZZ_SECONDS
#   make fuzz FUZZ_SECONDS=600 longer; crashes land in build/fuzz/crash-*
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_OUT     := $(BUILD)/fuzz
FUZZ_CF_SRCS := $(wildcard src/classfile/*.c) src/util/buf.c
FUZZ_FLAGS   := -g -O1 -std=c11 -D_GNU_SOURCE -Isrc -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined -fno-omit-frame-pointer

.PHONY: fuzz fuzz-build fuzz-seed
fuzz-build: $(FUZZ_OUT)/fuzz_classfile

$(FUZZ_OUT)/fuzz_classfile: tests/fuzz/fuzz_classfile.c tests/fuzz/fuzz_one.h $(FUZZ_CF_SRCS) $(wildcard src/classfile/*.h) src/util/buf.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ tests/fuzz/fuzz_classfile.c $(FUZZ_CF_SRCS)

fuzz-seed: $(BUILD)/cf-rewrite
	tests/fuzz/seed.sh $(FUZZ_OUT)/corpus

fuzz: fuzz-build fuzz-seed
	cd $(FUZZ_OUT) && ./fuzz_classfile -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	    -rss_limit_mb=2048 -print_final_stats=1 corpus
