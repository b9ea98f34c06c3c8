// The kernels of llm's --device cuda (package internal/gpu): the matrix
// products of the offloaded layers, with their weights as the GGUF file
// holds them, and attention over a KV cache kept on the device. Norms,
// RoPE, SwiGLU and sampling stay on the CPU.
//
// Every pointer is device memory; every matrix is row-major with no gaps
// between rows. Compiled to PTX by `make ptx` (nvcc -ptx -arch=compute_80);
// the driver compiles the PTX for the GPU it runs on.

#include <cuda_fp16.h>

// ---------------------------------------------------------------------
// y = x·Wᵀ
//
// W is out × in, x is T × in, y is T × out: row t of y holds the dot
// products of row t of x with every row of W. A warp computes one output
// row j (one row of W) for MUL_ROWS rows of x at once: its 32 lanes read 32
// neighbouring weights of row j (one coalesced read), multiply each by the
// matching element of every one of the x rows, and keep MUL_ROWS partial
// sums each; a butterfly of shuffles adds the lanes' sums at the end. Each
// weight is read from memory once per MUL_ROWS rows of x, which is what a
// decode step (T = 1) and a short prompt piece (T ≤ 64) need.
//
// Launch: grid (ceil(out / MUL_WARPS), ceil(T / MUL_ROWS)), block
// 32·MUL_WARPS threads, no shared memory.
// ---------------------------------------------------------------------

#define MUL_WARPS 4 // warps (output rows) per block
#define MUL_ROWS 4  // rows of x a warp takes at once

// warp_sum returns the sum of v over the 32 lanes of the warp, in every lane.
__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o /= 2) {
        v += __shfl_xor_sync(0xffffffffu, v, o);
    }
    return v;
}

// The weight types. Each says how to read element i of row j of W and how
// the CPU rounds an activation before multiplying it with such a weight.

// F32: plain floats.
struct F32Weights {
    const float *w;
    int in;
    __device__ float at(int j, int i) const { return w[(size_t)j * in + i]; }
    __device__ static float act(float x) { return x; }
};

// F16: halves. The CPU rounds each activation to a half first (llama.cpp's
// F16 dot product does), so the products here are the same products.
struct F16Weights {
    const __half *w;
    int in;
    __device__ float at(int j, int i) const { return __half2float(w[(size_t)j * in + i]); }
    __device__ static float act(float x) { return __half2float(__float2half_rn(x)); }
};

// Q8_0: blocks of 32 weights, 34 bytes each: an f16 scale d, then 32 int8
// q; weight = d·q. A row of in weights is in/32 blocks. When the lanes of a
// warp read i = 32b + lane they read the 32 weights of block b together.
struct Q8_0Weights {
    const unsigned char *w;
    int in;
    __device__ float at(int j, int i) const {
        const unsigned char *block = w + ((size_t)j * (in / 32) + i / 32) * 34;
        float d = __half2float(*(const __half *)block); // blocks are 34 bytes: the scale is 2-byte aligned
        return d * (float)(signed char)block[2 + i % 32];
    }
    __device__ static float act(float x) { return x; }
};

// Q4_0: blocks of 32 weights, 18 bytes each: an f16 scale d, then 16 bytes
// of 4-bit q. The low nibble of byte k is weight k, its high nibble weight
// k+16; weight = d·(q − 8).
struct Q4_0Weights {
    const unsigned char *w;
    int in;
    __device__ float at(int j, int i) const {
        const unsigned char *block = w + ((size_t)j * (in / 32) + i / 32) * 18;
        float d = __half2float(*(const __half *)block);
        int k = i % 32;
        int q = k < 16 ? block[2 + k] & 0xF : block[2 + k - 16] >> 4;
        return d * (float)(q - 8);
    }
    __device__ static float act(float x) { return x; }
};

template <class W>
__device__ void mul_t(W w, float *y, const float *x, int T, int out, int in) {
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int j = blockIdx.x * MUL_WARPS + warp; // the output this warp computes
    int t0 = blockIdx.y * MUL_ROWS;        // its first row of x
    if (j >= out) {
        return; // the whole warp leaves together: no shuffle misses a lane
    }
    float acc[MUL_ROWS];
#pragma unroll
    for (int r = 0; r < MUL_ROWS; r++) {
        acc[r] = 0.0f;
    }
    for (int i = lane; i < in; i += 32) {
        float wji = w.at(j, i);
#pragma unroll
        for (int r = 0; r < MUL_ROWS; r++) {
            if (t0 + r < T) {
                acc[r] += wji * W::act(x[(size_t)(t0 + r) * in + i]);
            }
        }
    }
#pragma unroll
    for (int r = 0; r < MUL_ROWS; r++) {
        float s = warp_sum(acc[r]);
        if (lane == 0 && t0 + r < T) {
            y[(size_t)(t0 + r) * out + j] = s;
        }
    }
}

extern "C" __global__ void mul_t_f32(const float *w, float *y, const float *x, int T, int out, int in) {
    mul_t(F32Weights{w, in}, y, x, T, out, in);
}

extern "C" __global__ void mul_t_f16(const __half *w, float *y, const float *x, int T, int out, int in) {
    mul_t(F16Weights{w, in}, y, x, T, out, in);
}

extern "C" __global__ void mul_t_q8_0(const unsigned char *w, float *y, const float *x, int T, int out, int in) {
    mul_t(Q8_0Weights{w, in}, y, x, T, out, in);
}

extern "C" __global__ void mul_t_q4_0(const unsigned char *w, float *y, const float *x, int T, int out, int in) {
    mul_t(Q4_0Weights{w, in}, y, x, T, out, in);
}

