# Fuzzing hprof view's text profile parser (clang + libFuzzer + ASan/UBSan). Not part of
# `make test`.
#   make fuzz-text-profile                      build, seed with the example profiles, run FUZZ_SECONDS
#   make fuzz-text-profile FUZZ_SECONDS=600     longer; crashes land in build/fuzz/crash-*
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_TP_SRCS := tools/common/text_profile.c tools/common/profile_rows.c tools/common/table.c \
                src/writers/stack_profile.c src/writers/view_collapsed.c src/writers/view_pprof.c \
                src/writers/view_flamegraph.c src/util/buf.c src/util/gzip.c src/util/log.c \
                $(BUILD)/gen/flamegraph_html.c
FUZZ_TP_FLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -Isrc -Itools/common -fsanitize=fuzzer,address,undefined \
                 -fno-sanitize-recover=undefined -fno-omit-frame-pointer

.PHONY: fuzz-text-profile
$(BUILD)/fuzz/fuzz_text_profile: tests/fuzz/fuzz_text_profile.c $(FUZZ_TP_SRCS) $(wildcard tools/common/*.h src/writers/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_TP_FLAGS) -o $@ tests/fuzz/fuzz_text_profile.c $(FUZZ_TP_SRCS)

fuzz-text-profile: $(BUILD)/fuzz/fuzz_text_profile
	@mkdir -p $(BUILD)/fuzz/text-corpus
	cp /work/shared/spec/examples/*.txt tests/data/original/*.hprof $(BUILD)/fuzz/text-corpus/ 2>/dev/null || true
	cd $(BUILD)/fuzz && ./fuzz_text_profile -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	    -rss_limit_mb=2048 -print_final_stats=1 text-corpus
