# The two commands in README.md. Both install the C libraries they need when missing.
SWIFT ?= swift
BIN := .build/debug

.PHONY: book test build deps serve clean

deps:
	@./scripts/install-deps.sh

build: deps
	@echo "==> Building OpenCoreData, the macros and the workbook tool"
	@$(SWIFT) build

book: build
	@echo "==> Running every chapter and rendering the book"
	@$(BIN)/workbook build
	@echo "==> Open file://$(CURDIR)/book/index.html"

test: build
	@echo "==> Running unit tests and verifying every chapter"
	@$(SWIFT) test

serve: build
	@$(BIN)/workbook serve

clean:
	rm -rf .build book/*.html book/assets
