// A line (a row to reduce or normalise) per invocation, or, when the kernel is built with
// GROUP, per work-group of 64 whose invocations stride over it and meet in workgroup.glsl's
// trees. One kernel body serves both builds:
//   for (int k = lineFirst(); k < n; k += LINE_STEP) s += ...;  s = lineSum(s);
// lineIndex() is the same for every invocation of a group, so `if (lineIndex() >= count)
// return;` keeps the group's control flow uniform (the trees have barriers).
#include "workgroup.glsl"
#ifdef GROUP
const int LINE_STEP = 64;
uint lineIndex() { return gid() / 64u; }
int lineFirst() { return int(gl_LocalInvocationID.x); }
bool lineLeader() { return gl_LocalInvocationID.x == 0u; }
float lineReduce(float v, int op) { return workgroupReduce(v, op); }
int lineArgBest(float v, int idx, bool isMax, bool last) { return workgroupArgBest(v, idx, isMax, last); }
#else
const int LINE_STEP = 1;
uint lineIndex() { return gid(); }
int lineFirst() { return 0; }
bool lineLeader() { return true; }
float lineReduce(float v, int op) { return v; }
int lineArgBest(float v, int idx, bool isMax, bool last) { return idx; }
#endif
float lineSum(float v) { return lineReduce(v, WG_SUM); }
float lineMax(float v) { return lineReduce(v, WG_MAX); }
