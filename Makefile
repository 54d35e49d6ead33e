# trace-layers: small Unix filters for PyTorch profiler (Kineto) Chrome JSON traces.
# Plain GNU make.  `make` builds, `make check` tests, `make demo` runs the main job,
# `make bench` measures.  Missing Debian packages are installed by scripts/install-deps.sh.

VERSION := $(shell cat VERSION)
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=

CC      ?= cc
CFLAGS  ?= -O2 -g
WERROR  ?= -Werror
# Warnings are forced on so that a user CFLAGS cannot drop them.
override CFLAGS += -std=c11 -Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wvla $(WERROR)
override CPPFLAGS += -D_POSIX_C_SOURCE=200809L -D_FILE_OFFSET_BITS=64 -Icommon \
	-DTR_VERSION='"$(VERSION)"'

# Object directory: `make B=build-asan CFLAGS=...` gives a separate sanitizer build.
B ?= build

PKGS       := zlib libcrypto libpcre2-8
PKG_CFLAGS  = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS    = $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lz -lcrypto -lpcre2-8) -lm
CHECK_CFLAGS = $(shell pkg-config --cflags check 2>/dev/null)
CHECK_LIBS   = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lm -pthread)

PROGS   := tr-decode tr-encode tr-gen tr-select-anchors tr-guides tr-compact tr-verify tr-survey tr-serve
SCRIPTS := tr-layer-track tr-compact-track
COMMON  := diag buf io opt source jsonscan json tsnum stream outfile decode regex event filter intern
UNITS   := buf io jsonscan json tsnum stream decode opt outfile

COMMON_OBJS := $(COMMON:%=$(B)/common/%.o)
LIB         := $(B)/libtrcommon.a
BINS        := $(PROGS:%=$(B)/bin/%)
UNIT_BINS   := $(UNITS:%=$(B)/tests/check_%)

.PHONY: all deps check unit e2e asan-unit lint-man demo bench install uninstall clean fuzz
all: $(BINS)

$(B)/common/%.o: common/%.c common/*.h | $(B)/common
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/filters/%.o: filters/%.c common/*.h | $(B)/filters
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c -o $@ $<

$(LIB): $(COMMON_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

$(BINS): $(B)/bin/%: $(B)/filters/%.o $(LIB) | $(B)/bin
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(B)/tests/check_%: tests/unit/check_%.c $(LIB) | $(B)/tests
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CHECK_CFLAGS) $(CFLAGS) -Wno-conversion $(LDFLAGS) \
		-o $@ $< $(LIB) $(CHECK_LIBS) $(PKG_LIBS)

$(B)/common $(B)/filters $(B)/bin $(B)/tests:
	mkdir -p $@

deps:
	@sh scripts/install-deps.sh

unit: $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; $$t; done

# The unit tests once more under AddressSanitizer and UBSan, in their own build tree.
ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
asan-unit:
	$(MAKE) --no-print-directory B=build-asan CFLAGS='$(ASAN_FLAGS)' LDFLAGS='$(ASAN_FLAGS)' unit

e2e: all
	@sh tests/e2e/run.sh $(B)/bin

lint-man:
	@sh scripts/lint-man.sh

check: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory asan-unit
	@$(MAKE) --no-print-directory lint-man
	@$(MAKE) --no-print-directory e2e

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh $(B)/bin

bench: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/bench.sh $(B)/bin

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man7
	install -m 0755 $(BINS) $(SCRIPTS:%=scripts/%) $(DESTDIR)$(BINDIR)/
	install -m 0644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 man/*.5 $(DESTDIR)$(MANDIR)/man5/
	if ls man/*.7 >/dev/null 2>&1; then install -m 0644 man/*.7 $(DESTDIR)$(MANDIR)/man7/; fi

uninstall:
	cd $(DESTDIR)$(BINDIR) && rm -f $(PROGS) $(SCRIPTS)
	cd $(DESTDIR)$(MANDIR) && rm -f $(PROGS:%=man1/%.1) $(SCRIPTS:%=man1/%.1) man5/tr-stream.5

clean:
	rm -rf build build-asan build-fuzz
