// Acceptance cases for "number" schemas bounded other than at 0 (src/grammar/json-schema/number-range.ts):
// plain decimals compared exactly with the bound's JSON.stringify decimal. Part of ACCEPTANCE in
// test/support/json-schema-cases.ts (run on the reference matcher and on the engine).

export const NUMBER_RANGE_CASES: Array<{ name: string; schema: unknown; accept: string[]; reject: string[] }> = [
  {
    name: "number: minimum and maximum other than 0 (plain decimals, exact)",
    schema: { type: "number", minimum: 1.1, maximum: 3 },
    accept: ["1.1", "1.10", "1.1000000000000000000001", "2", "2.6", "3", "3.0", "3.000", "2.99999999999999999999"],
    reject: [
      "1.0999999999999999999",
      "1",
      "1.09",
      "0.6",
      "3.5",
      "3.0000000000000000001",
      "4",
      "-2",
      "-0",
      "2e0",
      "1.5E0",
      "2.",
      ".5",
      "02",
      "+2",
    ],
  },
  {
    name: "number: exclusive bounds across 0",
    schema: { type: "number", exclusiveMinimum: -2.5, exclusiveMaximum: 0.25 },
    accept: ["-2.4999", "-2.49", "-2", "-1", "-0", "-0.0", "0", "0.0", "0.2", "0.2499999", "-0.25"],
    reject: ["-2.5", "-2.50", "-2.5000", "-3", "0.25", "0.250", "0.26", "1", "-2.51"],
  },
  {
    name: "number: negative maximum",
    schema: { type: "number", maximum: -0.5 },
    accept: ["-0.5", "-0.50", "-0.51", "-1", "-100.25", "-123456789012345678901234567890"],
    reject: ["-0.4999", "-0.05", "0", "-0", "0.5", "1"],
  },
  {
    name: "number: bounds beyond 2^64 and below the smallest double's digits",
    schema: {
      type: "object",
      properties: {
        big: { type: "number", maximum: 18446744073709552000 },
        tiny: { type: "number", exclusiveMinimum: 5e-324, maximum: 1 },
      },
    },
    accept: [
      '{"big":18446744073709551616}',
      '{"big":18446744073709552000.0}',
      '{"big":-5}',
      `{"tiny":0.${"0".repeat(323)}51}`,
      '{"tiny":1}',
      '{"tiny":0.5}',
    ],
    reject: [
      '{"big":18446744073709552000.1}',
      '{"big":18446744073709552001}',
      `{"tiny":0.${"0".repeat(323)}5}`,
      '{"tiny":0}',
      '{"tiny":1.01}',
    ],
  },
];
