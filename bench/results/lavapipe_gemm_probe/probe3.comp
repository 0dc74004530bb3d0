#version 460
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
// Probe variant 3: B columns loaded per lane (lane l loads column l of each
// group of SG columns) and broadcast with subgroupBroadcast (constant ids).
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint K = 576;
layout(constant_id = 1) const uint NB = 16;  // columns per invocation, a multiple of SG
layout(constant_id = 2) const uint TM = 1;   // rows per invocation
const uint SG = 8;
layout(std430, set = 0, binding = 0) readonly buffer ABuf {
  uint a[];
};
layout(std430, set = 0, binding = 1) readonly buffer BBuf {
  uint b[];
};
layout(std430, set = 0, binding = 2) writeonly buffer CBuf {
  int c[];
};
layout(push_constant) uniform P {
  uint M;
  uint N;
  uint n0;
}
p;

vec4 unpack(uint w) {
  return vec4(ivec4(bitfieldExtract(int(w), 0, 8), bitfieldExtract(int(w), 8, 8), bitfieldExtract(int(w), 16, 8),
                    bitfieldExtract(int(w), 24, 8)));
}
void main() {
  const uint lane = gl_SubgroupInvocationID;
  const uint m0 = (gl_WorkGroupID.x * 64 + gl_SubgroupID * SG) * TM + lane;  // rows m0 + i*SG
  float acc[TM * NB];
  [[unroll]] for (uint j = 0; j < TM * NB; ++j) acc[j] = 0.0;
  const uint KW = K / 4;
  for (uint kw = 0; kw < KW; ++kw) {
    vec4 x[TM];
    [[unroll]] for (uint i = 0; i < TM; ++i) x[i] = unpack(a[min(m0 + i * SG, p.M - 1) * KW + kw]);
    [[unroll]] for (uint jb = 0; jb < NB / SG; ++jb) {
      const vec4 y = unpack(b[(p.n0 + jb * SG + lane) * KW + kw]);  // this lane's column
      [[unroll]] for (uint l = 0; l < SG; ++l) {
        const vec4 yb = subgroupBroadcast(y, l);
        [[unroll]] for (uint i = 0; i < TM; ++i) {
          float s = acc[i * NB + jb * SG + l];
          s = fma(x[i].x, yb.x, s);
          s = fma(x[i].y, yb.y, s);
          s = fma(x[i].z, yb.z, s);
          s = fma(x[i].w, yb.w, s);
          acc[i * NB + jb * SG + l] = s;
        }
      }
    }
  }
  [[unroll]] for (uint i = 0; i < TM; ++i) if (m0 + i * SG < p.M) [[unroll]] for (uint j = 0; j < NB; ++j)
      c[(m0 + i * SG) * p.N + p.n0 + j] = int(acc[i * NB + j]);
}
