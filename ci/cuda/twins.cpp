// Runs the CUDA twins of unit15's kernels on the CPU and compares what they
// write with what the Go kernels wrote (the cases ci/cuda/twins/main.go
// writes): the check ci/cuda/twins.sh makes without a GPU. It stands in
// for the CUDA execution model only as far as the twins need: a std::thread per CUDA
// thread, the blocks one after another, __syncthreads a std::barrier of
// the block's threads, the dynamic shared memory a buffer of exactly the
// launch's words (filled with NaNs), and every matrix a buffer of exactly
// its size, so that under AddressSanitizer an index past either is an
// error. twins.inc is unit15.cu's twins (everything between its #includes
// and gemm_f16) without its extern __shared__ line, which sh below
// replaces.
//
// GEMMs and transposes must agree bit for bit: the same float32
// operations in the same order. twins.sh compiles with -ffp-contract=off,
// so that no a·b+c becomes an FMA: the Go compiler makes none on amd64 at
// its default GOAMD64=v1 (on arm64 it does, and the GEMMs could then
// differ in their last bits). Flash attention within 1e-5 of the Go
// output, relative: expf here against the Go kernel's float32(math.Exp).
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

struct uint3 {
	unsigned x, y, z;
};
thread_local uint3 threadIdx;
uint3 blockIdx, blockDim, gridDim;
#define __global__
#define __device__
static std::barrier<> *blockBarrier;
static float *sh;
static void __syncthreads() { blockBarrier->arrive_and_wait(); }
using std::min;

#include "twins.inc"

// launch runs k on grid × block threads with sharedWords of shared memory.
static void launch(uint3 grid, uint3 block, int sharedWords, const std::function<void()> &k) {
	gridDim = grid;
	blockDim = block;
	std::vector<float> shared(sharedWords);
	int n = block.x * block.y;
	for (unsigned by = 0; by < grid.y; by++) {
		for (unsigned bx = 0; bx < grid.x; bx++) {
			blockIdx = {bx, by, 0};
			std::fill(shared.begin(), shared.end(), NAN);
			sh = shared.data();
			std::barrier<> bar(n);
			blockBarrier = &bar;
			std::vector<std::thread> threads;
			for (int id = 0; id < n; id++) {
				threads.emplace_back([&, id] {
					threadIdx = {unsigned(id) % block.x, unsigned(id) / block.x, 0};
					k();
				});
			}
			for (auto &t : threads) {
				t.join();
			}
		}
	}
}

struct header {
	char name[32];
	int sizes[3], grid[2], block[2], shared, causal;
};

static std::vector<float> floats(FILE *f, size_t n) {
	std::vector<float> v(n);
	if (fread(v.data(), 4, n, f) != n) {
		fprintf(stderr, "twins: the cases file ends inside a case\n");
		exit(2);
	}
	return v;
}

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: twins cases.bin\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	int cases = 0, bad = 0;
	header h;
	while (fread(&h, sizeof h, 1, f) == 1) {
		std::string name(h.name, strnlen(h.name, sizeof h.name));
		int s0 = h.sizes[0], s1 = h.sizes[1], s2 = h.sizes[2];
		uint3 grid = {unsigned(h.grid[0]), unsigned(h.grid[1]), 1}, block = {unsigned(h.block[0]), unsigned(h.block[1]), 1};
		std::vector<float> got, want;
		bool exact = true;
		if (name.rfind("gemm_", 0) == 0) {
			int m = s0, n = s1, k = s2;
			auto a = floats(f, size_t(m) * k), b = floats(f, size_t(k) * n);
			want = floats(f, size_t(m) * n);
			got.assign(want.size(), NAN);
			float *c = got.data();
			launch(grid, block, h.shared, [&] {
				if (name == "gemm_naive") {
					gemm_naive(c, a.data(), b.data(), m, n, k);
				} else if (name == "gemm_tiled") {
					gemm_tiled(c, a.data(), b.data(), m, n, k);
				} else if (name == "gemm_register") {
					gemm_register(c, a.data(), b.data(), m, n, k);
				}
			});
		} else if (name.rfind("transpose_", 0) == 0) {
			int rows = s0, cols = s1;
			auto in = floats(f, size_t(rows) * cols);
			want = floats(f, in.size());
			got.assign(want.size(), NAN);
			float *out = got.data();
			launch(grid, block, h.shared, [&] {
				if (name == "transpose_naive") {
					transpose_naive(out, in.data(), rows, cols);
				} else if (name == "transpose_shared") {
					transpose_shared(out, in.data(), rows, cols);
				} else if (name == "transpose_padded") {
					transpose_padded(out, in.data(), rows, cols);
				}
			});
		} else if (name == "flash_attention") {
			int nq = s0, nk = s1, d = s2;
			auto q = floats(f, size_t(nq) * d), k = floats(f, size_t(nk) * d), v = floats(f, size_t(nk) * d);
			want = floats(f, q.size());
			got.assign(want.size(), NAN);
			float *o = got.data();
			launch(grid, block, h.shared, [&] { flash_attention(o, q.data(), k.data(), v.data(), nq, nk, d, h.causal); });
			exact = false;
		} else {
			fprintf(stderr, "twins: no kernel %s here\n", name.c_str());
			return 2;
		}
		cases++;
		size_t differ = 0, worst = 0;
		double worstRel = 0;
		for (size_t i = 0; i < want.size(); i++) {
			if (memcmp(&got[i], &want[i], 4) == 0) {
				continue;
			}
			differ++;
			double rel = std::isnan(got[i]) ? INFINITY : std::fabs(double(got[i]) - want[i]) / std::max(1e-30, std::fabs(double(want[i])));
			if (rel > worstRel || differ == 1) {
				worstRel = rel;
				worst = i;
			}
		}
		bool ok = exact ? differ == 0 : worstRel <= 1e-5;
		if (!ok) {
			bad++;
			printf("twins: %s(%d, %d, %d%s): %zu of %zu words differ from the Go kernel's; word %zu: %.9g, Go %.9g\n", name.c_str(), s0, s1, s2,
			       name == "flash_attention" ? (h.causal ? ", causal" : ", not causal") : "", differ, want.size(), worst, got[worst], want[worst]);
		}
	}
	printf("twins: %d cases, %d differ from the Go kernels%s\n", cases, bad, bad ? "" : " (GEMMs and transposes bit for bit, attention within 1e-5)");
	return bad != 0 || cases == 0;
}
