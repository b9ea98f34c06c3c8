# Forge: the learner's and the instructor's interface. `make help` lists
# the targets; every one of them is a thin wrapper around cmd/forge.

GO          ?= go
TOOLS       := $(CURDIR)/.tools/bin
# forge is rebuilt before every use (the build cache makes that instant), so
# it is never stale and its exit status reaches make unchanged.
FORGE       := $(TOOLS)/forge
STATICCHECK := $(TOOLS)/staticcheck
# staticcheck 2026.2.2, the first release that understands Go 1.26.
STATICCHECK_VERSION := v0.8.2

# Which implementation to grade: mine (your unitNN/ files), ref (solutions/)
# or a folder that mirrors solutions/. DEPS picks the units it depends on
# (default: the same as IMPL). RUN filters tests by name; V=1 shows output.
IMPL ?= mine
DEPS ?=
RUN  ?=
V    ?=
# make hint UNIT=01 CH=1.3
UNIT ?=
CH   ?=

SELECT := --impl '$(IMPL)' $(if $(DEPS),--deps '$(DEPS)')
# The engine is built from the reference unless IMPL or DEPS is given:
# `make engine DEPS=auto` builds it from your units where their tests pass
# and the reference elsewhere, `make engine DEPS=ref:03,09` from yours but
# units 03 and 09.
ENGINE_IMPL := $(if $(filter command line environment,$(origin IMPL)),$(IMPL),$(if $(DEPS),mine,ref))

UNITS        := 00 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15
UNIT_TARGETS := $(addprefix unit,$(UNITS))
BOSS_TARGETS := $(addprefix boss,$(UNITS))

.PHONY: help grade bosses hint measure test mutation engine demo fmt lint tools qemu clean forge bench-openblas bench-llamacpp $(UNIT_TARGETS) $(BOSS_TARGETS)

help:
	@echo 'Learner:'
	@echo '  make grade                 your progress over every unit (a fresh clone is all TODO: the starting line)'
	@echo '  make unit01 [RUN=C1_3] [V=1]  grade one unit challenge by challenge'
	@echo '  make boss01                measure the unit'"'"'s boss against its bar'
	@echo '  make hint UNIT=01 CH=1.3   the next hint of a challenge'
	@echo 'Instructor:'
	@echo '  make unit01 IMPL=ref       grade the reference solution'
	@echo '  make unit05 DEPS=ref       your unit05 on top of the reference units 00-04'
	@echo '  make unit05 DEPS=auto      ... on your units where their tests pass, the reference elsewhere'
	@echo '  make unit05 DEPS=ref:03,04 ... on your units but 03 and 04'
	@echo '  make unit01 IMPL=DIR       grade a folder that mirrors solutions/ (a student'"'"'s submission)'
	@echo '  make bosses IMPL=ref       every boss figure against its bar'
	@echo '  make measure UNIT=05       the measurements behind the figures of docs/unit05.md (BENCH=, PROFILE=)'
	@echo 'Project:'
	@echo '  make test                  everything CI checks; closes with "make test: N passed, M failed"'
	@echo '  make mutation [UNIT=05] [SAMPLE=N]  mechanical mutants of the reference: score and survivors'
	@echo '  make demo                  build the engine and run it on a tiny synthetic model'
	@echo '  make engine                build bin/llm (from IMPL, default ref)'
	@echo '  make bench-openblas        the reference GEMM against OpenBLAS on this machine'
	@echo '  make bench-llamacpp        the engine against llama.cpp, prefill and decode tok/s (needs node; D=0,1024,4096 at depth)'
	@echo '  make ptx [CU=unit15]       the CUDA C kernels (internal/cuda/kernels) to PTX, with ptxas'"'"'s registers and checksums (needs nvcc: ci/cuda/install-toolkit.sh)'
	@echo '  make ptx-check             rebuild the PTX in a temporary folder and compare it with the committed files; run unit15'"'"'s twins on the CPU against the Go kernels'
	@echo '  make fmt | make lint | make tools'

forge:
	@$(GO) build -o $(FORGE) ./cmd/forge

$(UNIT_TARGETS): unit%: forge
	@$(FORGE) grade $* $(SELECT) $(if $(RUN),--run '$(RUN)') $(if $(V),-v)

$(BOSS_TARGETS): boss%: forge
	@$(FORGE) boss $* $(SELECT) $(if $(V),-v)

grade: forge
	@$(FORGE) progress $(SELECT)

bosses: forge
	@$(FORGE) boss $(SELECT) $(if $(V),-v)

hint: forge
	@$(if $(and $(UNIT),$(CH)),$(FORGE) hint $(UNIT) $(CH),echo 'usage: make hint UNIT=01 CH=1.3' >&2; exit 2)

# The measurements behind the figures of a unit's text, on the reference
# (or IMPL=mine, DEPS=...): the unit's BenchmarkMeasureN_* benchmarks, which
# the grader never runs. BENCH narrows them (BENCH=Measure7_Step), COUNT
# repeats them, BENCHTIME sets each one's time (or 20x for 20 runs), PROFILE
# writes a CPU profile for go tool pprof. Timings are this machine's.
BENCH     ?= Measure
COUNT     ?= 1
BENCHTIME ?= 1s
PROFILE   ?=
measure: forge
	@$(if $(UNIT),:,echo 'usage: make measure UNIT=05 [BENCH=Measure5_Forward] [COUNT=3] [BENCHTIME=20x] [PROFILE=cpu.out]' >&2; exit 2)
	$(GO) test -overlay "$$($(FORGE) overlay --impl '$(ENGINE_IMPL)' $(if $(DEPS),--deps '$(DEPS)'))" -run '^$$' \
		-bench '$(BENCH)' -benchtime '$(BENCHTIME)' -count '$(COUNT)' $(if $(PROFILE),-cpuprofile '$(abspath $(PROFILE))') ./unit$(UNIT)

