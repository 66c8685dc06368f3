// Twenty requests for JSON (a prompt and the response format's schema) for bench:structured's
// validity runs (scripts/bench/bench-structured.mjs): everyday extraction and generation tasks,
// each prompt asking for JSON and giving the schema, as a user of structured outputs writes them.

const str = { type: "string" };
const int = { type: "integer" };
const num = { type: "number" };
const bool = { type: "boolean" };
const obj = (properties, required = Object.keys(properties)) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

/** [{ name, prompt, schema }], the prompt naming the schema. */
export const STRUCTURED_PROMPTS = [
  [
    "person",
    "Extract the person: Ada Lovelace, born 1815 in London, mathematician.",
    obj({ name: str, born: int, city: str, occupation: str }),
  ],
  [
    "weather",
    "Give today's weather for Paris as JSON: 18 degrees Celsius, light rain, wind 12 km/h.",
    obj({ city: str, celsius: num, condition: { enum: ["sun", "cloud", "rain", "snow"] }, wind_kmh: num }),
  ],
  [
    "todo",
    "List three tasks to prepare a picnic.",
    obj({ tasks: { type: "array", items: obj({ title: str, done: bool }), minItems: 3, maxItems: 3 } }),
  ],
  [
    "sentiment",
    'Classify the sentiment of: "The service was slow but the food was great."',
    obj({
      label: { enum: ["positive", "negative", "mixed", "neutral"] },
      confidence: { type: "number", minimum: 0, maximum: 1 },
    }),
  ],
  [
    "address",
    "Parse this address: 221B Baker Street, London NW1 6XE, United Kingdom.",
    obj({ street: str, city: str, postcode: str, country: str }),
  ],
  [
    "book",
    "Describe the book Dune by Frank Herbert.",
    obj({ title: str, author: str, year: int, genres: { type: "array", items: str, maxItems: 4 } }),
  ],
  [
    "meeting",
    "Schedule a meeting: project sync on 2024-05-14 at 10:30 with Ana and Bo.",
    obj({
      title: str,
      date: { type: "string", format: "date" },
      time: { type: "string", pattern: "^[0-2][0-9]:[0-5][0-9]$" },
      attendees: { type: "array", items: str },
    }),
  ],
  [
    "product",
    "Make a product listing for a blue ceramic mug that costs 12.50 EUR and is in stock.",
    obj({
      name: str,
      price: { type: "number", minimum: 0 },
      currency: { enum: ["EUR", "USD", "GBP"] },
      in_stock: bool,
    }),
  ],
  [
    "recipe",
    "Give a simple pancake recipe.",
    obj({
      name: str,
      servings: { type: "integer", minimum: 1, maximum: 12 },
      ingredients: { type: "array", items: obj({ item: str, amount: str }), maxItems: 8 },
      steps: { type: "array", items: str, maxItems: 6 },
    }),
  ],
  [
    "yes-no",
    "Is the Earth flat? Answer in JSON with a short reason.",
    obj({ answer: bool, reason: { type: "string", maxLength: 80 } }),
  ],
  ["math", "What is 17 times 23? Show the result as JSON.", obj({ expression: str, result: int })],
  [
    "country",
    "Give facts about Japan: capital, population in millions, and official languages.",
    obj({
      country: str,
      capital: str,
      population_millions: num,
      languages: { type: "array", items: str, minItems: 1 },
    }),
  ],
  [
    "email",
    "Extract the contact: write to jane.doe@example.com, Jane Doe, phone +44 20 7946 0958.",
    obj({ name: str, email: { type: "string", format: "email" }, phone: str }),
  ],
  [
    "bug",
    "File a bug report: the login button does nothing on Safari 17; severity high.",
    obj({
      title: str,
      browser: str,
      severity: { enum: ["low", "medium", "high", "critical"] },
      steps: { type: "array", items: str, maxItems: 5 },
    }),
  ],
  [
    "coordinates",
    "Give the latitude and longitude of the Eiffel Tower.",
    obj({
      place: str,
      lat: { type: "number", minimum: -90, maximum: 90 },
      lon: { type: "number", minimum: -180, maximum: 180 },
    }),
  ],
  [
    "optional-fields",
    "Describe a cat named Tom; include its age only if you know it.",
    obj({ name: str, species: { const: "cat" }, age: int }, ["name", "species"]),
  ],
  [
    "union",
    "Give either a number or a list of numbers: the first three primes.",
    obj({ value: { anyOf: [num, { type: "array", items: num, maxItems: 5 }] } }),
  ],
  [
    "nested",
    "Describe a company with two departments, each with a name and a head count.",
    obj({
      company: str,
      departments: {
        type: "array",
        items: obj({ name: str, headcount: { type: "integer", minimum: 1 } }),
        minItems: 2,
        maxItems: 2,
      },
    }),
  ],
  [
    "tags",
    "Suggest up to five tags for a blog post about home espresso.",
    obj({
      tags: { type: "array", items: { type: "string", pattern: "^[a-z-]+$", maxLength: 20 }, minItems: 1, maxItems: 5 },
    }),
  ],
  ["translation", 'Translate "good morning" into French and Spanish.', obj({ source: str, fr: str, es: str })],
].map(([name, prompt, schema]) => ({ name, prompt, schema }));

/** The user message: the task, then the schema the answer must fit. */
export const promptText = (p) =>
  `${p.prompt}\nAnswer with one JSON value only, fitting this JSON schema:\n${JSON.stringify(p.schema)}`;
