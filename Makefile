# trace-layers: small Unix filters for PyTorch profiler (Kineto) Chrome JSON traces.
# Plain GNU make.  `make` builds, `make check` tests, `make demo` runs the main job,
# `make bench` measures.  Missing Debian packages are installed by scripts/install-deps.sh.

VERSION := $(shell cat VERSION)
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/trace-layers
DOCDIR  ?= $(PREFIX)/share/doc/trace-layers
# Where bash-completion looks for a command's completion (it loads the file
# named after the command on first use; under PREFIX=~/.local too).
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DESTDIR ?=

CC      ?= cc
CFLAGS  ?= -O3 -g
WERROR  ?= -Werror
# Warnings are forced on so that a user CFLAGS cannot drop them.
override CFLAGS += -pthread -std=c11 -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wvla $(WERROR)
override CPPFLAGS += -D_POSIX_C_SOURCE=200809L -D_FILE_OFFSET_BITS=64 -Icommon \
	-DTR_VERSION='"$(VERSION)"'

# Object directory: `make B=build-asan CFLAGS=...` gives a separate sanitizer build.
B ?= build

# Compile and link lines are one short line each (`  CC      build/common/x.o`);
# `make V=1` prints the commands whole.
ifeq ($(V),1)
say =
else
say = @printf '  %-7s %s\n' '$(1)' '$(2)';
endif

# gzip goes through one backend, chosen here (common/gz/gz.c): Intel ISA-L when
# it is installed (pkg-config libisal, or its header), else zlib.  `make
# GZIP=zlib` forces zlib.  A GZIP in the environment is gzip(1)'s own
# option variable, not this choice, and is never passed on to the tests.
ifeq ($(origin GZIP),environment)
override GZIP :=
endif
unexport GZIP
ifeq ($(GZIP),)
GZIP := $(shell (pkg-config --exists libisal 2>/dev/null || \
	test -f /usr/include/isa-l/igzip_lib.h) && echo isal || echo zlib)
endif
ifeq ($(GZIP),isal)
GZ_CPPFLAGS := -DGZ_ISAL $(shell pkg-config --cflags libisal 2>/dev/null)
GZ_LIBS     := $(shell pkg-config --libs libisal 2>/dev/null || echo -lisal)
GZ_NAME     := ISA-L
else ifeq ($(GZIP),zlib)
GZ_CPPFLAGS :=
GZ_LIBS     := $(shell pkg-config --libs zlib 2>/dev/null || echo -lz)
GZ_NAME     := zlib
else
$(error GZIP=$(GZIP): the gzip backend is isal or zlib)
endif

PKGS       := libcrypto libpcre2-8 libmicrohttpd
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lcrypto -lpcre2-8 -lmicrohttpd) $(GZ_LIBS) -lm
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm -pthread)

