#!/bin/sh
# Checks the CUDA twins of unit15's kernels against the Go kernels without
# a GPU (`make ptx-check` runs it). The twins (internal/cuda/kernels/
# unit15.cu from its last #include to gemm_f16) are compiled for the CPU by
# the host C++ compiler, with AddressSanitizer and UBSan, inside
# ci/cuda/twins.cpp, which stands in for the execution model (a thread per
# CUDA thread, a barrier per block, shared memory and matrices of exactly
# their sizes). ci/cuda/twins/main.go runs the reference Go kernels on the
# emulator and writes the cases; twins.cpp runs the twins on them and
# compares: GEMMs and transposes bit for bit, attention within 1e-5.
# Then gemm_f16, on the CPU too (ci/cuda/gemm_f16.cpp), against the
# float64 product. It needs g++ 12 or later (C++20, _Float16) and Go.
set -eu
cu=internal/cuda/kernels/unit15.cu
if ! command -v g++ >/dev/null 2>&1; then
	echo "twins: g++ is not installed (apt-get install g++)" >&2
	exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk 'FNR == NR { if (/^#include/) last = FNR; next }
	FNR <= last { next }
	/^\/\/ gemm_f16:/ { exit }
	!/^extern __shared__ float sh\[\];$/' "$cu" "$cu" >"$tmp/twins.inc"
g++ -std=c++20 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -pthread -Wall -Wno-unknown-pragmas -Wno-parentheses -ffp-contract=off \
	-I"$tmp" -o "$tmp/host" ci/cuda/twins.cpp
go build -o "$tmp/forge" ./cmd/forge
go run -overlay "$("$tmp/forge" overlay --impl ref)" ./ci/cuda/twins -o "$tmp/cases.bin"
"$tmp/host" "$tmp/cases.bin"
# gemm_f16, with a stand-in for WMMA and cp.async (ci/cuda/gemm_f16.cpp).
awk '/^\/\/ gemm_f16:/ { on = 1 } on' "$cu" |
	sed 's|^\textern __shared__ __align__(128) __half smem\[\];$|\t__half *smem = (__half *)sh;|' >"$tmp/f16.inc"
grep -q '__half \*smem = (__half \*)sh;' "$tmp/f16.inc" || { echo "twins: gemm_f16's extern __shared__ line is not the one ci/cuda/twins.sh replaces" >&2; exit 1; }
g++ -std=c++20 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -pthread -Wall -Wno-unknown-pragmas \
	-I"$tmp" -o "$tmp/f16" ci/cuda/gemm_f16.cpp
"$tmp/f16"
