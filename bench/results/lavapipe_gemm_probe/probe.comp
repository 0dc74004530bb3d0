#version 460
#extension GL_EXT_control_flow_attributes : require
// Probe (not built; bench/results/lavapipe_gemm_probe/README.md):
// C[m][n] = sum_k A[m][k] * B[n][k] on lavapipe, one row per invocation,
// NB columns each, float FMAs (exact: |products| < 2^14, K = 576).
// A: SSBO of packed int8 words (4 k per word), row m contiguous.
// B: UBO; VARIANT 1: floats [n][k] (n-chunk of NB columns), VARIANT 2: packed int8 words [n][k/4].
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint K = 576;
layout(constant_id = 1) const uint NB = 16;  // columns per invocation
layout(std430, set = 0, binding = 0) readonly buffer ABuf {
  uint a[];
};
layout(std430, set = 0, binding = 2) writeonly buffer CBuf {
  int c[];
};
#if VARIANT == 1
layout(std140, set = 0, binding = 1) uniform BBuf {
  vec4 b[4096];
};  // [n][k/4] as vec4 of 4 k
#else
layout(std140, set = 0, binding = 1) uniform BBuf {
  uvec4 b[4096];
};  // [n][k/16] as uvec4 of 16 k
#endif
layout(push_constant) uniform P {
  uint M;
  uint N;
  uint n0;
}
p;

void main() {
  const uint m = gl_GlobalInvocationID.x;
  const uint mm = min(m, p.M - 1);
  float acc[NB];
  [[unroll]] for (uint j = 0; j < NB; ++j) acc[j] = 0.0;
  const uint KW = K / 4;
#if VARIANT == 1
  for (uint kw = 0; kw < KW; ++kw) {
    const uint w = a[mm * KW + kw];
    const vec4 x = vec4(ivec4(bitfieldExtract(int(w), 0, 8), bitfieldExtract(int(w), 8, 8),
                              bitfieldExtract(int(w), 16, 8), bitfieldExtract(int(w), 24, 8)));
    [[unroll]] for (uint j = 0; j < NB; ++j) {
      const vec4 y = b[j * KW + kw];
      acc[j] = fma(x.x, y.x, acc[j]);
      acc[j] = fma(x.y, y.y, acc[j]);
      acc[j] = fma(x.z, y.z, acc[j]);
      acc[j] = fma(x.w, y.w, acc[j]);
    }
  }
#else
#if UNROLL  // every offset a constant: no loop around the loads
  [[unroll]]
#endif
  for (uint kq = 0; kq < K / 16; ++kq) {
    [[unroll]] for (uint w4 = 0; w4 < 4; ++w4) {
      const uint w = a[mm * KW + kq * 4 + w4];
      const vec4 x = vec4(ivec4(bitfieldExtract(int(w), 0, 8), bitfieldExtract(int(w), 8, 8),
                                bitfieldExtract(int(w), 16, 8), bitfieldExtract(int(w), 24, 8)));
      [[unroll]] for (uint j = 0; j < NB; ++j) {
        const uint v = b[j * (K / 16) + kq][w4];
        const vec4 y = vec4(ivec4(bitfieldExtract(int(v), 0, 8), bitfieldExtract(int(v), 8, 8),
                                  bitfieldExtract(int(v), 16, 8), bitfieldExtract(int(v), 24, 8)));
        acc[j] = fma(x.x, y.x, acc[j]);
        acc[j] = fma(x.y, y.y, acc[j]);
        acc[j] = fma(x.z, y.z, acc[j]);
        acc[j] = fma(x.w, y.w, acc[j]);
      }
    }
  }
#endif
  if (m < p.M) [[unroll]]
    for (uint j = 0; j < NB; ++j) c[m * p.N + p.n0 + j] = int(acc[j]);
}
