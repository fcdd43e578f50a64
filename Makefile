# Understudy: `make run` serves the shipped stubs, `make test` runs every test, `make bench`
# measures the server against a minimal C libevent server, `make fuzz` runs the libFuzzer targets in
# fuzz/ (docs/fuzzing.md). Each installs what it needs first.
SWIFT ?= swift
# `swift test` with a time limit that names the tests still running when it passes (minutes first).
BOUNDED := python3 tools/bounded-swift-test.py
PORT ?= 8080
BIND ?= 127.0.0.1
STUBS ?= stubs
BASELINE := .build/bench/c-baseline
# The WebSocket echo server of our own and the load client that drives both (bench/channels.py).
WS_ECHO := .build/bench/c-websocket-echo
WS_LOAD := .build/bench/ws-load
VENV := .build/venv

.PHONY: run test test-fast lint test-tsan soak bench build release install deps bench-deps clean fuzz fuzz-build fuzz-smoke image test-image

deps:
	@tools/install-deps.sh build

bench-deps:
	@tools/install-deps.sh bench

build: deps
	$(SWIFT) build

# On Linux the Swift runtime and Foundation are linked into the binary (a start then loads a few
# system libraries instead of some thirty) and its code is laid out by use, so that fewer of its
# pages are mapped: tools/release-flags.sh and docs/performance.md.
RELEASE_FLAGS := $(shell SWIFT=$(SWIFT) tools/release-flags.sh)

release: deps
	@# SwiftPM does not know the files the flags name: a newer one relinks.
	@if [ -e .build/release/understudy ] && [ -n "$$(find tools/link .build/jemalloc .build/libxml2 -newer .build/release/understudy 2>/dev/null)" ]; then \
		rm -f "$$(readlink -f .build/release/understudy)"; fi
	$(SWIFT) build -c release --product understudy $(RELEASE_FLAGS)

run: release
	.build/release/understudy serve --port $(PORT) --bind $(BIND) --stubs $(STUBS)

# `understudy` on PATH, as the docs write it: the release binary into $(DESTDIR)$(PREFIX)/bin.
PREFIX ?= /usr/local
install: release
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 .build/release/understudy $(DESTDIR)$(PREFIX)/bin/understudy
	@# The dashboard's files, which the executable looks for beside itself.
	rm -rf $(DESTDIR)$(PREFIX)/bin/Understudy_MockCore.resources
	cp -R .build/release/Understudy_MockCore.resources $(DESTDIR)$(PREFIX)/bin/
	@echo "installed $(DESTDIR)$(PREFIX)/bin/understudy (and its dashboard, Understudy_MockCore.resources, beside it)"

# Python clients (the official WireMock client, geopy, googlemaps) and the storefront in headless Chromium
# (Selenium) against the built server, then the Swift suite, then a short pass of every fuzz target
# over its committed corpus (fuzz-smoke, about 2 minutes with its build).
test: deps $(VENV)/ok lint
	$(SWIFT) build --product understudy
	@# A Python test still running after 10 minutes (the slowest takes about 30 s) fails, named, with its stack.
	$(VENV)/bin/python -m pytest -q --timeout=600 Tests/python
	$(SWIFT) build --build-tests
	@# The in-memory suites in their lane (test-fast's), where a socket or child process is refused; then the rest.
	@# Each lane takes under a minute here; past its bound, a hung test ends the run and is named.
	UNDERSTUDY_TEST_LANE=in-memory $(BOUNDED) 10 -- $(SWIFT) test --skip-build --filter "$$(python3 tools/in-memory-tests.py)"
	$(BOUNDED) 15 -- $(SWIFT) test --skip-build --skip "$$(python3 tools/in-memory-tests.py)"
	@if [ "$$(uname)" = Linux ]; then $(MAKE) fuzz-smoke; \
	else echo "fuzz-smoke skipped: libFuzzer ships with the Swift toolchain on Linux only"; fi

# The tree as .swift-format wants it (`swift format format -i -r Sources Tests fuzz Package.swift` fixes most).
lint:
	$(SWIFT) format lint --strict --recursive --parallel Sources Tests fuzz Package.swift
	python3 tools/check-imports.py
	python3 tools/check-layers.py

# The quick lane, for the edit-build-test loop: lint and the Swift suites that need no socket, child
# process or server (tools/in-memory-tests.py picks them by what their files use; in this lane the
# test helpers that open sockets or start processes refuse, so none hides behind a helper). `make test`,
# which CI runs, runs everything.
test-fast: deps lint
	$(SWIFT) build --build-tests
	UNDERSTUDY_TEST_LANE=in-memory $(BOUNDED) 10 -- $(SWIFT) test --skip-build --filter "$$(python3 tools/in-memory-tests.py)"

# The Swift suite under ThreadSanitizer, in a build folder of its own (it rebuilds everything).
test-tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan

