// layers.cpp: the forward pass's numeric steps (layers.h), in float4.h's 4-lane vectors where they loop over a row.
#include "layers.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "arcscope/core/float4.h"
#include "arcscope/core/portable_math.h"
#include "arcscope/core/threads.h"

namespace arcscope {

void residual_forward(float* a, const float* b, size_t n) {
    for (size_t i = 0; i < n; ++i) a[i] += b[i];
}

void layernorm_forward(float* out, const float* x, int T, int C, const float* w, const float* b, float eps) {
    parallel_for(T, 8.0 * T * C, [&](int t0, int t1) {  // rows apart on the threads: the same bits
        for (int t = t0; t < t1; ++t) {
            const float* xt = x + size_t(t) * C;
            float* ot = out + size_t(t) * C;
            float mean = 0;
            for (int i = 0; i < C; ++i) mean += xt[i];
            mean /= C;
            float var = 0;
            for (int i = 0; i < C; ++i) var += (xt[i] - mean) * (xt[i] - mean);
            var /= C;
            float inv = 1.0f / std::sqrt(var + eps);
            if (w)
                for (int i = 0; i < C; ++i) ot[i] = (xt[i] - mean) * inv * w[i] + b[i];
            else
                for (int i = 0; i < C; ++i) ot[i] = (xt[i] - mean) * inv;
        }
    });
}

void scale_shift_forward(float* x, int T, int C, const float* w, const float* b) {
    for (int t = 0; t < T; ++t)
        if (b)
            for (int i = 0; i < C; ++i) x[size_t(t) * C + i] = x[size_t(t) * C + i] * w[i] + b[i];
        else
            for (int i = 0; i < C; ++i) x[size_t(t) * C + i] = x[size_t(t) * C + i] * w[i];
}

void rmsnorm_forward(float* out, const float* x, int T, int C, const float* w, float eps) {
    parallel_for(T, 6.0 * T * C, [&](int t0, int t1) {  // rows apart on the threads: the same bits
        for (int t = t0; t < t1; ++t) {
            const float* xt = x + size_t(t) * C;
            float* ot = out + size_t(t) * C;
            F4 a[kLanes / 4] = {};
            int i = 0;
            for (; i + kLanes <= C; i += kLanes)
                for (int k = 0; k < kLanes / 4; ++k) {
                    const F4 v = load4(xt + i + 4 * k);
                    a[k] += v * v;
                }
            float lane[kLanes];
            std::memcpy(lane, a, sizeof lane);
            float sum = 0;
            for (int k = 0; k < kLanes; ++k) sum += lane[k];
            for (; i < C; ++i) sum += xt[i] * xt[i];
            const float inv = 1.0f / std::sqrt(sum / C + eps);
            if (w)
                for (i = 0; i < C; ++i) ot[i] = xt[i] * inv * w[i];
            else
                for (i = 0; i < C; ++i) ot[i] = xt[i] * inv;
        }
    });
}

void gelu_forward(float* x, int rows, int width) {
    parallel_for(rows, 20.0 * rows * width, [&](int r0, int r1) {
        map4(x + size_t(r0) * width, size_t(r1 - r0) * width, [](F4 v) {
            const float k = 0.7978845608028654f;  // sqrt(2 / pi)
            return 0.5f * v * (1.0f + portable_tanh(k * (v + 0.044715f * v * v * v)));
        });
    });
}

void gelu_erf_forward(float* x, int rows, int width) {
    parallel_for(rows, 30.0 * rows * width, [&](int r0, int r1) {
        map4(x + size_t(r0) * width, size_t(r1 - r0) * width, [](F4 v) {
            return 0.5f * v * portable_erfc(v * -0.70710678118654752f);  // Phi(x) = erfc(-x / sqrt 2) / 2
        });
    });
}

namespace {

F4 silu(F4 v) {
    return v / (1.0f + portable_exp(-v));
}

}  // namespace

void silu_forward(float* x, int rows, int width) {
    parallel_for(rows, 20.0 * rows * width,
                 [&](int r0, int r1) { map4(x + size_t(r0) * width, size_t(r1 - r0) * width, silu); });
}

void swiglu_forward(float* gate, const float* up, int rows, int width) {
    parallel_for(rows, 20.0 * rows * width, [&](int r0, int r1) {
        const size_t begin = size_t(r0) * width, end = size_t(r1) * width;
        size_t i = begin;
        for (; i + 4 <= end; i += 4) store4(gate + i, silu(load4(gate + i)) * load4(up + i));
        for (; i < end; ++i) {  // the last one to three, through a zero-padded vector
            F4 v{};
            v[0] = gate[i];
            gate[i] = silu(v)[0] * up[i];
        }
    });
}

void attention_scores_row(float* row, const float* q, const float* kt, int hd, int ld, int n, float scale) {
    for (int j0 = 0; j0 < n; j0 += kLanes) {
        F4 a0{}, a1{}, a2{}, a3{};
        for (int d = 0; d < hd; ++d) {
            const F4 qd = splat4(q[d]);
            const float* k = kt + size_t(d) * ld + j0;
            a0 += qd * load4(k);
            a1 += qd * load4(k + 4);
            a2 += qd * load4(k + 8);
            a3 += qd * load4(k + 12);
        }
        const F4 sc = splat4(scale);
        float acc[kLanes];
        const F4 out[4] = {a0 * sc, a1 * sc, a2 * sc, a3 * sc};
        std::memcpy(acc, out, sizeof acc);
        std::copy(acc, acc + std::min(kLanes, n - j0), row + j0);
    }
}

void masked_softmax_row(float* row, int n, int total) {
    float lane[kLanes];
    for (int k = 0; k < kLanes; ++k) lane[k] = row[0];
    int j = 0;
    for (; j + kLanes <= n; j += kLanes)
        for (int k = 0; k < kLanes; ++k) lane[k] = std::max(lane[k], row[j + k]);
    float mx = row[0];
    for (int k = 0; k < kLanes; ++k) mx = std::max(mx, lane[k]);
    for (; j < n; ++j) mx = std::max(mx, row[j]);

    map4(row, size_t(n), [mx](F4 v) { return portable_exp(v - mx); });
    for (int k = 0; k < kLanes; ++k) lane[k] = 0.0f;
    for (j = 0; j + kLanes <= n; j += kLanes)
        for (int k = 0; k < kLanes; ++k) lane[k] += row[j + k];
    float sum = 0;
    for (int k = 0; k < kLanes; ++k) sum += lane[k];
    for (; j < n; ++j) sum += row[j];

    const float inv = 1.0f / sum;
    for (j = 0; j < n; ++j) row[j] *= inv;
    for (j = n; j < total; ++j) row[j] = 0.0f;
}

void attention_values_row(float* out, const float* p, const float* v, int n, int hd, int ldv, bool accumulate) {
    int d0 = 0;
    for (; d0 + kLanes <= hd; d0 += kLanes) {
        F4 a[4] = {};
        if (accumulate) std::memcpy(a, out + d0, sizeof a);
        for (int j = 0; j < n; ++j) {
            const F4 pj = splat4(p[j]);
            const float* vj = v + size_t(j) * ldv + d0;
            a[0] += pj * load4(vj);
            a[1] += pj * load4(vj + 4);
            a[2] += pj * load4(vj + 8);
            a[3] += pj * load4(vj + 12);
        }
        std::memcpy(out + d0, a, sizeof a);
    }
    for (; d0 < hd; ++d0) {
        float acc = accumulate ? out[d0] : 0.0f;
        for (int j = 0; j < n; ++j) acc += p[j] * v[size_t(j) * ldv + d0];
        out[d0] = acc;
    }
}

}  // namespace arcscope
