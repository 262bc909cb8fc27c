# Thin front for meson.  `make run`: set up, build, run the main job on the
# sample corpus.  `make test`: set up, build with AddressSanitizer and
# UndefinedBehaviorSanitizer, run every test.  `make install PREFIX=DIR`.
BUILD ?= build
TESTBUILD ?= build-test
PREFIX ?= /usr/local

.PHONY: all setup build run test slow fuzz bench eval install clean

all: build

setup:
	@sh scripts/setup.sh

# The build as one line; its log (and the last of it on failure) in BUILD/build.log.
$(BUILD)/build.ninja:
	@mkdir -p $(BUILD)
	@meson setup $(BUILD) --buildtype=debugoptimized > $(BUILD)/setup.log 2>&1 || { cat $(BUILD)/setup.log; exit 1; }

build: setup $(BUILD)/build.ninja
	@sh scripts/quiet-build.sh $(BUILD)

run: build
	@sh scripts/run-sample.sh $(BUILD)

install: build
	@meson configure $(BUILD) -Dprefix=$(PREFIX) > /dev/null
	@meson install -C $(BUILD) --quiet
	@case "$(PREFIX)" in /usr|/usr/local) [ "$$(id -u)" -ne 0 ] || ldconfig ;; esac
	@echo "installed under $(PREFIX)"

$(TESTBUILD)/build.ninja:
	@mkdir -p $(TESTBUILD)
	@meson setup $(TESTBUILD) --buildtype=debug -Db_sanitize=address,undefined \
		-Dc_args=-fno-sanitize-recover=undefined -Dcpp_args=-fno-sanitize-recover=undefined \
		> $(TESTBUILD)/setup.log 2>&1 || { cat $(TESTBUILD)/setup.log; exit 1; }

test: setup $(TESTBUILD)/build.ninja
	@sh scripts/quiet-build.sh $(TESTBUILD)
	@rc=0; ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		meson test -C $(TESTBUILD) --no-rebuild --no-suite slow --print-errorlogs || rc=$$?; \
	python3 scripts/test-summary.py $(TESTBUILD)/meson-logs/testlog.json; \
	exit $$rc

# Long runs kept out of `make test`: 200 random kills (tests/kill.py), the
# reliability loops at full length.
slow: setup $(TESTBUILD)/build.ninja
	@sh scripts/quiet-build.sh $(TESTBUILD)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 meson test -C $(TESTBUILD) --no-rebuild --suite slow --print-errorlogs

# libFuzzer targets with clang (tests/fuzz): `make fuzz FUZZ_SECONDS=1800`
# runs each in turn, growing its corpus in build-fuzz/corpora/<target>.
FUZZ_SECONDS ?= 60
fuzz: setup
	@command -v clang >/dev/null || { echo "make fuzz needs clang: apt-get install clang"; exit 1; }
	[ -f build-fuzz/build.ninja ] || CC=clang CXX=clang++ meson setup build-fuzz -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false
	ninja -C build-fuzz
	for t in tokenizer html jsonl record truth store; do \
		len=8192; [ $$t = store ] && len=262144; \
		mkdir -p build-fuzz/corpora/$$t && \
		UBSAN_OPTIONS=halt_on_error=1 build-fuzz/tests/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
			-max_len=$$len build-fuzz/corpora/$$t tests/fuzz/corpora/$$t || exit 1; \
	done

# Every benchmark at its registered size (bench/meson.build), figures printed.
bench: build
	meson test -C $(BUILD) --benchmark --verbose

# neardup eval on every labeled set in ../shared/data (or $$ND_DATA):
# tables, JSON and SVG plots under build/eval/<set>/.
eval: build
	sh eval/datasets.sh $(BUILD)/tools/neardup $(BUILD)/eval

clean:
	rm -rf $(BUILD) $(TESTBUILD)
