// Where node-llama-cpp 3.21.1 keeps its prebuilt llama.cpp libraries on each platform, and whether
// the machine can run its GPU builds. Package names follow node-llama-cpp's optionalDependencies:
// linux-x64[-cuda|-vulkan], linux-arm64, linux-armv7l, mac-arm64-metal, mac-x64, win-x64[-cuda|-vulkan], win-arm64.
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

export type LlamaBuild = "cpu" | "cuda" | "vulkan";

const require = createRequire(import.meta.url);

/** node-llama-cpp's name for this platform's package of `build`, or undefined when it ships none. */
export function packageName(build: LlamaBuild, platform = process.platform, arch = process.arch): string | undefined {
  const os = platform === "darwin" ? "mac" : platform === "win32" ? "win" : platform === "linux" ? "linux" : undefined;
  const cpu = arch === "arm" ? "armv7l" : arch;
  if (!os || !["x64", "arm64", "armv7l", "riscv64"].includes(cpu)) return undefined;
  if (build !== "cpu") return cpu === "x64" && os !== "mac" ? `${os}-x64-${build}` : undefined;
  if (os === "mac") return cpu === "arm64" ? "mac-arm64-metal" : cpu === "x64" ? "mac-x64" : undefined; // the arm64 build carries Metal
  return `${os}-${cpu}`;
}

/** The file name of a llama.cpp library on this platform: libllama.so, libllama.dylib, llama.dll. */
export function libraryFileRe(lib: "llama" | "ggml", platform = process.platform): RegExp {
  const ext = platform === "darwin" ? "dylib" : platform === "win32" ? "dll" : "so";
  // node-llama-cpp appends its variant: libllama.v0.4.0.so, libllama.cuda.v0.4.0.so, llama.vulkan.v0.4.0.dll.
  return new RegExp(`^(lib)?${lib}(\\.(cuda|vulkan))?(\\.v[\\d.]+)?\\.${ext}$`);
}

/** The bins folder of the installed package for `build`, or undefined when it is not installed. */
export function packageBinsDir(build: LlamaBuild): string | undefined {
  const name = packageName(build);
  if (!name) return undefined;
  for (const from of [require, nodeLlamaCppRequire()]) {
    try {
      const bins = join(dirname(dirname(from.resolve(`@node-llama-cpp/${name}`))), "bins"); // <pkg>/dist/index.js → <pkg>/bins
      if (existsSync(join(bins, name))) return join(bins, name);
      const only = readdirSync(bins).filter((d) => !d.startsWith("."));
      if (only.length === 1) return join(bins, only[0]!);
    } catch {
      // not resolvable from here: try beside node-llama-cpp (an install that did not hoist it)
    }
  }
  return undefined;
}

function nodeLlamaCppRequire(): NodeJS.Require {
  try {
    return createRequire(require.resolve("node-llama-cpp"));
  } catch {
    return require;
  }
}

const searchDirs = (): string[] =>
  [
    ...(process.env.LD_LIBRARY_PATH ?? "").split(":"),
    "/usr/lib",
    "/usr/lib64",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/local/lib",
  ].filter(Boolean);

/** Why the CUDA build cannot run here, or undefined when an NVIDIA driver is loaded. */
export function cudaMissing(): string | undefined {
  if (process.platform === "linux")
    return existsSync("/proc/driver/nvidia/version") ? undefined : "no NVIDIA driver loaded";
  if (process.platform === "win32")
    return existsSync(join(process.env.SystemRoot ?? "C:\\Windows", "System32", "nvml.dll"))
      ? undefined
      : "no NVIDIA driver (nvml.dll) found";
  return "no CUDA build for this platform";
}

/** Why the Vulkan build cannot run here, or undefined when a Vulkan loader is installed. */
export function vulkanMissing(): string | undefined {
  if (process.platform === "linux")
    return searchDirs().some((d) => existsSync(join(d, "libvulkan.so.1")))
      ? undefined
      : "no Vulkan loader (libvulkan.so.1)";
  if (process.platform === "win32")
    return existsSync(join(process.env.SystemRoot ?? "C:\\Windows", "System32", "vulkan-1.dll"))
      ? undefined
      : "no Vulkan loader (vulkan-1.dll)";
  return "no Vulkan build for this platform";
}