PROGS   := tr-decode tr-encode tr-gen tr-select-anchors tr-guides tr-compact tr-verify tr-survey tr-serve tr-window tr-ranks
SCRIPTS := tr-layer-track tr-compact-track tr-layer-track-ranks
# common/ is grouped by concern, one folder each (README, "The source
# tree"); every .c there is a module, every tests/unit/*/check_X.c a runner.
COMMON  := $(patsubst common/%.c,%,$(sort $(wildcard common/*/*.c)))
UNIT_DIRS := $(sort $(dir $(wildcard tests/unit/*/check_*.c)))
UNITS   := $(patsubst check_%.c,%,$(sort $(notdir $(wildcard tests/unit/*/check_*.c))))
vpath check_%.c $(UNIT_DIRS)
vpath oracle_%.c $(UNIT_DIRS)
# check_scan again on a scan.c built for a processor without SSE2 (below)
UNITS   += scan_portable

COMMON_OBJS := $(COMMON:%=$(B)/common/%.o)
LIB         := $(B)/libtrcommon.a
BINS        := $(PROGS:%=$(B)/bin/%)
# The bash completion of every program and command, generated from their
# option tables (scripts/gen-completion.sh), so it follows every change.
COMPLETION  := $(B)/completion/trace-layers
UNIT_BINS   := $(UNITS:%=$(B)/tests/check_%)

.PHONY: all deps check check-zlib unit e2e asan-unit ubsan lint lint-man valgrind demo bench bench-10g install uninstall \
	clean fuzz fuzz-replay man-examples
all: $(BINS) $(COMPLETION)
	@echo "gzip backend: $(GZ_NAME) (GZIP=$(GZIP))"

$(B)/common/%.o: common/%.c common/*/*.h | $(B)/build-deps.ok
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

# gz.o is built for one backend; a change of GZIP= rebuilds it.
GZ_STAMP := $(B)/gzip-backend
$(shell mkdir -p $(B) && (echo $(GZIP) | cmp -s - $(GZ_STAMP) || echo $(GZIP) >$(GZ_STAMP)))
$(B)/common/gz/gz.o: common/gz/gz.c common/*/*.h $(GZ_STAMP) | $(B)/build-deps.ok
	@mkdir -p $(@D)
	$(call say,CC,$@)$(CC) $(CPPFLAGS) $(GZ_CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/filters/%.o: filters/%.c common/*/*.h | $(B)/filters $(B)/build-deps.ok
	$(call say,CC,$@)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

$(LIB): $(COMMON_OBJS)
	@rm -f $@
	$(call say,AR,$@)$(AR) rcs $@ $^

$(BINS): $(B)/bin/%: $(B)/filters/%.o $(LIB) | $(B)/bin
	$(call say,LD,$@)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# The oracles of tests/oracle.h, linked into the unit runners only.
ORACLES := $(patsubst oracle_%.c,$(B)/tests/oracle_%.o,$(notdir $(wildcard tests/unit/*/oracle_*.c)))
.SECONDARY: $(ORACLES)
$(B)/tests/oracle_%.o: oracle_%.c tests/*.h common/*/*.h | $(B)/tests
	$(call say,CC,$@)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/tests/check_%: check_%.c tests/*.h $(ORACLES) $(LIB) | $(B)/tests $(B)/test-deps.ok
	$(call say,CC,$@)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CHECK_CFLAGS) $(CFLAGS) -Wno-conversion $(LDFLAGS) \
		-o $@ $< $(ORACLES) $(LIB) $(CHECK_LIBS) $(PKG_LIBS)

# check_scan once more on a scan.c compiled as for a processor without SSE2:
# its byte-at-a-time classifiers must give the same verdicts.  Its object
# comes before the library, which then adds no scan.o of its own.
$(B)/tests/scan_portable.o: common/json/scan.c common/*/*.h | $(B)/tests $(B)/build-deps.ok
	$(call say,CC,$@)$(CC) $(CPPFLAGS) -U__SSE2__ $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<
$(B)/tests/check_scan_portable: tests/unit/json/check_scan.c $(B)/tests/scan_portable.o tests/*.h \
		$(ORACLES) $(LIB) | $(B)/tests $(B)/test-deps.ok
	$(call say,CC,$@)$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CHECK_CFLAGS) $(CFLAGS) -Wno-conversion $(LDFLAGS) \
		-o $@ $< $(B)/tests/scan_portable.o $(ORACLES) $(LIB) $(CHECK_LIBS) $(PKG_LIBS)

$(COMPLETION): scripts/gen-completion.sh $(PROGS:%=filters/%.c) $(SCRIPTS:%=scripts/%) common/*/*.h
	@mkdir -p $(@D)
	@sh scripts/gen-completion.sh >$@.tmp && mv $@.tmp $@

$(B)/filters $(B)/bin $(B)/tests:
	@mkdir -p $@

# The headers of the packages, found before anything is compiled, or one
# message that names the missing packages and the command that installs them.
BUILD_HEADERS := jsmn.h=libjsmn-dev pcre2.h=libpcre2-dev openssl/evp.h=libssl-dev \
	microhttpd.h=libmicrohttpd-dev \
	$(if $(filter isal,$(GZIP)),isa-l.h=libisal-dev,zlib.h=zlib1g-dev)
$(B)/build-deps.ok:
	@CC='$(CC)' CPPFLAGS='$(CPPFLAGS) $(PKG_CFLAGS) $(GZ_CPPFLAGS)' \
		sh scripts/check-build-deps.sh build $(BUILD_HEADERS)
	@mkdir -p $(@D) && touch $@
$(B)/test-deps.ok:
	@CC='$(CC)' CPPFLAGS='$(CPPFLAGS) $(CHECK_CFLAGS)' sh scripts/check-build-deps.sh check check.h=check
	@mkdir -p $(@D) && touch $@

# Missing Debian packages, installed as root (else the command is printed):
# `make deps` everything `make check` uses, the demo and the bench only theirs.
deps:
	@sh scripts/install-deps.sh check

# Check's per-test time limits are guards against a hang, not timing
# assertions: ten times longer, so that a loaded machine cannot fail a test.
# `make unit ONLY='lanes guides'` builds and runs those runners alone
# (check_lanes or lanes); CK_RUN_CASE=NAME narrows a runner to one case.
UNIT_RUN := $(if $(ONLY),$(filter $(addprefix $(B)/tests/check_,$(patsubst check_%,%,$(ONLY))),$(UNIT_BINS)),$(UNIT_BINS))
unit: $(UNIT_RUN)
	@[ -n "$(UNIT_RUN)" ] || { echo "unit: no unit runner named '$(ONLY)' (the runners: $(UNITS))"; exit 2; }
	@failed=; for t in $(UNIT_RUN); do echo "== $$t"; \
		CK_TIMEOUT_MULTIPLIER=10 $$t || failed="$$failed $${t##*/}"; done; \
	[ -z "$$failed" ] || { echo "unit: failed:$$failed"; exit 1; }

# The unit tests once more under AddressSanitizer and UBSan, in their own build tree.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
asan-unit:
	$(MAKE) --no-print-directory B=build-asan CFLAGS='$(ASAN_FLAGS)' LDFLAGS='$(ASAN_FLAGS)' unit

# The end-to-end tests once more with every program built with UBSan alone
# (cheap, unlike ASan, for the pipelines of the e2e suites), in their own
# tree: undefined behaviour (a signed overflow, a NULL to memcpy or qsort)
# stops the program, and its test fails.  The unit tests run under UBSan in
# asan-unit.
UBSAN_B     := build-ubsan
UBSAN_FLAGS := -O1 -g -fsanitize=undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ubsan:
	@$(MAKE) --no-print-directory B=$(UBSAN_B) CFLAGS='$(UBSAN_FLAGS)' LDFLAGS='$(UBSAN_FLAGS)' \
		all $(UBSAN_B)/tests/interrupt_placement.so $(UBSAN_B)/tests/slow_read.so
	@UBSAN_OPTIONS=print_stacktrace=1 sh tests/e2e/run.sh $(UBSAN_B)/bin

# Preloaded by the fault tests into tr-encode to interrupt it between placing
# two outputs (tests/e2e/interrupt_placement.c), and by the progress tests
# to slow the reading of a trace (tests/e2e/slow_read.c).
PRELOADS := $(B)/tests/interrupt_placement.so $(B)/tests/slow_read.so
$(B)/tests/%.so: tests/e2e/%.c | $(B)/tests
	$(call say,CC,$@)$(CC) -std=c11 -Wall -Wextra -Werror -g -O1 -fPIC -shared -o $@ $< -ldl

# t-gzip compares this build's gzip with build-zlib's, when check-zlib made it.
e2e: all $(PRELOADS)
	@GZIP_OTHER_BIN=$$([ -x $(ZLIB_B)/bin/tr-decode ] && cd $(ZLIB_B)/bin && pwd) \
		sh tests/e2e/run.sh $(B)/bin

# The zlib backend as well, in its own tree: the gz unit runner (the same
# expected statuses and offsets as under ISA-L) and the suites that read and
# write gzip.  e2e's t-gzip then compares the two builds input by input.
ZLIB_B := build-zlib
check-zlib:
	@$(MAKE) --no-print-directory B=$(ZLIB_B) GZIP=zlib all $(ZLIB_B)/tests/check_gz
	@echo "== $(ZLIB_B)/tests/check_gz"; CK_TIMEOUT_MULTIPLIER=10 $(ZLIB_B)/tests/check_gz
	@set -e; for s in t-decode t-encode t-hostile; do \
		echo "== $$s with $(ZLIB_B)/bin"; ONLY=$$s sh tests/e2e/run.sh $(ZLIB_B)/bin; done

lint-man:
	@sh scripts/lint-man.sh

# The EXAMPLES of the man pages, run on small generated traces.
man-examples: all
	@sh tests/man-examples.sh $(B)/bin

# Static analysis; each suppression in the sources says why.
lint: lint-man
	@if command -v cppcheck >/dev/null 2>&1; then \
		cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
			--std=c11 --inline-suppr -D_POSIX_C_SOURCE=200809L -Icommon \
			--suppress=missingIncludeSystem common filters tests/unit && \
		echo "cppcheck: clean"; \
	else echo "cppcheck: not installed; skipped"; fi

# The main pipelines once under valgrind memcheck on a small trace.
valgrind: all
	@sh scripts/valgrind-e2e.sh $(B)/bin

# asan-unit takes about seven minutes on one core, most of it LeakSanitizer
# checking each forked test as it exits; ubsan about three and a half (its
# build 15 s of CPU, the e2e suites 190 s, as many as without UBSan: most
# of it is the oracles and the shell).  Both run beside the other steps,
# which use about one core too, each into its own log.  Nothing times
# anything, so the shared machine cannot fail a test.
#
# Each step prints one line of what it checked (deps: the packages of
# `make deps`, installed or named; build: `make all`); its whole output is in
# $(CHECK_DIR)/STEP.log, shown when the step fails (scripts/check-step.sh).
# The last line sums them all: "N passed, N failed, N skipped".  A failure
# stops make by SIGPIPE (exit status 141), the one way it stops without a
# line of its own ("make: *** [check] Error 1") after that verdict.
CHECK_DIR := $(B)/check
STEP      := sh scripts/check-step.sh $(CHECK_DIR)
check:
	@rm -rf $(CHECK_DIR) && mkdir -p $(CHECK_DIR)
	@set +e; stop() { [ "$$(cat /proc/$$PPID/comm 2>/dev/null)" = make ] && kill -PIPE $$PPID; exit 1; }; \
	$(STEP) run deps sh scripts/install-deps.sh check; $(STEP) show deps || { $(STEP) total; stop; }; \
	$(STEP) run build $(MAKE) --no-print-directory all; $(STEP) show build || { $(STEP) total; stop; }; \
	$(STEP) run unit $(MAKE) --no-print-directory unit; $(STEP) show unit; \
	$(STEP) run asan-unit $(MAKE) --no-print-directory asan-unit & asan=$$!; \
	$(STEP) run ubsan $(MAKE) --no-print-directory ubsan & ubsan=$$!; \
	echo "asan-unit, ubsan: running beside the steps below"; \
	for step in lint fuzz-replay valgrind check-zlib man-examples e2e; do \
		$(STEP) run $$step $(MAKE) --no-print-directory $$step; $(STEP) show $$step; \
	done; \
	wait $$asan; $(STEP) show asan-unit; \
	wait $$ubsan; $(STEP) show ubsan; \
	$(STEP) total || stop

demo:
	@sh scripts/install-deps.sh demo
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh $(B)/bin

bench:
	@sh scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory all
	@bash scripts/bench.sh $(B)/bin

# The 10 GB run: the real trace grown to 10000 MiB, one round (about 1 GB of
# disk in BENCH_DIR, and 10 GB while the plain output exists).  Not the
# kineto shape by default: at 10000 MiB (seed 1) one of its pass boundaries
# (3627) is within 5/4 of the anchors' rhythm and tr-select-anchors refuses
# the selection; BENCH_SHAPES=kineto runs it anyway.
bench-10g:
	@sh scripts/install-deps.sh bench
	@$(MAKE) --no-print-directory all
	@BENCH_MB=10000 BENCH_SHAPES="$${BENCH_SHAPES:-real}" BENCH_ROUNDS=$${BENCH_ROUNDS:-1} \
		BENCH_PART=throughput BENCH_PEERS=0 bash scripts/bench.sh $(B)/bin

# libFuzzer targets (tests/fuzz/): `make fuzz FUZZ_SECONDS=N` builds them with
# clang into build-fuzz/ and runs each for N seconds on a scratch copy of its
# seed corpus (crashes land in build-fuzz/crashes/TARGET/); `make fuzz-replay`
# builds them with a plain main and replays the corpus and the regressions
# under ASan and UBSan (part of `make check`).
FUZZ_TARGETS := fuzz_decode fuzz_stream fuzz_encode fuzz_tsnum
FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_COMMON  := $(patsubst %,common/%.c,core/buf core/io core/reader core/blockq core/writer json/scan json/json json/tsnum stream/stream stream/decode stream/encode json/event stream/trstream)
# Small read blocks: 4 MiB buffers per input would make each run slow, and
# small ones put block boundaries inside every value.
FUZZ_BLOCKS  := -DSCAN_BLOCK=4096 -DIO_BLOCK=4096 -DIO_WRITE_BLOCK=4096
FUZZ_FLAGS   := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer $(FUZZ_BLOCKS)
REPLAY_FLAGS := -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer $(FUZZ_BLOCKS)
FUZZ_MAX_LEN_fuzz_decode := 16384
FUZZ_MAX_LEN_fuzz_stream := 16384
FUZZ_MAX_LEN_fuzz_encode := 16384
FUZZ_MAX_LEN_fuzz_tsnum  := 1024

build-fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_COMMON) common/*/*.h tests/*.h
	@mkdir -p build-fuzz
	$(call say,CC,$@)$(FUZZ_CC) $(FUZZ_FLAGS) -std=c11 -Wall -Wextra $(CPPFLAGS) $(PKG_CFLAGS) -o $@ \
		$< $(FUZZ_COMMON) $(PKG_LIBS)

build-fuzz/replay/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/replay_main.c $(FUZZ_COMMON) common/*/*.h tests/*.h
	@mkdir -p build-fuzz/replay
	$(call say,CC,$@)$(CC) $(REPLAY_FLAGS) $(CFLAGS) $(CPPFLAGS) $(PKG_CFLAGS) -o $@ \
		$< tests/fuzz/replay_main.c $(FUZZ_COMMON) $(PKG_LIBS)

# the binaries are intermediate files of fuzz-run-%: keep them
.SECONDARY: $(FUZZ_TARGETS:%=build-fuzz/%)

fuzz: $(FUZZ_TARGETS:%=fuzz-run-%)

fuzz-run-%: build-fuzz/%
	@rm -rf build-fuzz/corpus/$* build-fuzz/crashes/$*
	@mkdir -p build-fuzz/corpus/$* build-fuzz/crashes/$*
	@cp tests/fuzz/corpus/$*/* build-fuzz/corpus/$*/
	@echo "== $* for $(FUZZ_SECONDS) s (log: build-fuzz/$*.log)"
	@rc=0; build-fuzz/$* -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
		-max_len=$(FUZZ_MAX_LEN_$*) -timeout=20 -rss_limit_mb=4096 \
		-dict=tests/fuzz/$*.dict -artifact_prefix=build-fuzz/crashes/$*/ \
		build-fuzz/corpus/$* $(wildcard tests/fuzz/regressions/$*) \
		>build-fuzz/$*.log 2>&1 || rc=$$?; \
	grep -E '^#[0-9]+ +DONE|^Done [0-9]+ runs|^stat::number_of_executed_units|ERROR|property failed|runtime error' \
		build-fuzz/$*.log || true; \
	if [ $$rc -ne 0 ]; then echo "$*: crash saved in build-fuzz/crashes/$*/"; exit 1; fi

fuzz-replay: $(FUZZ_TARGETS:%=build-fuzz/replay/%)
	@set -e; for t in $(FUZZ_TARGETS); do \
		find tests/fuzz/corpus/$$t tests/fuzz/regressions/$$t -type f ! -name README \
			-print0 2>/dev/null | xargs -0 build-fuzz/replay/$$t; \
	done

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(DATADIR) $(DESTDIR)$(BASHCOMPDIR) \
		$(DESTDIR)$(DOCDIR)
	install -m 0755 $(BINS) $(SCRIPTS:%=scripts/%) $(DESTDIR)$(BINDIR)/
	install -m 0644 scripts/tr-common.sh $(DESTDIR)$(DATADIR)/
	install -m 0755 scripts/tr-ranks.sbatch $(DESTDIR)$(DATADIR)/
	install -m 0644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 man/*.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 man/*.7 $(DESTDIR)$(MANDIR)/man7/
	install -m 0644 $(COMPLETION) $(DESTDIR)$(BASHCOMPDIR)/trace-layers
	for c in $(PROGS) $(SCRIPTS); do ln -sf trace-layers $(DESTDIR)$(BASHCOMPDIR)/$$c || exit 2; done
	install -m 0644 README.md LICENSE CHANGELOG.md $(DESTDIR)$(DOCDIR)/

uninstall:
	cd $(DESTDIR)$(BINDIR) && rm -f $(PROGS) $(SCRIPTS)
	rm -f $(DESTDIR)$(DATADIR)/tr-common.sh $(DESTDIR)$(DATADIR)/tr-ranks.sbatch
	-rmdir $(DESTDIR)$(DATADIR)
	cd $(DESTDIR)$(MANDIR) && rm -f $(PROGS:%=man1/%.1) $(SCRIPTS:%=man1/%.1) \
		man5/tr-stream.5 man7/tr-layer-track.7
	cd $(DESTDIR)$(BASHCOMPDIR) && rm -f trace-layers $(PROGS) $(SCRIPTS)
	rm -f $(DESTDIR)$(DOCDIR)/README.md $(DESTDIR)$(DOCDIR)/LICENSE $(DESTDIR)$(DOCDIR)/CHANGELOG.md
	-rmdir $(DESTDIR)$(DOCDIR)

clean:
	rm -rf build build-asan build-fuzz build-zlib build-ubsan