# The CI entry point (.ci/run calls it) and the README's test command.
test: tools forge
	@$(FORGE) ci --staticcheck $(STATICCHECK)

# Mechanical mutation testing of the reference solutions (every written
# unit unless UNIT is given): the score per unit, bar 90%, and each survivor
# with file:line. SAMPLE=N grades a deterministic sample of N per unit
# (SEED=S picks another); J=N mutants at once (default: one per CPU).
SAMPLE ?=
SEED   ?=
J      ?=
mutation: forge
	@$(FORGE) mutation $(UNIT) $(if $(SAMPLE),--sample $(SAMPLE)) $(if $(SEED),--seed $(SEED)) $(if $(J),-j $(J))

engine: forge
	@mkdir -p bin
	$(GO) build -overlay "$$($(FORGE) overlay --impl '$(ENGINE_IMPL)' $(if $(DEPS),--deps '$(DEPS)'))" -o bin/llm ./cmd/llm
	@echo "built bin/llm from impl $(ENGINE_IMPL)$(if $(DEPS), deps $(DEPS))"

# The engine's first run, offline: a tiny model of random weights (so its
# text is word salad), a streamed generation with its speed, and a short
# llama-bench style measurement. README.md's "Run a real model" goes on.
demo: engine
	@bin/llm gen --shape tiny --type q8_0 --vocab gpt2 --seed 1 -o bin/demo.gguf
	@echo
	@bin/llm run -m bin/demo.gguf -p 'Once upon a time' -n 48 --seed 1
	@echo
	@bin/llm bench -m bin/demo.gguf -p 128 -n 32 -r 3
	@echo
	@echo 'Random weights write word salad. For real text, see "Run a real model" in README.md;'
	@echo 'bin/llm help lists the commands, docs/engine.md is the guide.'

# The engine against llama.cpp (its prebuilt CPU build, through the
# node-llama-cpp npm package) on a TinyLlama-shaped Q4_0 file, 1 and 2
# threads, prefill and decode: a measurement for a quiet machine, not a
# gate. See ci/llamabench/README.md.
bench-llamacpp:
	@ci/llamabench/run.sh

# The reference GEMM against OpenBLAS's sgemm on this machine (needs cgo and
# Debian's libopenblas-dev, which it installs when it can). Not part of make
# test: it is a measurement, not a gate.
bench-openblas: forge
	@if [ ! -e /usr/include/x86_64-linux-gnu/cblas.h ] && [ ! -e /usr/include/cblas.h ]; then \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libopenblas-dev >/dev/null; \
		else sudo apt-get install -y -qq libopenblas-dev >/dev/null; fi; \
	fi
	$(GO) run -tags openblas -overlay "$$($(FORGE) overlay --impl '$(ENGINE_IMPL)')" ./ci/openblas
	@echo; echo 'Again with OpenBLAS forced onto its AVX-512 kernels (OPENBLAS_CORETYPE=SkylakeX):'
	OPENBLAS_CORETYPE=SkylakeX $(GO) run -tags openblas -overlay "$$($(FORGE) overlay --impl '$(ENGINE_IMPL)')" ./ci/openblas

# The CUDA C sources of internal/cuda/kernels to the PTX that Go embeds
# (compute_80, which the driver compiles for any GPU of compute capability
# 8.0 or later), with ptxas's figures per kernel for sm_80 and sm_89 and a
# checksum manifest per source: see ci/cuda/ptx.sh. Only these targets need
# the CUDA toolkit; ci/cuda/install-toolkit.sh installs it. CU=unit15
# rebuilds that source only.
CU ?=
.PHONY: ptx ptx-check
ptx:
	@ci/cuda/ptx.sh build $(CU)

ptx-check:
	@ci/cuda/ptx.sh check

fmt:
	gofmt -w $$(git ls-files '*.go')

lint: $(STATICCHECK) forge
	@$(FORGE) ci --staticcheck $(STATICCHECK) --only 'gofmt|go vet|staticcheck'

# Tools the checks need, installed by the project itself at pinned versions:
# staticcheck from the Go module proxy, and qemu-user from Debian for the
# arm64 test run (not needed on an arm64 machine).
tools: $(STATICCHECK) qemu

$(STATICCHECK):
	GOBIN=$(TOOLS) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

qemu:
	@if [ "$$($(GO) env GOHOSTARCH)" = arm64 ] || command -v qemu-aarch64 >/dev/null 2>&1; then :; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
		echo 'note: qemu-aarch64 is missing and there is no apt-get: the arm64 test step will fail'; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo 'installing qemu-user (Debian) for the arm64 tests...'; \
		apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null; \
	elif command -v sudo >/dev/null 2>&1; then \
		echo 'installing qemu-user (Debian) for the arm64 tests, with sudo...'; \
		sudo apt-get update -qq >/dev/null && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null; \
	else \
		echo 'note: qemu-aarch64 is missing and this user cannot install it: the arm64 test step will fail'; \
	fi

clean:
	rm -rf bin .forge
