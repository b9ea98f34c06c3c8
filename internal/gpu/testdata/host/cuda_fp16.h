// A stand-in for CUDA's cuda_fp16.h and execution model, just large enough
// to compile internal/cuda/kernels/engine.cu, unchanged, for the CPU with
// the host's C++ compiler (engine_host.cpp): the check of the kernels'
// arithmetic and indexing that needs no GPU (cmd/llm's
// TestKernelsOnCPU). Each CUDA thread is a std::thread; a block's threads
// meet at a std::barrier for __syncthreads; a warp's 32 threads meet at a
// barrier of their own for each shuffle, exchanging values through a slot
// per lane. The blocks of a launch run one after another, on the same
// threads, so a kernel's __shared__ arrays can be the function's statics.
#pragma once

#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

struct dim3 {
    unsigned x, y, z;
};

extern thread_local dim3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static

// The barriers and shuffle slots of the block being run (engine_host.cpp
// sets them for each block).
extern std::barrier<> *blockBarrier;
extern std::vector<std::barrier<> *> warpBarriers;
extern std::vector<float> warpSlots; // 32 per warp

inline void __syncthreads() { blockBarrier->arrive_and_wait(); }

// __shfl_xor_sync: every lane of the warp must call it (the kernels only
// shuffle where the whole warp does, as CUDA requires for a full mask).
inline float __shfl_xor_sync(unsigned, float v, int o) {
    unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
    warpSlots[32 * w + lane] = v;
    warpBarriers[w]->arrive_and_wait();
    float got = warpSlots[32 * w + (lane ^ unsigned(o))];
    warpBarriers[w]->arrive_and_wait(); // no lane writes its slot again before all have read
    return got;
}

inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }

// __half: IEEE binary16, its bits.
struct __half {
    uint16_t bits;
};

inline float __half2float(__half h) {
    int e = (h.bits >> 10) & 0x1f, m = h.bits & 0x3ff;
    float v;
    if (e == 0) {
        v = std::ldexp(float(m), -24); // subnormal
    } else if (e == 31) {
        v = m ? NAN : INFINITY;
    } else {
        v = std::ldexp(float(m | 0x400), e - 25);
    }
    return (h.bits & 0x8000) ? -v : v;
}

// __float2half_rn rounds to the nearest half, ties to even.
inline __half __float2half_rn(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint16_t sign = (x >> 16) & 0x8000;
    uint32_t mag = x & 0x7fffffff;
    if (mag >= 0x7f800000) { // infinity, NaN
        return {uint16_t(sign | 0x7c00 | (mag > 0x7f800000 ? 0x200 : 0))};
    }
    if (mag >= 0x477ff000) { // 65520 and above round to infinity
        return {uint16_t(sign | 0x7c00)};
    }
    if (mag < 0x38800000) { // below 2⁻¹⁴: a subnormal half, in units of 2⁻²⁴
        float a = std::fabs(f) * 16777216.0f;
        return {uint16_t(sign | uint16_t(std::nearbyint(a)))}; // 1024 is the smallest normal, encoded right
    }
    uint32_t h = (mag - (112u << 23)) >> 13, rest = mag & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) {
        h++; // a carry into the exponent is right too
    }
    return {uint16_t(sign | h)};
}