$(VENV)/ok: tools/install-deps.sh Makefile
	@tools/install-deps.sh python
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check wiremock==2.7.0 geopy==2.4.1 googlemaps==4.10.0 selenium==4.25.0 prometheus-client==0.21.1 pytest pytest-xdist==3.8.0 pytest-timeout==2.4.0 requests jsonschema==4.23.0 kubernetes-validate==1.37.0 websockets==15.0.1 mcp==2.3.0 graphql-core==3.2.6 haralyzer==2.4.0 schemathesis==4.32.5
	# The OpenAPI Initiative's example documents, as this sdist carries them (Tests/python/test_openapi_contracts.py).
	rm -rf $(VENV)/oai-examples && mkdir -p $(VENV)/oai-examples
	$(VENV)/bin/pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: sphinxcontrib-openapi==0.10.0 -d $(VENV)/oai-examples
	tar -xzf $(VENV)/oai-examples/sphinxcontrib_openapi-0.10.0.tar.gz -C $(VENV)/oai-examples
	@touch $@

$(BASELINE): bench/c-baseline.c
	@mkdir -p $(dir $@)
	cc -O2 -Wall -o $@ $< $$(pkg-config --cflags --libs libevent) -lpthread

$(WS_ECHO) $(WS_LOAD): .build/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	cc -O2 -Wall -o $@ $< $$(pkg-config --cflags --libs libevent libcrypto) -lpthread

bench: bench-deps release $(BASELINE) $(WS_ECHO) $(WS_LOAD)
	python3 bench/run.py $(BENCH_ARGS)

# The container image `understudy` (docker/Dockerfile): docker build where a Docker engine runs, else
# podman/buildah with a base image made offline and the release binary (tools/image.sh, README's Docker).
image:
	@tools/image.sh

# Runs the image and checks it: healthy, slim (at most 150 MB, one ICU, no shell or curl), not root,
# stubs and XML served, admin token wanted, SIGTERM exits 0.
test-image:
	@tools/test-image.sh

# Every emulator route and a stub under load (60 s x 256 connections each): errors and memory.
soak: bench-deps release
	python3 bench/soak.py $(SOAK_ARGS)

# Fuzzing (Linux): one libFuzzer binary per parser of client bytes, built with -sanitize=fuzzer,address
# in a scratch path of its own. `make fuzz` runs each for FUZZ_SECONDS, growing a corpus under
# $(FUZZ_BUILD) from the committed seeds in fuzz/corpus/; crashing inputs land in
# $(FUZZ_BUILD)/artifacts/. `make fuzz-smoke` replays every committed input and fuzzes each target
# for FUZZ_SMOKE_SECONDS: a regression fails the build. FUZZ_TARGETS picks targets.
FUZZ_BUILD := .build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 5
# Leak detection is off: Swift keeps enum tags in the spare bits of pointers, which LeakSanitizer
# cannot follow, so values held in globals are reported as leaked.
FUZZ_FLAGS ?= -timeout=10 -rss_limit_mb=2048 -detect_leaks=0
# Swift's own crash backtracer is off while fuzzing: next to ASan it can hang; libFuzzer prints
# the stack of a trap (deadly signal) itself.
FUZZ_TARGETS ?= $(sort $(notdir $(wildcard fuzz/Sources/fuzz-*)))

fuzz-build: deps
	cd fuzz && $(SWIFT) build -c release --scratch-path ../$(FUZZ_BUILD) \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing

fuzz: fuzz-build
	@mkdir -p $(FUZZ_BUILD)/artifacts
	@set -e; bin=$$(cd fuzz && $(SWIFT) build -c release --scratch-path ../$(FUZZ_BUILD) --show-bin-path); \
	for target in $(FUZZ_TARGETS); do \
		echo "== $$target: $(FUZZ_SECONDS)s"; mkdir -p $(FUZZ_BUILD)/corpus/$$target; \
		SWIFT_BACKTRACE=enable=no $$bin/$$target $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) \
			-artifact_prefix=$(FUZZ_BUILD)/artifacts/$$target- \
			$(FUZZ_BUILD)/corpus/$$target fuzz/corpus/$$target; \
	done

fuzz-smoke: fuzz-build
	@mkdir -p $(FUZZ_BUILD)/artifacts
	@set -e; bin=$$(cd fuzz && $(SWIFT) build -c release --scratch-path ../$(FUZZ_BUILD) --show-bin-path); \
	for target in $(FUZZ_TARGETS); do \
		echo "== $$target: the committed corpus, then $(FUZZ_SMOKE_SECONDS)s"; \
		scratch=$$(mktemp -d); \
		SWIFT_BACKTRACE=enable=no $$bin/$$target $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SMOKE_SECONDS) \
			-artifact_prefix=$(FUZZ_BUILD)/artifacts/$$target- $$scratch fuzz/corpus/$$target \
			|| { rm -rf $$scratch; echo "fuzz-smoke: $$target failed; the input is in $(FUZZ_BUILD)/artifacts/"; exit 1; }; \
		rm -rf $$scratch; \
	done

clean:
	rm -rf .build .build-tsan $(FUZZ_BUILD)
