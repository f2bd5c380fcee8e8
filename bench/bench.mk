# make bench [QUICK=1]: benchmarks with baselines measured in the same run.
QUICK ?=
.PHONY: bench
bench: all
	BUILD=$(abspath $(BUILD)) QUICK=$(QUICK) bench/run.sh
