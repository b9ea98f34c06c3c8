// Runs gemm_f16 (internal/cuda/kernels/unit15.cu) on the CPU with a
// stand-in for what it uses of CUDA, and checks its product against the
// float64 one: the check ci/cuda/twins.sh makes of its indices without a
// GPU. A std::thread per CUDA thread and a barrier per block, as in
// twins.cpp; the cp.async copies are plain copies made at once, so the
// pipeline's waits are not checked here, only where every copy goes and
// what every fragment reads; and a WMMA fragment is the whole 16 × 16 tile,
// held by every thread of the warp, which loads, multiplies and stores all
// of it (the 32 threads store the same words). The shared memory is a
// buffer of exactly F16SharedBytes and the matrices of exactly their
// sizes, so that under AddressSanitizer an index past one is an error.
// f16.inc is unit15.cu from "// gemm_f16:" on, its extern __shared__ line
// made a pointer into that buffer. __half is _Float16 (GCC 12, Clang 15).
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <tuple>
#include <vector>

struct uint3 {
	unsigned x, y, z;
};
thread_local uint3 threadIdx;
uint3 blockIdx;
#define __global__
#define __device__
#define __launch_bounds__(...)
typedef _Float16 __half;
static std::barrier<> *blockBarrier;
static float *sh;
static void __syncthreads() { blockBarrier->arrive_and_wait(); }

// cp.async, as cuda_pipeline.h's primitives: here a copy made at once.
static void __pipeline_memcpy_async(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
static void __pipeline_commit() {}
static void __pipeline_wait_prior(size_t) {}

// The part of mma.h gemm_f16 uses: 16 × 16 × 16 fragments, row-major.
namespace nvcuda {
namespace wmma {
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
enum layout_t { mem_row_major };

template <class Use, int M, int N, int K, class T, class Layout = void>
struct fragment {
	T x[16 * 16]; // the whole tile, row by row
};

template <class Use, class T, class L>
void load_matrix_sync(fragment<Use, 16, 16, 16, T, L> &f, const T *p, unsigned ldm) {
	for (int i = 0; i < 16; i++) {
		for (int j = 0; j < 16; j++) {
			f.x[i * 16 + j] = p[i * ldm + j];
		}
	}
}

template <class T>
void fill_fragment(fragment<accumulator, 16, 16, 16, T> &f, T v) {
	for (auto &e : f.x) {
		e = v;
	}
}

// mma_sync: d = a·b + c, the products of halves summed in float32.
void mma_sync(fragment<accumulator, 16, 16, 16, float> &d, const fragment<matrix_a, 16, 16, 16, __half, row_major> &a,
              const fragment<matrix_b, 16, 16, 16, __half, row_major> &b, const fragment<accumulator, 16, 16, 16, float> &c) {
	float r[16 * 16];
	for (int i = 0; i < 16; i++) {
		for (int j = 0; j < 16; j++) {
			float s = c.x[i * 16 + j];
			for (int p = 0; p < 16; p++) {
				s += float(a.x[i * 16 + p]) * float(b.x[p * 16 + j]);
			}
			r[i * 16 + j] = s;
		}
	}
	memcpy(d.x, r, sizeof r);
}

void store_matrix_sync(float *p, const fragment<accumulator, 16, 16, 16, float> &f, unsigned ldm, layout_t) {
	for (int i = 0; i < 16; i++) {
		for (int j = 0; j < 16; j++) {
			p[i * ldm + j] = f.x[i * 16 + j];
		}
	}
}
} // namespace wmma
} // namespace nvcuda

#include "f16.inc"

// launch runs k on grid blocks of threads threads with sharedBytes of
// shared memory.
static void launch(uint3 grid, int threads, int sharedBytes, const std::function<void()> &k) {
	std::vector<float> shared(sharedBytes / 4);
	for (unsigned by = 0; by < grid.y; by++) {
		for (unsigned bx = 0; bx < grid.x; bx++) {
			blockIdx = {bx, by, 0};
			std::fill(shared.begin(), shared.end(), NAN);
			sh = shared.data();
			std::barrier<> bar(threads);
			blockBarrier = &bar;
			std::vector<std::thread> ts;
			for (int id = 0; id < threads; id++) {
				ts.emplace_back([&, id] {
					threadIdx = {unsigned(id), 0, 0};
					k();
				});
			}
			for (auto &t : ts) {
				t.join();
			}
		}
	}
}

int main() {
	std::mt19937 rng(15);
	std::normal_distribution<float> normal;
	int bad = 0;
	// One step along k; several blocks and steps; more rows of blocks than columns.
	for (auto [m, n, k] : std::vector<std::tuple<int, int, int>>{{128, 128, 32}, {256, 384, 96}, {384, 128, 160}}) {
		std::vector<__half> a(m * k), b(k * n);
		for (auto &x : a) {
			x = (__half)normal(rng);
		}
		for (auto &x : b) {
			x = (__half)normal(rng);
		}
		std::vector<float> c(m * n, NAN);
		launch({unsigned(n / F16BN), unsigned(m / F16BM), 1}, F16Threads, F16SharedBytes, [&] { gemm_f16(c.data(), a.data(), b.data(), m, n, k); });
		int wrong = 0;
		for (int i = 0; i < m; i++) {
			for (int j = 0; j < n; j++) {
				double want = 0, abs = 0;
				for (int p = 0; p < k; p++) {
					double x = double(a[i * k + p]) * double(b[p * n + j]);
					want += x;
					abs += std::fabs(x);
				}
				// (k+2)·2⁻²³·Σ|a·b|: a float32 sum of k exact products, in any order.
				if (!(std::fabs(c[i * n + j] - want) <= (k + 2) * abs / (1 << 23)) && wrong++ < 3) {
					printf("gemm_f16: %d×%d×%d: C[%d, %d] = %.9g, want %.9g\n", m, n, k, i, j, c[i * n + j], want);
				}
			}
		}
		bad += wrong != 0;
	}
	printf("gemm_f16: 3 products, %d wrong (tiles, copies and fragments on the CPU, WMMA and cp.async stood in for)\n", bad);
	return bad != 0;
}
