// Finds the llama.cpp shared libraries node-llama-cpp ships prebuilt, and loads them into the
// addon once per process. The addon never links llama.cpp: it dlopens what this picks.
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { loadNative } from "../native.js";

export interface LlamaLibraryPaths {
  llama: string;
  ggml: string;
  backendsDir: string;
}

const require = createRequire(import.meta.url);

/** The folder of node-llama-cpp's prebuilt CPU libraries for this platform (TOOLMASK_LLAMA_LIB_DIR overrides). */
export function cpuLibraryDir(): string {
  const override = process.env.TOOLMASK_LLAMA_LIB_DIR;
  if (override) return override;
  const plat = `${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(`@node-llama-cpp/${plat}`);
  } catch {
    throw new Error(
      `toolmask: llama.cpp libraries for ${plat} not found: the package @node-llama-cpp/${plat} (an optional ` +
        "dependency of node-llama-cpp 3.21.1) is not installed. Install node-llama-cpp on this platform, or set " +
        "TOOLMASK_LLAMA_LIB_DIR to a folder holding libllama and libggml.",
    );
  }
  // <pkg>/dist/index.js → <pkg>/bins/<plat>
  return join(dirname(dirname(entry)), "bins", plat);
}

/** libllama, libggml and the backends folder inside `dir` (names carry the release: libllama.v0.4.0.so). */
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
    llama: pick(`libllama.${ext}`, new RegExp(`^(lib)?llama(\\.v[\\d.]+)?\\.${ext}$`)),
    ggml: pick(`libggml.${ext}`, new RegExp(`^(lib)?ggml(\\.v[\\d.]+)?\\.${ext}$`)),
    backendsDir: dir,
  };
}

let loaded: LlamaLibraryPaths | undefined;

/** Loads llama.cpp into the addon (once; later calls return the first choice). */
export function ensureLlamaLibrary(): LlamaLibraryPaths {
  if (loaded) return loaded;
  const paths = libraryPathsIn(cpuLibraryDir());
  loadNative().llamaLoadLibrary(paths);
  loaded = paths;
  return paths;
}
