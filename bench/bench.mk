# make bench [QUICK=1]: benchmarks with baselines measured in the same run.
QUICK ?=
BENCH_BIN := $(BUILD)/bench/benchnet
.PHONY: bench
bench: all $(BENCH_BIN)
	BUILD=$(abspath $(BUILD)) QUICK=$(QUICK) bench/run.sh

# The origin and clients of the gate benchmarks (bench code, not installed).
$(BUILD)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -pie $(ALL_LDFLAGS) -o $@ $<
