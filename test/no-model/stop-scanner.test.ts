// Stop strings over streamed chunks: cut where the first stop string starts, even when it arrives
// split across chunks; hold back no more than could still become one.
import { describe, expect, it } from "vitest";
import { StopScanner } from "../../src/engine/stop.js";

const run = (stop: string | string[], chunks: string[]) => {
  const s = new StopScanner(stop);
  let out = "";
  for (const c of chunks) out += s.feed(c);
  return { out: out + s.flush(), stopped: s.stopped };
};

describe("StopScanner", () => {
  it("cuts before a stop string split across chunks", () => {
    expect(run("END", ["abc E", "N", "Dxyz"])).toEqual({ out: "abc ", stopped: true });
  });
  it("cuts at the earliest of several stop strings", () => {
    expect(run(["zz", "b"], ["aab", "zz"])).toEqual({ out: "aa", stopped: true });
  });
  it("gives back what it held when no stop string comes", () => {
    expect(run("END", ["abc E", "N"])).toEqual({ out: "abc EN", stopped: false });
  });
  it("passes text straight through while nothing could start a stop string", () => {
    const s = new StopScanner("##");
    expect(s.feed("hello")).toBe("hell");
    expect(s.feed(" world")).toBe("o worl");
  });
  it("refuses empty stop strings", () => {
    expect(() => new StopScanner([""])).toThrow(/non-empty/);
  });
});
