// Bytes the JS heap allocated while a function ran: at each garbage collection, what was in use
// beyond what the previous one left, and at the end what is in use beyond what the last one left
// (v8.GCProfiler). Work counted by what it allocates does not depend on the machine's speed or
// load: a copy of a whole buffer on every feed allocates the buffer anew each time.
//
// The heap in use can also drop between two collections the profiler reports (V8 frees the garbage
// of an earlier collection as it sweeps, on other threads): a fresh-clone CI run on 2026-12-07 saw
// a parser run counted at -8.6 MB, whose test then failed on a bound of 5x that figure. So the count
// starts after a full collection (no garbage of earlier work left to free), and a drop between two
// readings counts as no allocation, never as a negative one.
import v8 from "node:v8";
import vm from "node:vm";

v8.setFlagsFromString("--expose-gc");
const fullCollection = vm.runInNewContext("gc") as () => void;

export function allocatedBytes(f: () => void): number {
  fullCollection();
  const profiler = new v8.GCProfiler();
  let inUse = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  f();
  const end = v8.getHeapStatistics().used_heap_size;
  let total = 0;
  for (const gc of profiler.stop().statistics) {
    total += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - inUse);
    inUse = gc.afterGC.heapStatistics.usedHeapSize;
  }
  return total + Math.max(0, end - inUse);
}