// ---------------------------------------------------------------------
// The KV cache: n floats stored as halves, rounded to nearest, ties to
// even (as the CPU's F16 cache rounds them). Launch: ceil(n/256) blocks of
// 256 threads.
// ---------------------------------------------------------------------

extern "C" __global__ void to_f16(__half *dst, const float *src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        dst[i] = __float2half_rn(src[i]);
    }
}

// ---------------------------------------------------------------------
// Attention over the cache
//
// q and out are T × heads·headDim: the queries of positions pos0 … pos0+T−1.
// k and v are the cache, a row of kvHeads·headDim per position. Query head
// h reads key/value head h / (heads/kvHeads) (grouped-query attention); the
// query at position p sees the positions 0 … p (causal). The scores are
// q·k/√headDim, and softmax(scores)·V is computed online: one pass over
// the positions keeps the largest score m seen so far, the sum l of
// exp(score − m), and the weighted sum of the values acc, rescaling l and
// acc by exp(m_old − m_new) whenever m grows.
//
// A block of ATT_WARPS warps computes one (row, head): warp w takes the
// positions w, w+ATT_WARPS, …, so each warp holds a partial softmax of its
// own; at the end they are merged through shared memory, each rescaled to
// the largest of their maxima. In a warp, lane d holds the dimensions
// d, d+32, … of q and of acc; a score is a dot product summed over the
// lanes with warp_sum.
//
// Launch: grid (heads, T), block 32·ATT_WARPS threads, no dynamic shared
// memory. headDim ≤ MAX_HEAD_DIM.
// ---------------------------------------------------------------------

#define ATT_WARPS 4
#define MAX_HEAD_DIM 256
#define PER_LANE (MAX_HEAD_DIM / 32) // dimensions a lane holds at most

__device__ __forceinline__ float load(const float *p) { return *p; }
__device__ __forceinline__ float load(const __half *p) { return __half2float(*p); }

template <typename KV>
__device__ void attend(float *out, const float *q, const KV *k, const KV *v, int T, int heads, int kvHeads,
                       int headDim, int pos0) {
    __shared__ float part_m[ATT_WARPS], part_l[ATT_WARPS];
    __shared__ float part_acc[ATT_WARPS][MAX_HEAD_DIM];

    int h = blockIdx.x, t = blockIdx.y;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int g = h / (heads / kvHeads); // the key/value head
    size_t qDim = (size_t)heads * headDim, kvDim = (size_t)kvHeads * headDim;
    float scale = rsqrtf((float)headDim);

    float qr[PER_LANE], acc[PER_LANE];
#pragma unroll
    for (int e = 0; e < PER_LANE; e++) {
        int d = lane + 32 * e;
        qr[e] = d < headDim ? q[t * qDim + (size_t)h * headDim + d] * scale : 0.0f;
        acc[e] = 0.0f;
    }
    float m = -INFINITY, l = 0.0f;
    int last = pos0 + t; // the query's own position: the last it sees
    for (int s = warp; s <= last; s += ATT_WARPS) {
        const KV *ks = k + s * kvDim + (size_t)g * headDim;
        const KV *vs = v + s * kvDim + (size_t)g * headDim;
        float dot = 0.0f;
#pragma unroll
        for (int e = 0; e < PER_LANE; e++) {
            int d = lane + 32 * e;
            if (d < headDim) {
                dot += qr[e] * load(ks + d);
            }
        }
        float score = warp_sum(dot);
        float mNew = fmaxf(m, score);
        float shrink = expf(m - mNew); // 0 at the first position (m = −∞)
        float p = expf(score - mNew);
        l = l * shrink + p;
#pragma unroll
        for (int e = 0; e < PER_LANE; e++) {
            int d = lane + 32 * e;
            if (d < headDim) {
                acc[e] = acc[e] * shrink + p * load(vs + d);
            }
        }
        m = mNew;
    }

    // Merge the warps' partial results. A warp that saw no position (a
    // short prefix) has m = −∞ and l = 0, and weighs nothing: warp 0 always
    // sees position 0, so the largest m is finite.
    if (lane == 0) {
        part_m[warp] = m;
        part_l[warp] = l;
    }
#pragma unroll
    for (int e = 0; e < PER_LANE; e++) {
        int d = lane + 32 * e;
        if (d < headDim) {
            part_acc[warp][d] = acc[e];
        }
    }
    __syncthreads();
    if (warp != 0) {
        return;
    }
    float M = part_m[0];
    for (int w = 1; w < ATT_WARPS; w++) {
        M = fmaxf(M, part_m[w]);
    }
    float L = 0.0f;
    for (int w = 0; w < ATT_WARPS; w++) {
        L += part_l[w] * expf(part_m[w] - M);
    }
    for (int d = lane; d < headDim; d += 32) {
        float o = 0.0f;
        for (int w = 0; w < ATT_WARPS; w++) {
            o += part_acc[w][d] * expf(part_m[w] - M);
        }
        out[t * qDim + (size_t)h * headDim + d] = o / L;
    }
}

extern "C" __global__ void attend_f32(float *out, const float *q, const float *k, const float *v, int T, int heads,
                                      int kvHeads, int headDim, int pos0) {
    attend(out, q, k, v, T, heads, kvHeads, headDim, pos0);
}

extern "C" __global__ void attend_f16(float *out, const float *q, const __half *k, const __half *v, int T, int heads,
                                      int kvHeads, int headDim, int pos0) {
    attend(out, q, k, v, T, heads, kvHeads, headDim, pos0);
}
