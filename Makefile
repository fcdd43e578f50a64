# Understudy: `make run` serves the shipped stubs, `make test` runs every test, `make bench`
# measures the server against a minimal C libevent server. Each installs what it needs first.
SWIFT ?= swift
PORT ?= 8080
BIND ?= 127.0.0.1
STUBS ?= stubs
BASELINE := .build/bench/c-baseline
VENV := .build/venv

.PHONY: run test test-tsan soak bench build release deps bench-deps clean

deps:
	@tools/install-deps.sh build

bench-deps:
	@tools/install-deps.sh bench

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product understudy

run: release
	.build/release/understudy serve --port $(PORT) --bind $(BIND) --stubs $(STUBS)

# Python clients (the official WireMock client, geopy, googlemaps) and the storefront in headless Chromium
# (Selenium) against the built server, then the Swift suite.
test: deps $(VENV)/ok
	$(SWIFT) build --product understudy
	$(VENV)/bin/python -m pytest -q tests/python
	$(SWIFT) test

# The Swift suite under ThreadSanitizer, in a build folder of its own (it rebuilds everything).
test-tsan: deps
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan

$(VENV)/ok: tools/install-deps.sh Makefile
	@tools/install-deps.sh python
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check wiremock==2.7.0 geopy==2.4.1 googlemaps==4.10.0 selenium==4.25.0 pytest requests
	@touch $@

$(BASELINE): bench/c-baseline.c
	@mkdir -p $(dir $@)
	cc -O2 -Wall -o $@ $< $$(pkg-config --cflags --libs libevent) -lpthread

bench: bench-deps release $(BASELINE)
	python3 bench/run.py $(BENCH_ARGS)

# Every emulator route and a stub under load (60 s x 256 connections each): errors and memory.
soak: bench-deps release
	python3 bench/soak.py $(SOAK_ARGS)

clean:
	rm -rf .build .build-tsan
