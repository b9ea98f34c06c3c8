// The kernels of unit15 in CUDA C: each the twin of a Go kernel of
// solutions/unit15, line for line (the same names, index expressions,
// guards and barriers), so that docs/unit15.md can show them side by side.
// Where the Go kernel calls t.Load(g, i) this reads g[i], t.Store(g, i, v)
// writes g[i] = v, t.SharedLoad(i) reads sh[i], t.SharedStore(i, v)
// writes sh[i] = v, and t.SyncThreads() is __syncthreads(). Every kernel
// takes its shared memory as the launch's dynamic shared memory, indexed in
// float32 words as the emulator indexes it: a Go kernel launched with W
// shared words is launched here with 4·W bytes.
//
// Sizes are int (32 bits) where Go's are 64: an index must stay below
// 2^31, which matrices of up to 46340² do. nvcc fuses a·b + c into one
// FMA (one rounding, not two), so on a GPU a twin's sums may differ from
// its Go kernel's in their last bits; the tests hold both to the same
// bound on the float64 result. On a CPU, without fusing, they agree bit
// for bit: ci/cuda/twins.sh (part of make ptx-check) checks it.
//
// gemm_f16 at the end is no twin: it is the "going further" kernel, a
// tensor-core GEMM to measure against cuBLAS on a real GPU.
//
// Build: make ptx (nvcc -ptx -arch=compute_80 -std=c++17); the PTX is
// committed next to this file and embedded by kernels.go.

#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

// Tile is the side of the square tiles of gemm_tiled and the depth of
// gemm_register's, and the side of both's blocks of threads.
#define Tile 16

// Reg is the side of the square of C each thread of gemm_register
// computes.
#define Reg 4

// The block's shared memory, in float32 words, for every twin.
extern __shared__ float sh[];

// loadOr0 loads element (r, col) of the rows×cols matrix g, or 0 outside it.
__device__ float loadOr0(const float *g, int r, int col, int rows, int cols) {
	if (r >= rows || col >= cols) {
		return 0;
	}
	return g[r * cols + col];
}

// The GEMMs of 15.2: C = A·B for row-major A (m×k), B (k×n) and C (m×n).

// gemm_naive: GemmNaive. Grid ⌈n/Tile⌉ × ⌈m/Tile⌉, blocks Tile × Tile, no
// shared memory.
extern "C" __global__ void gemm_naive(float *c, const float *a, const float *b, int m, int n, int k) {
	int row = blockIdx.y * Tile + threadIdx.y, col = blockIdx.x * Tile + threadIdx.x;
	if (row >= m || col >= n) {
		return;
	}
	float sum = 0;
	for (int p = 0; p < k; p++) {
		sum += a[row * k + p] * b[p * n + col];
	}
	c[row * n + col] = sum;
}

// gemm_tiled: GemmTiled. Grid ⌈n/Tile⌉ × ⌈m/Tile⌉, blocks Tile × Tile,
// 2·Tile·Tile shared words (2048 bytes).
extern "C" __global__ void gemm_tiled(float *c, const float *a, const float *b, int m, int n, int k) {
	const int bs = Tile * Tile; // where B's tile starts in shared memory
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.y * Tile + ty, col = blockIdx.x * Tile + tx;
	float sum = 0;
	for (int p0 = 0; p0 < k; p0 += Tile) {
		sh[ty * Tile + tx] = loadOr0(a, row, p0 + tx, m, k);
		sh[bs + ty * Tile + tx] = loadOr0(b, p0 + ty, col, k, n);
		__syncthreads();
		for (int p = 0; p < Tile; p++) {
			sum += sh[ty * Tile + p] * sh[bs + p * Tile + tx];
		}
		__syncthreads();
	}
	if (row < m && col < n) {
		c[row * n + col] = sum;
	}
}

