# The two commands in README.md. Both install the C libraries they need when missing.
SWIFT ?= swift
BIN := .build/debug

.PHONY: book test build deps serve verify bench fuzz clean

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
test: build
	@echo "==> Running unit tests and verifying every chapter (swift test)"
	@$(SWIFT) test

# Fuzzes the predicate parser with libFuzzer for FUZZ_SECONDS (CI runs it after `make test`).
FUZZ_SECONDS ?= 30
fuzz:
	@echo "==> Fuzzing the predicate format-string parser for $(FUZZ_SECONDS) s"
	@scripts/fuzz-predicates.sh $(FUZZ_SECONDS)

verify: build
	@$(BIN)/workbook verify

serve: build
	@$(BIN)/workbook serve

bench: build
	@Benchmarks/workbook/bench.sh

clean:
	rm -rf .build book/*.html book/assets
