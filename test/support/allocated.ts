// Bytes the JS heap allocated while a function ran: at each garbage collection, what was in use
// beyond what the previous one left, and at the end what is in use beyond what the last one left
// (v8.GCProfiler). Work counted by what it allocates does not depend on the machine's speed or
// load: a copy of a whole buffer on every feed allocates the buffer anew each time.
import v8 from "node:v8";

export function allocatedBytes(f: () => void): number {
  const profiler = new v8.GCProfiler();
  let inUse = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  f();
  const end = v8.getHeapStatistics().used_heap_size;
  let total = 0;
  for (const gc of profiler.stop().statistics) {
    total += gc.beforeGC.heapStatistics.usedHeapSize - inUse;
    inUse = gc.afterGC.heapStatistics.usedHeapSize;
  }
  return total + end - inUse;
}