// gemm_register: GemmRegister. Grid ⌈n/64⌉ × ⌈m/64⌉, blocks Tile × Tile,
// 2·64·Tile shared words (8192 bytes). The loops over Reg are unrolled, so
// that acc, av and bv are registers, as the Go kernel's arrays stand for.
extern "C" __global__ void gemm_register(float *c, const float *a, const float *b, int m, int n, int k) {
	const int side = Tile * Reg; // 64: the block's square of C
	const int bs = side * Tile;  // where B's tile starts in shared memory
	int tx = threadIdx.x, ty = threadIdx.y;
	int id = ty * Tile + tx;
	int row0 = blockIdx.y * side, col0 = blockIdx.x * side;
	float acc[Reg][Reg] = {};
	for (int p0 = 0; p0 < k; p0 += Tile) {
#pragma unroll
		for (int q = 0; q < Reg; q++) {
			int i = id + q * Tile * Tile;
			int r = i / Tile, p = i % Tile; // A's tile, 64 × 16, row by row
			sh[r * Tile + p] = loadOr0(a, row0 + r, p0 + p, m, k);
			p = i / side; int col = i % side; // B's tile, 16 × 64, row by row
			sh[bs + p * side + col] = loadOr0(b, p0 + p, col0 + col, k, n);
		}
		__syncthreads();
		for (int p = 0; p < Tile; p++) {
			float av[Reg], bv[Reg];
#pragma unroll
			for (int i = 0; i < Reg; i++) {
				av[i] = sh[(ty + i * Tile) * Tile + p];
				bv[i] = sh[bs + p * side + tx + i * Tile];
			}
#pragma unroll
			for (int i = 0; i < Reg; i++) {
#pragma unroll
				for (int j = 0; j < Reg; j++) {
					acc[i][j] += av[i] * bv[j];
				}
			}
		}
		__syncthreads();
	}
#pragma unroll
	for (int i = 0; i < Reg; i++) {
#pragma unroll
		for (int j = 0; j < Reg; j++) {
			if (int row = row0 + ty + i * Tile, col = col0 + tx + j * Tile; row < m && col < n) {
				c[row * n + col] = acc[i][j];
			}
		}
	}
}

// The transposes of 15.3: out = inᵀ for a row-major in (rows × cols) and
// out (cols × rows). Grid ⌈cols/Side⌉ × ⌈rows/Side⌉, blocks Side × SideRows.

// Side is the side of a transpose's square: a warp's 32 threads share one
// row of it.
#define Side 32

// SideRows is the height of a transpose's block: each thread moves the
// words Side/SideRows rows apart.
#define SideRows 8

// transpose_naive: TransposeNaive. No shared memory.
extern "C" __global__ void transpose_naive(float *out, const float *in, int rows, int cols) {
	int col = blockIdx.x * Side + threadIdx.x;
	for (int j = 0; j < Side; j += SideRows) {
		int row = blockIdx.y * Side + threadIdx.y + j;
		if (row < rows && col < cols) {
			out[col * rows + row] = in[row * cols + col];
		}
	}
}

// transposeTiled is the transpose through shared memory whose square has
// rows stride words apart: Side·stride shared words.
__device__ void transposeTiled(float *out, const float *in, int rows, int cols, int stride) {
	int tx = threadIdx.x, ty = threadIdx.y;
	int row0 = blockIdx.y * Side, col0 = blockIdx.x * Side;
	for (int j = 0; j < Side; j += SideRows) {
		if (int row = row0 + ty + j, col = col0 + tx; row < rows && col < cols) {
			sh[(ty + j) * stride + tx] = in[row * cols + col];
		}
	}
	__syncthreads();
	for (int j = 0; j < Side; j += SideRows) {
		// out's row col0+ty+j is in's column: the square's column ty+j.
		if (int row = row0 + tx, col = col0 + ty + j; row < rows && col < cols) {
			out[col * rows + row] = sh[tx * stride + ty + j];
		}
	}
}

// transpose_shared: TransposeShared. Side·Side shared words (4096 bytes).
extern "C" __global__ void transpose_shared(float *out, const float *in, int rows, int cols) {
	transposeTiled(out, in, rows, cols, Side);
}

// transpose_padded: TransposePadded. Side·(Side+1) shared words (4224
// bytes).
extern "C" __global__ void transpose_padded(float *out, const float *in, int rows, int cols) {
	transposeTiled(out, in, rows, cols, Side + 1);
}

// The flash attention kernel of 15.4: unit08's tiles and online softmax on
// a GPU, for one head.

// QueryTile is the number of query rows a block of flash_attention
// computes: the height of its block of threads, a warp per row.
#define QueryTile 16

// KeyTile is the number of keys flash_attention scores per step: the
// width of its block, a thread per key (a warp).
#define KeyTile 32

// MaxHeadDim is the widest head flash_attention takes: each thread keeps
// MaxHeadDim/KeyTile elements of its row's output.
#define MaxHeadDim 128

// exp32 is e^x in float32; e^−∞ is 0.
__device__ float exp32(float x) { return expf(x); }

