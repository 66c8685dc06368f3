#!/usr/bin/env node
// Shrinks a CUDA shared library for one GPU architecture, so it fits the 64 MiB that travels to a
// device machine: inside the .nv_fatbin section, each fat binary keeps only its entries for that
// architecture (SASS for sm_N and/or PTX for compute_N) moved to its front, with its size field
// updated; the bytes freed are zeroed and compress to nothing. Offsets and the file's size do not
// change, so every pointer the loader follows stays valid. A fat binary with no entry for the
// architecture is left whole. (nvprune does this properly; it is not installed here.)
// Usage: node scripts/gpu/prune-fatbin.mjs <in.so> <out.so> [--arch 90]
import { readFileSync, writeFileSync } from "node:fs";

const FATBIN_MAGIC = 0xba55ed50;

/** The .nv_fatbin section's [offset, size] from the ELF64 section headers. */
export function fatbinSection(buf) {
  if (buf.readUInt32BE(0) !== 0x7f454c46 || buf[4] !== 2) throw new Error("not an ELF64 file");
  const shoff = Number(buf.readBigUInt64LE(0x28)),
    shentsize = buf.readUInt16LE(0x3a),
    shnum = buf.readUInt16LE(0x3c),
    shstrndx = buf.readUInt16LE(0x3e);
  const sh = (i) => shoff + i * shentsize;
  const strOff = Number(buf.readBigUInt64LE(sh(shstrndx) + 0x18));
  for (let i = 0; i < shnum; i++) {
    const nameOff = buf.readUInt32LE(sh(i));
    const end = buf.indexOf(0, strOff + nameOff);
    if (buf.toString("latin1", strOff + nameOff, end) === ".nv_fatbin")
      return [Number(buf.readBigUInt64LE(sh(i) + 0x18)), Number(buf.readBigUInt64LE(sh(i) + 0x20))];
  }
  throw new Error("no .nv_fatbin section: not a CUDA library");
}

/** Entries of the fat binary at `at`: kind 1 = PTX, 2 = SASS (ELF); arch as the number N of sm_N. */
function entries(buf, at) {
  const headerSize = buf.readUInt16LE(at + 6),
    fatSize = Number(buf.readBigUInt64LE(at + 8));
  const out = [];
  for (let q = at + headerSize; q < at + headerSize + fatSize; ) {
    const kind = buf.readUInt16LE(q),
      entryHeader = buf.readUInt32LE(q + 4),
      payload = Number(buf.readBigUInt64LE(q + 8));
    if (entryHeader === 0 || entryHeader + payload === 0) break; // zero padding at the end
    out.push({ offset: q, size: entryHeader + payload, kind, arch: buf.readUInt32LE(q + 28) });
    q += entryHeader + payload;
  }
  return { headerSize, fatSize, list: out };
}

export function pruneFatbins(buf, arch) {
  const [start, size] = fatbinSection(buf);
  const stats = { fatbins: 0, pruned: 0, keptBytes: 0, droppedBytes: 0, kinds: {} };
  for (let p = start; p + 16 <= start + size; ) {
    if (buf.readUInt32LE(p) !== FATBIN_MAGIC) {
      p += 8;
      continue;
    }
    const { headerSize, fatSize, list } = entries(buf, p);
    stats.fatbins++;
    const keep = list.filter((e) => e.arch === arch);
    for (const e of list)
      stats.kinds[`${e.kind === 1 ? "ptx" : e.kind === 2 ? "sass" : `kind${e.kind}`}_${e.arch}`] = true;
    if (keep.length > 0 && keep.length < list.length) {
      const kept = Buffer.concat(keep.map((e) => Buffer.from(buf.subarray(e.offset, e.offset + e.size))));
      buf.fill(0, p + headerSize, p + headerSize + fatSize);
      kept.copy(buf, p + headerSize);
      buf.writeBigUInt64LE(BigInt(kept.length), p + 8);
      stats.pruned++;
      stats.keptBytes += kept.length;
      stats.droppedBytes += fatSize - kept.length;
    } else {
      stats.keptBytes += fatSize;
    }
    p += headerSize + fatSize;
  }
  stats.kinds = Object.keys(stats.kinds).sort();
  return stats;
}

/** What each fat binary holds after pruning (for the check below and for the report). */
export function describeFatbins(buf) {
  const [start, size] = fatbinSection(buf);
  const arches = new Map();
  for (let p = start; p + 16 <= start + size; ) {
    if (buf.readUInt32LE(p) !== FATBIN_MAGIC) {
      p += 8;
      continue;
    }
    const { headerSize, fatSize, list } = entries(buf, p);
    for (const e of list) {
      const k = `${e.kind === 1 ? "ptx" : "sass"}_${e.arch}`;
      arches.set(k, (arches.get(k) ?? 0) + 1);
    }
    p += headerSize + fatSize;
  }
  return Object.fromEntries([...arches].sort());
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [input, output] = process.argv.slice(2).filter((a, i, all) => !a.startsWith("--") && all[i - 1] !== "--arch");
  const archIdx = process.argv.indexOf("--arch");
  const arch = archIdx > 0 ? Number(process.argv[archIdx + 1]) : 90;
  if (!input || !output || !Number.isInteger(arch)) {
    console.error("usage: node scripts/gpu/prune-fatbin.mjs <in.so> <out.so> [--arch 90]");
    process.exit(2);
  }
  const buf = readFileSync(input);
  const before = describeFatbins(buf);
  const stats = pruneFatbins(buf, arch);
  const after = describeFatbins(buf);
  writeFileSync(output, buf);
  console.log(
    JSON.stringify({
      arch,
      fatbins: stats.fatbins,
      pruned: stats.pruned,
      keptMB: +(stats.keptBytes / 1e6).toFixed(1),
      droppedMB: +(stats.droppedBytes / 1e6).toFixed(1),
      before,
      after,
    }),
  );
}
