// convolution_integer_coopmat.comp: with VKDML_TIMELINE defined (tools/kernel_timeline
// compiles such kernels; the library's never are), each workgroup records when its phases
// end, on its first tile, and writes them over the input tensor, whose buffer the tool
// makes large enough: results are wrong. 20 words of 64 bits per workgroup, at 160 bytes
// times its index in the grid:
//   0, 1: the device clock (ns) at main's start and end;
//   2: the first tile, and its K steps << 32; 3: 0x5A5A5A5A << 32, and the index;
//   4 + i: SM clock cycles from main's start to mark i (1 to 15, 0 where not reached):
//   1 set up, 2 the tile set up, 3 its K loop, 4 its sums, 5 the epilogue's first barrier,
//   6 to 13 the end of each of its passes, 14 its stores issued, 15 the tile's last barrier.
// With VKDML_TIMELINE_SPANS too, only words 0 to 3 (the marks stay 0): the start is stored
// once the record's address is known, so that nothing is held across the kernel and it keeps
// its registers, and with them its workgroups per SM (the marks cost the stem's kernel 4).
// Without VKDML_TIMELINE every macro is empty, and the SPIR-V is the library's.
#ifdef VKDML_TIMELINE
layout(buffer_reference, std430, buffer_reference_align = 8) writeonly buffer TimelineWords {
  uint64_t v[];
};
TimelineWords timelineRecord() {
  return TimelineWords(inputAddress + 160 * uint64_t(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x));
}
#ifdef VKDML_TIMELINE_SPANS
uint64_t timelineStart;
#define TIMELINE_START() timelineStart = clockRealtimeEXT()
// Mark 1 follows the set up, which reads the input's address.
#define TIMELINE_MARK(i) \
  if ((i) == 1 && t == 0) timelineRecord().v[0] = timelineStart
#define TIMELINE_PASS_START(ip, j)
#define TIMELINE_PASS_END(pass)
#define TIMELINE_TILE_END(tile)
void timelineWrite() {
  if (t != 0) return;
  TimelineWords w = timelineRecord();
  w.v[1] = clockRealtimeEXT();
  w.v[2] = uint64_t(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) | (uint64_t(kTiles) << 32);
  w.v[3] = (uint64_t(0x5A5A5A5Au) << 32) | (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x);
  [[unroll]] for (uint i = 4; i < 20; ++i) w.v[i] = 0;
}
#else
const uint TIMELINE_MARKS = 16;
uint64_t timelineStart, timelineMarks[TIMELINE_MARKS];
uint timelineTile = 0xFFFFFFFFu;  // the first tile, once its marks are taken
#define TIMELINE_START()                                         \
  timelineStart = clockRealtimeEXT();                            \
  [[unroll]] for (uint i = 0; i < TIMELINE_MARKS; ++i) timelineMarks[i] = 0; \
  timelineMarks[0] = clockARB()
#define TIMELINE_MARK(i) \
  if (timelineTile == 0xFFFFFFFFu) timelineMarks[i] = clockARB()
#define TIMELINE_PASS_START(ip, j) \
  if ((ip) == 0 && (j) == 0) TIMELINE_MARK(5)
#define TIMELINE_PASS_END(pass) \
  if ((pass) < 8) TIMELINE_MARK(6 + (pass))
#define TIMELINE_TILE_END(tile) \
  TIMELINE_MARK(15);            \
  if (timelineTile == 0xFFFFFFFFu) timelineTile = (tile)
void timelineWrite() {
  if (t != 0) return;
  const uint id = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  TimelineWords w = timelineRecord();
  w.v[0] = timelineStart;
  w.v[1] = clockRealtimeEXT();
  w.v[2] = uint64_t(timelineTile) | (uint64_t(kTiles) << 32);
  w.v[3] = (uint64_t(0x5A5A5A5Au) << 32) | id;
  [[unroll]] for (uint i = 1; i < TIMELINE_MARKS; ++i)
    w.v[3 + i] = timelineMarks[i] == 0 ? 0 : timelineMarks[i] - timelineMarks[0];
  w.v[19] = 0;
}
#endif
#define TIMELINE_WRITE() timelineWrite()
#else
#define TIMELINE_START()
#define TIMELINE_MARK(i)
#define TIMELINE_PASS_START(ip, j)
#define TIMELINE_PASS_END(pass)
#define TIMELINE_TILE_END(tile)
#define TIMELINE_WRITE()
#endif
