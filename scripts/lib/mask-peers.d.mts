// Types of mask-peers.mjs, for the tests that run the native mask engines.
export type PeerName = "llguidance" | "xgrammar" | "outlines-core" | "glrmask";
export interface PeerGrammar { kind: "lark" | "ebnf" | "regex" | "json_schema"; text: string }
export interface MaskPeer {
  name: PeerName;
  version: string;
  vocabSize: number;
  tokenizerMs: number;
  importMs: number;
  request(req: { op: "compile"; id: string; grammar: PeerGrammar; repeat?: number }): Promise<{ compile_ms: number; first_mask_ms: number }>;
  request(req: { op: "walk"; id: string; tokens: number[]; passes: number }): Promise<{ samples_ns: number[]; refused: number | null }>;
  request(req: { op: "masks"; id: string; tokens: number[]; path: string }): Promise<{ steps: number; refused: number | null }>;
  request(req: { op: "accepts"; id: string; walks: number[][] }): Promise<{ refused: Array<number | null>; finished: boolean[] }>;
  request(req: { op: "special" }): Promise<{ ids: number[] }>;
  request(req: { op: "free"; id: string }): Promise<Record<string, never>>;
  close(): Promise<void>;
  kill(): void;
}
export const PEERS: Record<PeerName, { group: string }>;
export function peerPython(name: PeerName): string | undefined;
export function peerHint(name: PeerName): string;
export function openPeer(name: PeerName, tokenizerJson: string, stopIds?: number[]): Promise<MaskPeer>;
