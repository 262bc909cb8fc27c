# Thin front for meson.  `make run`: set up, build, run the main job on the
# sample corpus.  `make test`: set up, build with AddressSanitizer and
# UndefinedBehaviorSanitizer, run every test.
BUILD ?= build
TESTBUILD ?= build-test

.PHONY: all setup build run test bench clean

all: build

setup:
	@sh scripts/setup.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) --buildtype=debugoptimized

build: setup $(BUILD)/build.ninja
	ninja -C $(BUILD)

run: build
	sh scripts/run-sample.sh $(BUILD)

$(TESTBUILD)/build.ninja:
	meson setup $(TESTBUILD) --buildtype=debug -Db_sanitize=address,undefined \
		-Dc_args=-fno-sanitize-recover=undefined -Dcpp_args=-fno-sanitize-recover=undefined

test: setup $(TESTBUILD)/build.ninja
	ninja -C $(TESTBUILD)
	@rc=0; ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		meson test -C $(TESTBUILD) --print-errorlogs || rc=$$?; \
	python3 scripts/test-summary.py $(TESTBUILD)/meson-logs/testlog.json; \
	exit $$rc

# Every benchmark at its registered size (bench/meson.build), figures printed.
bench: build
	meson test -C $(BUILD) --benchmark --verbose

clean:
	rm -rf $(BUILD) $(TESTBUILD)