// flash_attention: FlashAttention, causal 0 or 1. Grid ⌈nq/QueryTile⌉,
// blocks KeyTile × QueryTile, and the shared words FlashAttention
// launches with: with width = d rounded up to a multiple of KeyTile and
// stride = width+1, (QueryTile + 2·KeyTile)·stride + QueryTile·KeyTile
// (the offsets below). d must be at most MaxHeadDim (acc has no room for
// more), and nq at most nk when causal: the host checks both, as
// FlashAttention does. The host computes the scale 1/√d in float64 and
// rounds it to float32; so does this kernel, once per thread.
extern "C" __global__ void flash_attention(float *o, const float *q, const float *k, const float *v, int nq, int nk, int d, int causal) {
	int width = (d + KeyTile - 1) / KeyTile * KeyTile; // the head, padded
	int stride = width + 1;
	int ks = QueryTile * stride;    // where the keys' tile starts
	int vs = ks + KeyTile * stride; // the values'
	int ss = vs + KeyTile * stride; // the scores'
	float scale = (float)(1 / sqrt((double)d));
	int tx = threadIdx.x, ty = threadIdx.y;
	int row = blockIdx.x * QueryTile + ty; // this thread's query
	int end = nk;                          // the keys the block's rows see
	if (causal) {
		end = min(nk, nk - nq + (int)blockIdx.x * QueryTile + QueryTile);
	}
	for (int c = tx; c < width; c += KeyTile) {
		sh[ty * stride + c] = loadOr0(q, row, c, nq, d);
	}
	float m = -INFINITY, l = 0;
	float acc[MaxHeadDim / KeyTile] = {};
	for (int j0 = 0; j0 < end; j0 += KeyTile) {
		for (int r = ty; r < KeyTile; r += QueryTile) { // rows ty and ty+16 of the tiles
			for (int c = tx; c < width; c += KeyTile) {
				sh[ks + r * stride + c] = loadOr0(k, j0 + r, c, nk, d);
				sh[vs + r * stride + c] = loadOr0(v, j0 + r, c, nk, d);
			}
		}
		__syncthreads();
		float dot = 0;
		for (int c = 0; c < d; c++) {
			dot += sh[ty * stride + c] * sh[ks + tx * stride + c];
		}
		float s = dot * scale;
		if (int key = j0 + tx; key >= nk || causal && key > nk - nq + row) {
			s = -INFINITY;
		}
		sh[ss + ty * KeyTile + tx] = s;
		__syncthreads();
		float mNew = m;
		for (int j = 0; j < KeyTile; j++) {
			mNew = fmaxf(mNew, sh[ss + ty * KeyTile + j]);
		}
		float alpha = exp32(m - mNew); // rescales what was summed under the old maximum
		l *= alpha;
		for (int i = 0; i < MaxHeadDim / KeyTile; i++) {
			acc[i] *= alpha;
		}
		for (int j = 0; j < KeyTile; j++) {
			float p = exp32(sh[ss + ty * KeyTile + j] - mNew);
			l += p;
			for (int i = 0, c = tx; c < width; i++, c += KeyTile) {
				acc[i] += p * sh[vs + j * stride + c];
			}
		}
		m = mNew;
		__syncthreads();
	}
	if (row < nq) {
		for (int i = 0, c = tx; c < d; i++, c += KeyTile) {
			o[row * d + c] = acc[i] / l;
		}
	}
}

// gemm_f16: C = A·B for row-major A (m×k) and B (k×n) in IEEE half
// precision and C (m×n) in float32, on the tensor cores (WMMA: 16×16×16
// products of halves, summed in float32). It is the road cuBLAS's
// cublasGemmEx takes for CUDA_R_16F inputs, a CUDA_R_32F output and
// CUBLAS_COMPUTE_32F, which it is measured against.
//
// Sizes: m and n multiples of 128, k a multiple of 32 (the caller checks;
// the kernel has no edge guards, which keeps it short). Grid n/128 × m/128,
// blocks of 128 threads (4 warps), F16SharedBytes (56832) bytes of dynamic
// shared memory: more than the 48 KB a launch gets unasked, so the caller
// raises the kernel's limit first (cuFuncSetAttribute's
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: Kernel.SetMaxShared in
// internal/cuda).
//
// Each block computes a 128 × 128 square of C. Its 4 warps are laid out
// 2 × 2 over that square, each warp 64 × 64 of it: 4 × 4 accumulator
// fragments of 16 × 16, which stay in registers for the whole of k. Per
// step of 16 along k a warp loads 4 fragments of A and 4 of B from shared
// memory for 16 products: 32 flops a byte of shared memory read, what the
// tensor cores of an A100 or H100 need not to wait for it. Per step of 32
// along k the block copies a 128 × 32 tile of A and a 32 × 128 tile of B
// into shared memory with cp.async, which the copy engine of each SM runs
// while the tensor cores work: three buffers of each tile, so that the
// copies of steps s+1 and s+2 are in flight while step s is multiplied.
// Each row of a tile is padded by 8 halves (16 bytes), so that the 8 rows
// a fragment load reads at once start in different banks.
#define F16BM 128                 // the block's rows of C
#define F16BN 128                 // its columns
#define F16BK 32                  // the depth of one step along k
#define F16Stages 3               // buffers of each tile
#define F16Threads 128            // 4 warps
#define F16LDA (F16BK + 8)        // row stride of A's tile in shared memory, halves
#define F16LDB (F16BN + 8)        // row stride of B's tile
#define F16A (F16BM * F16LDA)     // halves of one buffer of A's tile
#define F16B (F16BK * F16LDB)     // halves of one buffer of B's tile
// F16SharedBytes: three buffers of each tile, 3·(5120 + 4352) halves.
#define F16SharedBytes (F16Stages * (F16A + F16B) * 2)

