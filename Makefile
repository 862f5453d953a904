# The two commands in README.md. Both install the C libraries they need when missing.
SWIFT ?= swift
SHELL := /bin/bash
BIN := .build/debug

.PHONY: book test build deps serve verify bench fuzz docs tsan clean browser-test stress

deps:
	@./scripts/install-deps.sh

build: deps
	@echo "==> Building OpenCoreData, the macros and the workbook tool (swift build)"
	@$(SWIFT) build

# Runs every chapter (results cached in .build/workbook-cache) and renders book/.
book: build
	@echo "==> Running every chapter and rendering the book"
	@$(BIN)/workbook build
	@echo "==> Open file://$(CURDIR)/book/index.html"

# Unit tests of every library, and ChapterTests, which verifies every chapter.
# The tests are XCTest; the Swift Testing runner would only add an empty "0 tests" run.
test: build
	@echo "==> Running unit tests and verifying every chapter (swift test)"
	@$(SWIFT) test --disable-swift-testing 2>&1 | tee .build/test.log; exit $${PIPESTATUS[0]}
	@# One plain closing line with the totals of the last XCTest summary.
	@awk '/Executed [0-9]+ tests?, with [0-9]+ failures/ { match($$0, /Executed [0-9]+/); n = substr($$0, RSTART + 9, RLENGTH - 9); \
	  match($$0, /with [0-9]+/); f = substr($$0, RSTART + 5, RLENGTH - 5) } \
	  END { if (n != "") print "tests: " n - f " passed, " f " failed" }' .build/test.log

# Drives a headless Chromium (Debian's, installed when missing) over the freshly built book
# and over `workbook serve`; screenshots of every page go to .build/screenshots.
browser-test: book
	@./scripts/install-deps.sh --browser
	@echo "==> Testing the book in headless Chromium (Tests/Browser/book_test.py)"
	@/usr/bin/python3 Tests/Browser/book_test.py book $(BIN)/workbook $(BIN) .build/screenshots

# Fuzzes the predicate parser with libFuzzer for FUZZ_SECONDS (CI runs it before `make test`).
FUZZ_SECONDS ?= 30
fuzz:
	@echo "==> Fuzzing the predicate format-string parser for $(FUZZ_SECONDS) s"
	@scripts/fuzz-predicates.sh $(FUZZ_SECONDS)
	@echo "==> Fuzzing the workbook's chapter parser and output matcher for $(FUZZ_SECONDS) s each"
	@scripts/fuzz-workbook.sh $(FUZZ_SECONDS)

# The API reference: checks that every public symbol has a /// summary, then builds
# Sources/OpenCoreData/OpenCoreData.docc with the toolchain's docc into
# .build/docs/OpenCoreData.doccarchive.
docs: build
	@SWIFT=$(SWIFT) scripts/build-docs.sh

# The tests of contexts working on several queues at once, under ThreadSanitizer, in
# their own build directory (a sanitized build shares nothing with .build). The build is
# the library-only manifest (OPENCOREDATA_LIBRARY_ONLY=1 in Package.swift): the library,
# its macros and its tests, without the workbook, its swift-syntax parser and the macro
# tests, which would make SwiftPM compile swift-syntax and every test target twice.
# .ci/run runs it last; it is the largest part of CI after the first build (see the README
# for the measured total).
TSAN_TESTS ?= ParentContextTests|NestedQueueTests|ConcurrencyDebugTests|MergingTests|ContextQueueTests|ConcurrentContextsStressTests|RegistryLifetimeTests|TwoCoordinatorsTests|StoreKindTests|QueryGenerationConcurrencyTests|RemoteChangeNotificationTests
tsan: deps
	@echo "==> Running the concurrency tests under ThreadSanitizer (swift test --sanitize=thread)"
	@OPENCOREDATA_LIBRARY_ONLY=1 TSAN_OPTIONS="halt_on_error=1 $${TSAN_OPTIONS:-}" \
	  $(SWIFT) test --sanitize=thread --scratch-path .build-tsan \
	  --disable-swift-testing --filter '$(TSAN_TESTS)'

# The crash tests at full strength: the writer process is killed with SIGKILL 1,000 times
# without persistent history and 1,000 times with history and upserts of constrained rows
# (make test kills it 20 times each).
# Measured on the team's shared 2-core machine: 9 min 3 s once built (README.md).
STRESS_KILLS ?= 1000
stress: build
	@echo "==> Killing the crash-test writer $(STRESS_KILLS) times, without and with history and constraints (CrashTests)"
	@CRASH_KILLS=$(STRESS_KILLS) $(SWIFT) test --disable-swift-testing --filter CrashTests

verify: build
	@$(BIN)/workbook verify

serve: build
	@$(BIN)/workbook serve

bench: build
	@Benchmarks/workbook/bench.sh

clean:
	rm -rf .build .build-tsan book/*.html book/assets
