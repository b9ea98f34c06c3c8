#!/bin/sh
# Checks the CUDA twins of unit15's kernels against the Go kernels without
# a GPU (`make ptx-check` runs it). The twins (internal/cuda/kernels/
# unit15.cu from its last #include to gemm_f16) are compiled for the CPU by
# the host C++ compiler, with AddressSanitizer and UBSan, inside
# ci/cuda/twins.cpp, which stands in for the execution model (a thread per
# CUDA thread, a barrier per block, shared memory and matrices of exactly
# their sizes). ci/cuda/twins/main.go runs the reference Go kernels on the
# emulator and writes the cases; twins.cpp runs the twins on them and
# compares: GEMMs and transposes bit for bit, attention within 1e-5. It
# needs g++ with C++20 (the host compiler nvcc uses) and Go.
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