using namespace nvcuda;

// f16Load starts the copies of step k0's tiles into buffer buf: 512
// 16-byte pieces (8 halves) of A's tile and 512 of B's, four of each per
// thread, neighbouring threads on neighbouring pieces of a row.
__device__ void f16Load(__half *as, __half *bs, const __half *a, const __half *b, int n, int k, int m0, int n0, int k0) {
	for (int q = 0; q < 4; q++) {
		int piece = threadIdx.x + q * F16Threads;
		int r = piece / (F16BK / 8), c8 = piece % (F16BK / 8) * 8; // A: 128 rows of 4 pieces
		__pipeline_memcpy_async(as + r * F16LDA + c8, a + (size_t)(m0 + r) * k + k0 + c8, 16);
		r = piece / (F16BN / 8), c8 = piece % (F16BN / 8) * 8; // B: 32 rows of 16 pieces
		__pipeline_memcpy_async(bs + r * F16LDB + c8, b + (size_t)(k0 + r) * n + n0 + c8, 16);
	}
}

extern "C" __global__ void __launch_bounds__(F16Threads, 2) gemm_f16(float *c, const __half *a, const __half *b, int m, int n, int k) {
	extern __shared__ __align__(128) __half smem[];
	__half *as = smem, *bs = smem + F16Stages * F16A; // the buffers of A's tile, then B's
	int warp = threadIdx.x / 32;
	int wm = warp / 2, wn = warp % 2; // the warp's place in the 2 × 2 layout
	int m0 = blockIdx.y * F16BM, n0 = blockIdx.x * F16BN;

	wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][4];
	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 4; j++) {
			wmma::fill_fragment(acc[i][j], 0.0f);
		}
	}

	// Step s's tiles go to buffer s % F16Stages, and each thread commits
	// one group of copies a step (an empty one past the last step): when
	// step s is due, groups 0 to s+F16Stages-2 are committed, and
	// __pipeline_wait_prior(F16Stages-2) waits for groups 0 to s.
	int steps = k / F16BK;
	for (int s = 0; s < F16Stages - 1; s++) {
		if (s < steps) {
			f16Load(as + s * F16A, bs + s * F16B, a, b, n, k, m0, n0, s * F16BK);
		}
		__pipeline_commit();
	}
	for (int s = 0; s < steps; s++) {
		__pipeline_wait_prior(F16Stages - 2);
		// Every thread's copies of step s have landed, and every warp is
		// done with step s-1, whose buffer the copies of step
		// s+F16Stages-1 take next.
		__syncthreads();
		if (int next = s + F16Stages - 1; next < steps) {
			f16Load(as + next % F16Stages * F16A, bs + next % F16Stages * F16B, a, b, n, k, m0, n0, next * F16BK);
		}
		__pipeline_commit();

		const __half *at = as + s % F16Stages * F16A, *bt = bs + s % F16Stages * F16B; // step s's tiles
		for (int kk = 0; kk < F16BK; kk += 16) {
			wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> af[4];
			wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> bf[4];
			for (int i = 0; i < 4; i++) {
				wmma::load_matrix_sync(af[i], at + (wm * 64 + i * 16) * F16LDA + kk, F16LDA);
			}
			for (int j = 0; j < 4; j++) {
				wmma::load_matrix_sync(bf[j], bt + kk * F16LDB + wn * 64 + j * 16, F16LDB);
			}
			for (int i = 0; i < 4; i++) {
				for (int j = 0; j < 4; j++) {
					wmma::mma_sync(acc[i][j], af[i], bf[j], acc[i][j]);
				}
			}
		}
	}

	for (int i = 0; i < 4; i++) {
		for (int j = 0; j < 4; j++) {
			int row = m0 + wm * 64 + i * 16, col = n0 + wn * 64 + j * 16;
			wmma::store_matrix_sync(c + (size_t)row * n + col, acc[i][j], n, wmma::mem_row_major);
		}
	}
}
