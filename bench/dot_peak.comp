#version 460
// The packed-dot-product ceiling the dot path is measured against:
// register-only OpSUDot (4 unsigned x 4 signed bytes of a packed word, the
// convolution's u8 input by its s8 filter) into 8 independent int32
// accumulators per invocation, no memory traffic in the loop. B's word
// changes each iteration so that no dot product is loop-invariant.
// Ops per invocation: iterations * 8 * 2*4.
#extension GL_EXT_spirv_intrinsics : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Results { int v[]; };
layout(push_constant) uniform PushConstants {
  uint64_t results;  // one word per invocation, so nothing is optimized away
  uint iterations;
} pc;

// OpSUDot (SPV_KHR_integer_dot_product), PackedVectorFormat4x8Bit.
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4452)
int sudot(uint a, uint b, spirv_literal int format);

void main() {
  uint a[8];
  int acc[8];
  [[unroll]] for (int i = 0; i < 8; ++i) {
    a[i] = gl_GlobalInvocationID.x * 0x01010101u + uint(i);
    acc[i] = i;
  }
  uint b = gl_WorkGroupID.x;
  for (uint it = 0; it < pc.iterations; ++it) {
    [[unroll]] for (int i = 0; i < 8; ++i) acc[i] += sudot(a[i], b, 0);
    b += 0x01010101u;
  }
  [[unroll]] for (int i = 1; i < 8; ++i) acc[0] += acc[i];
  Results(pc.results).v[gl_GlobalInvocationID.x] = acc[0];
}
