# Fuzzing the jvmstat reader of build/hprof (tools/hprof/jvmstat.c). Not part of `make test`.
#   make fuzz-jvmstat                  build, seed with this machine's hsperfdata files, run FUZZ_SECONDS
# Uses FUZZ_CC, FUZZ_FLAGS, FUZZ_OUT, FUZZ_SECONDS of tests/fuzz/fuzz.mk.
.PHONY: fuzz-jvmstat
$(FUZZ_OUT)/fuzz_jvmstat: tests/fuzz/fuzz_jvmstat.c tools/hprof/jvmstat.c tools/hprof/jvmstat.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -Itools/hprof -o $@ tests/fuzz/fuzz_jvmstat.c tools/hprof/jvmstat.c

fuzz-jvmstat: $(FUZZ_OUT)/fuzz_jvmstat
	@mkdir -p $(FUZZ_OUT)/jvmstat-corpus
	@for f in /tmp/hsperfdata_*/*; do [ -f "$$f" ] && cp "$$f" $(FUZZ_OUT)/jvmstat-corpus/ 2>/dev/null; done; true
	cd $(FUZZ_OUT) && ./fuzz_jvmstat -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	    -print_final_stats=1 jvmstat-corpus
