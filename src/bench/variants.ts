// The four ways the bench decodes each prompt, and how the report names them.
export const VARIANTS = ["unmasked", "masked-cpu", "masked-backend", "node-llama-cpp-gbnf"] as const;
export type VariantName = (typeof VARIANTS)[number];

export const VARIANT_LABELS: Record<VariantName, string> = {
  unmasked: "unmasked",
  "masked-cpu": "masked (CPU path)",
  "masked-backend": "masked (backend path)",
  "node-llama-cpp-gbnf": "node-llama-cpp + our GBNF",
};
