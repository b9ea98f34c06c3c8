// Runs the kernels of internal/cuda/kernels/engine.cu on the CPU, compiled
// unchanged by the host's C++ compiler against the stand-in cuda_fp16.h
// next to this file: cmd/llm's TestKernelsOnCPU writes cases, this
// program runs each with the launch shapes internal/gpu uses and writes
// what the kernels wrote, and the test compares that with the CPU's own
// products and attention.
//
//   engine_host CASES OUT
//
// CASES is a sequence of cases, little-endian int32s and float32s:
//   1 (a product), kind (0 f32, 1 f16, 2 q8_0, 3 q4_0), T, out, in, n,
//     n bytes of weights as the GGUF file holds them, x (T × in floats);
//     the kernel writes y (T × out floats)
//   2 (attention), half (0 or 1), T, heads, kvHeads, headDim, pos0,
//     q (T × heads·headDim floats), k and v ((pos0+T) × kvHeads·headDim
//     floats each, stored through to_f16 when half); the kernel writes out
//     (T × heads·headDim floats)
// OUT gets the outputs, one after another. Every buffer has exactly its
// size, so that under AddressSanitizer an index past one is an error, and
// the outputs start as NaNs, so that an element no thread writes shows.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <thread>

#include "engine.cu"

thread_local dim3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
std::barrier<> *blockBarrier;
std::vector<std::barrier<> *> warpBarriers;
std::vector<float> warpSlots;

// launch runs k on grid × block threads (one-dimensional blocks): the
// block's threads are made once and run the blocks one after another,
// meeting at a barrier after each (a warp that left the kernel early
// waits there for the others).
static void launch(dim3 grid, dim3 block, const std::function<void()> &k) {
    gridDim = grid;
    blockDim = block;
    unsigned n = block.x, warps = (n + 31) / 32;
    std::barrier<> sync(n), done(n);
    blockBarrier = &sync;
    std::vector<std::unique_ptr<std::barrier<>>> wb;
    warpBarriers.clear();
    for (unsigned w = 0; w < warps; w++) {
        wb.push_back(std::make_unique<std::barrier<>>(32));
        warpBarriers.push_back(wb.back().get());
    }
    warpSlots.assign(32 * warps, NAN);
    std::vector<std::thread> threads;
    for (unsigned id = 0; id < n; id++) {
        threads.emplace_back([&, id] {
            threadIdx = {id, 0, 0};
            for (unsigned by = 0; by < grid.y; by++) {
                for (unsigned bx = 0; bx < grid.x; bx++) {
                    blockIdx = {bx, by, 0};
                    k();
                    done.arrive_and_wait();
                }
            }
        });
    }
    for (auto &t : threads) {
        t.join();
    }
}

static FILE *in;

static int32_t i32() {
    int32_t v;
    if (fread(&v, 4, 1, in) != 1) {
        fprintf(stderr, "engine_host: the cases end inside a case\n");
        exit(2);
    }
    return v;
}

template <typename T> static std::vector<T> read(size_t n) {
    std::vector<T> v(n);
    if (n > 0 && fread(v.data(), sizeof(T), n, in) != n) {
        fprintf(stderr, "engine_host: the cases end inside a buffer\n");
        exit(2);
    }
    return v;
}

static unsigned up(int n, int d) { return unsigned((n + d - 1) / d); }

int main(int argc, char **argv) {
    if (argc != 3 || !(in = fopen(argv[1], "rb"))) {
        fprintf(stderr, "usage: engine_host CASES OUT\n");
        return 2;
    }
    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 2;
    }
    int32_t op;
    while (fread(&op, 4, 1, in) == 1) {
        std::vector<float> res;
        if (op == 1) {
            int kind = i32(), T = i32(), rows = i32(), cols = i32(), n = i32();
            auto w = read<unsigned char>(n);
            auto x = read<float>(size_t(T) * cols);
            res.assign(size_t(T) * rows, NAN);
            dim3 grid{up(rows, MUL_WARPS), up(T, MUL_ROWS), 1}, block{32 * MUL_WARPS, 1, 1};
            launch(grid, block, [&] {
                switch (kind) {
                case 0: mul_t_f32((const float *)w.data(), res.data(), x.data(), T, rows, cols); break;
                case 1: mul_t_f16((const __half *)w.data(), res.data(), x.data(), T, rows, cols); break;
                case 2: mul_t_q8_0(w.data(), res.data(), x.data(), T, rows, cols); break;
                case 3: mul_t_q4_0(w.data(), res.data(), x.data(), T, rows, cols); break;
                }
            });
        } else if (op == 2) {
            int half = i32(), T = i32(), heads = i32(), kvHeads = i32(), headDim = i32(), pos0 = i32();
            size_t qn = size_t(T) * heads * headDim, kvn = size_t(pos0 + T) * kvHeads * headDim;
            auto q = read<float>(qn);
            auto k = read<float>(kvn);
            auto v = read<float>(kvn);
            res.assign(qn, NAN);
            dim3 grid{unsigned(heads), unsigned(T), 1}, block{32 * ATT_WARPS, 1, 1};
            if (half) {
                std::vector<__half> kh(kvn), vh(kvn);
                int nn = int(kvn);
                launch({up(nn, 32), 1, 1}, {32, 1, 1}, [&] { to_f16(kh.data(), k.data(), nn); });
                launch({up(nn, 32), 1, 1}, {32, 1, 1}, [&] { to_f16(vh.data(), v.data(), nn); });
                launch(grid, block, [&] { attend_f16(res.data(), q.data(), kh.data(), vh.data(), T, heads, kvHeads, headDim, pos0); });
            } else {
                launch(grid, block, [&] { attend_f32(res.data(), q.data(), k.data(), v.data(), T, heads, kvHeads, headDim, pos0); });
            }
        } else {
            fprintf(stderr, "engine_host: case of kind %d\n", op);
            return 2;
        }
        fwrite(res.data(), 4, res.size(), out);
    }
    return fclose(out) == 0 ? 0 : 1;
}
