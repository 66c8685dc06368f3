// Finds the llama.cpp shared libraries node-llama-cpp ships prebuilt (CPU, CUDA, Vulkan builds in
// separate packages, see llama-packages.ts), and loads one of them into the addon once per
// process. The addon never links llama.cpp: it opens what this picks (dlopen / LoadLibrary).
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { loadNative } from "../native.js";
import {
  cudaMissing,
  libraryFileRe,
  packageBinsDir,
  packageName,
  vulkanMissing,
  type LlamaBuild,
} from "./llama-packages.js";

export type GpuOption = "auto" | "cuda" | "vulkan" | "metal" | false;
export type { LlamaBuild } from "./llama-packages.js";

export interface LlamaLibraryPaths {
  llama: string;
  ggml: string;
  backendsDir: string;
}

const plat = `${process.platform}-${process.arch}`;

/** The folder of the CPU build for this platform (TOOLMASK_LLAMA_LIB_DIR overrides). */
export function cpuLibraryDir(): string {
  const override = process.env.TOOLMASK_LLAMA_LIB_DIR;
  if (override) return override;
  const dir = packageBinsDir("cpu");
  if (!dir) {
    const name = packageName("cpu");
    throw new Error(
      `toolmask: llama.cpp libraries for ${plat} not found: ` +
        (name
          ? `the package @node-llama-cpp/${name} (an optional dependency of node-llama-cpp 3.21.1) is not installed. Install node-llama-cpp on this platform`
          : "node-llama-cpp 3.21.1 ships none for this platform. Build llama.cpp as shared libraries") +
        ", or set TOOLMASK_LLAMA_LIB_DIR to a folder holding libllama and libggml.",
    );
  }
  return dir;
}

/** libllama, libggml and the backends folder inside `dir` (names carry build and release: libllama.cuda.v0.4.0.so). */
export function libraryPathsIn(dir: string): LlamaLibraryPaths {
  if (!existsSync(dir)) throw new Error(`toolmask: llama.cpp library folder ${dir} does not exist`);
  const files = readdirSync(dir);
  const pick = (lib: "llama" | "ggml"): string => {
    const hit = files.filter((f) => libraryFileRe(lib).test(f)).sort()[0];
    if (!hit) throw new Error(`toolmask: no ${lib} library in ${dir} (found: ${files.join(", ")})`);
    return join(dir, hit);
  };
  return { llama: pick("llama"), ggml: pick("ggml"), backendsDir: dir };
}

/** Why a GPU build cannot be used here, or undefined when it can. */
function gpuMissing(build: "cuda" | "vulkan"): string | undefined {
  const name = packageName(build);
  if (!name) return `node-llama-cpp has no ${build} build for ${plat}`;
  if (!packageBinsDir(build)) return `@node-llama-cpp/${name} is not installed`;
  return build === "cuda" ? cudaMissing() : vulkanMissing();
}

/** Which build a gpu option asks for; for "auto" also why it is the CPU one. Throws when an explicit choice cannot be had. */
export function chooseBuild(gpu: GpuOption): { build: LlamaBuild; fallback?: string } {
  if (gpu === false) return { build: "cpu" };
  if (gpu === "metal") {
    if (process.platform !== "darwin")
      throw new Error(`gpu: "metal" needs macOS; this is ${process.platform} (use "auto" or false)`);
    return { build: "cpu" }; // node-llama-cpp's macOS arm64 build carries Metal
  }
  if (gpu === "auto") {
    if (process.platform === "darwin")
      return process.arch === "arm64"
        ? { build: "cpu" }
        : { build: "cpu", fallback: "node-llama-cpp's macOS x64 build has no GPU support" };
    // node-llama-cpp's own order: CUDA, then Vulkan.
    const why: string[] = [];
    for (const build of ["cuda", "vulkan"] as const) {
      const missing = gpuMissing(build);
      if (!missing) return { build };
      why.push(`${build}: ${missing}`);
    }
    return { build: "cpu", fallback: why.join("; ") };
  }
  if (gpu !== "cuda" && gpu !== "vulkan")
    throw new TypeError(`gpu must be "auto", "cuda", "vulkan", "metal" or false, got ${JSON.stringify(gpu)}`);
  const name = packageName(gpu);
  if (!name || !packageBinsDir(gpu))
    throw new Error(
      name
        ? `gpu: "${gpu}" needs the package @node-llama-cpp/${name} (an optional dependency of node-llama-cpp); it is not installed`
        : `gpu: "${gpu}": node-llama-cpp has no ${gpu} build for ${plat}`,
    );
  if (gpu === "cuda" && cudaMissing())
    throw new Error(`gpu: "cuda" needs an NVIDIA driver, and none is loaded here (use gpu: "auto" or false)`);
  if (gpu === "vulkan" && vulkanMissing())
    throw new Error(`gpu: "vulkan" needs a Vulkan loader: ${vulkanMissing()} (use gpu: "auto" or false)`);
  return { build: gpu };
}

/** Which build a gpu option asks for; throws when it cannot be had here. */
export function buildFor(gpu: GpuOption): LlamaBuild {
  return chooseBuild(gpu).build;
}

let loaded: LlamaBuild | undefined;

/**
 * Loads llama.cpp into the addon once; a later call reuses it, or fails if it asks for another
 * build. `fallback` says why "auto" chose the CPU build (undefined when it did not).
 */
export function ensureLlamaLibrary(gpu: GpuOption = false): { build: LlamaBuild; fallback?: string } {
  const choice = chooseBuild(gpu);
  if (loaded) {
    if (loaded !== choice.build && gpu !== "auto")
      throw new Error(
        `llama.cpp's ${loaded} build is already loaded in this process; it cannot also load the ${choice.build} build`,
      );
    return loaded === choice.build
      ? choice
      : { build: loaded, fallback: `llama.cpp's ${loaded} build was loaded earlier in this process` };
  }
  const dir = choice.build === "cpu" ? cpuLibraryDir() : packageBinsDir(choice.build)!;
  loadNative().llamaLoadLibrary(libraryPathsIn(dir));
  loaded = choice.build;
  return choice;
}
