// Finds the llama.cpp shared libraries node-llama-cpp ships prebuilt (CPU, CUDA, Vulkan builds in
// separate packages), and loads one of them into the addon once per process. The addon never
// links llama.cpp: it dlopens what this picks.
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { loadNative } from "../native.js";

export type GpuOption = "auto" | "cuda" | "vulkan" | "metal" | false;
export type LlamaBuild = "cpu" | "cuda" | "vulkan";

export interface LlamaLibraryPaths {
  llama: string;
  ggml: string;
  backendsDir: string;
}

const require = createRequire(import.meta.url);
const plat = `${process.platform}-${process.arch}`;

/** The bins folder of node-llama-cpp's prebuilt package for `build`, or undefined when it is not installed. */
function packageDir(build: LlamaBuild): string | undefined {
  const name = build === "cpu" ? plat : `${plat}-${build}`;
  try {
    // <pkg>/dist/index.js → <pkg>/bins/<name>
    return join(dirname(dirname(require.resolve(`@node-llama-cpp/${name}`))), "bins", name);
  } catch {
    return undefined;
  }
}

/** The folder of the CPU build for this platform (TOOLMASK_LLAMA_LIB_DIR overrides). */
export function cpuLibraryDir(): string {
  const override = process.env.TOOLMASK_LLAMA_LIB_DIR;
  if (override) return override;
  const dir = packageDir("cpu");
  if (!dir)
    throw new Error(
      `toolmask: llama.cpp libraries for ${plat} not found: the package @node-llama-cpp/${plat} (an optional ` +
        "dependency of node-llama-cpp 3.21.1) is not installed. Install node-llama-cpp on this platform, or set " +
        "TOOLMASK_LLAMA_LIB_DIR to a folder holding libllama and libggml.",
    );
  return dir;
}

/** libllama, libggml and the backends folder inside `dir` (names carry build and release: libllama.cuda.v0.4.0.so). */
export function libraryPathsIn(dir: string): LlamaLibraryPaths {
  if (!existsSync(dir)) throw new Error(`toolmask: llama.cpp library folder ${dir} does not exist`);
  const files = readdirSync(dir);
  const pick = (what: string, re: RegExp): string => {
    const hit = files.filter((f) => re.test(f)).sort()[0];
    if (!hit) throw new Error(`toolmask: no ${what} in ${dir} (found: ${files.join(", ")})`);
    return join(dir, hit);
  };
  const ext = process.platform === "darwin" ? "dylib" : process.platform === "win32" ? "dll" : "so";
  return {
    llama: pick(`libllama.${ext}`, new RegExp(`^(lib)?llama(\\.(cuda|vulkan))?(\\.v[\\d.]+)?\\.${ext}$`)),
    ggml: pick(`libggml.${ext}`, new RegExp(`^(lib)?ggml(\\.(cuda|vulkan))?(\\.v[\\d.]+)?\\.${ext}$`)),
    backendsDir: dir,
  };
}

/** An NVIDIA driver is present (so the CUDA build's backend can load). */
function nvidiaDriver(): boolean {
  return process.platform === "linux" && existsSync("/proc/driver/nvidia/version");
}

/** Which build a gpu option asks for; throws when it cannot be had here. */
export function buildFor(gpu: GpuOption): LlamaBuild {
  if (gpu === false) return "cpu";
  if (gpu === "metal") {
    if (process.platform !== "darwin") throw new Error(`gpu: "metal" needs macOS; this is ${process.platform} (use "auto" or false)`);
    return "cpu";  // node-llama-cpp's macOS build carries Metal
  }
  if (gpu === "auto") return packageDir("cuda") && nvidiaDriver() ? "cuda" : "cpu";
  if (gpu !== "cuda" && gpu !== "vulkan") throw new TypeError(`gpu must be "auto", "cuda", "vulkan", "metal" or false, got ${JSON.stringify(gpu)}`);
  if (!packageDir(gpu))
    throw new Error(`gpu: "${gpu}" needs the package @node-llama-cpp/${plat}-${gpu} (an optional dependency of node-llama-cpp); it is not installed`);
  if (gpu === "cuda" && !nvidiaDriver()) throw new Error('gpu: "cuda" needs an NVIDIA driver, and none is loaded here (use gpu: "auto" or false)');
  return gpu;
}

let loaded: LlamaBuild | undefined;

/** Loads llama.cpp into the addon once; a later call reuses it, or fails if it asks for another build. */
export function ensureLlamaLibrary(gpu: GpuOption = false): LlamaBuild {
  const build = buildFor(gpu);
  if (loaded) {
    if (loaded !== build && gpu !== "auto")
      throw new Error(`llama.cpp's ${loaded} build is already loaded in this process; it cannot also load the ${build} build`);
    return loaded;
  }
  const dir = build === "cpu" ? cpuLibraryDir() : packageDir(build)!;
  loadNative().llamaLoadLibrary(libraryPathsIn(dir));
  loaded = build;
  return build;
}
