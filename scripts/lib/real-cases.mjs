// The real-model suite's requests: 56 prompts, each with its own tool set (1 to 10 tools whose
// parameters are strings, enums, integers, numbers, booleans, nested objects and arrays, required
// and optional), a tool choice (auto, required, named, none) and parallel calls on or off, the
// eight combinations taken in turn so each appears 7 times. Plain data: the same cases on every
// run, for test/model-real/ (a fixed sample) and scripts/bench/bench-models.mjs (all of them).

const fn = (name, description, properties, required) => ({
  type: "function",
  function: { name, description, parameters: { type: "object", properties, required } },
});

/** Every tool a case may offer, by name. */
export const TOOLS = {
  get_weather: fn(
    "get_weather",
    "Get the current weather for a city",
    {
      city: { type: "string", description: "City name" },
      unit: { type: "string", enum: ["celsius", "fahrenheit"] },
      days: { type: "integer", minimum: 1, maximum: 14, description: "Days of forecast" },
    },
    ["city"],
  ),
  search_web: fn(
    "search_web",
    "Search the web",
    {
      query: { type: "string" },
      max_results: { type: "integer", minimum: 1, maximum: 50 },
    },
    ["query"],
  ),
  send_email: fn(
    "send_email",
    "Send an email",
    {
      to: { type: "string", description: "Recipient address" },
      subject: { type: "string" },
      body: { type: "string" },
      cc: { type: "array", items: { type: "string" } },
    },
    ["to", "subject", "body"],
  ),
  create_event: fn(
    "create_event",
    "Create a calendar event",
    {
      title: { type: "string" },
      date: { type: "string", description: "YYYY-MM-DD" },
      attendees: { type: "array", items: { type: "string" } },
      location: {
        type: "object",
        properties: { name: { type: "string" }, address: { type: "string" } },
        required: ["name"],
      },
    },
    ["title", "date"],
  ),
  convert_currency: fn(
    "convert_currency",
    "Convert an amount between currencies",
    {
      amount: { type: "number" },
      from: { type: "string", enum: ["USD", "EUR", "GBP", "JPY"] },
      to: { type: "string", enum: ["USD", "EUR", "GBP", "JPY"] },
    },
    ["amount", "from", "to"],
  ),
  book_flight: fn(
    "book_flight",
    "Book a flight",
    {
      origin: { type: "string" },
      destination: { type: "string" },
      date: { type: "string" },
      passengers: { type: "integer", minimum: 1, maximum: 9 },
      cabin: { type: "string", enum: ["economy", "business", "first"] },
    },
    ["origin", "destination", "date"],
  ),
  set_thermostat: fn(
    "set_thermostat",
    "Set the thermostat",
    {
      temperature: { type: "integer", minimum: 5, maximum: 35 },
      mode: { type: "string", enum: ["heat", "cool", "auto"] },
    },
    ["temperature"],
  ),
  add_todo: fn(
    "add_todo",
    "Add an item to the to-do list",
    {
      task: { type: "string" },
      priority: { type: "string", enum: ["low", "medium", "high"] },
      tags: { type: "array", items: { type: "string" }, maxItems: 5 },
      done: { type: "boolean" },
    },
    ["task"],
  ),
  get_stock_price: fn(
    "get_stock_price",
    "Get the latest price of a stock",
    {
      symbol: { type: "string", description: "Ticker symbol" },
    },
    ["symbol"],
  ),
  translate: fn(
    "translate",
    "Translate text",
    {
      text: { type: "string" },
      target_language: { type: "string", enum: ["English", "French", "German", "Spanish", "Japanese"] },
    },
    ["text", "target_language"],
  ),
  create_user: fn(
    "create_user",
    "Create a user account",
    {
      profile: {
        type: "object",
        properties: {
          name: { type: "string" },
          age: { type: "integer", minimum: 0, maximum: 150 },
          address: {
            type: "object",
            properties: { city: { type: "string" }, country: { type: "string" } },
            required: ["city"],
          },
        },
        required: ["name"],
      },
      roles: { type: "array", items: { type: "string", enum: ["admin", "editor", "viewer"] } },
    },
    ["profile"],
  ),
  calculate: fn(
    "calculate",
    "Evaluate an arithmetic expression",
    {
      expression: { type: "string" },
    },
    ["expression"],
  ),
  play_music: fn(
    "play_music",
    "Play music",
    {
      song: { type: "string" },
      artist: { type: "string" },
      volume: { type: "integer", minimum: 0, maximum: 100 },
    },
    ["song"],
  ),
  get_time: fn(
    "get_time",
    "Get the current time in a time zone",
    {
      timezone: { type: "string", description: "IANA name, e.g. Europe/Paris" },
    },
    ["timezone"],
  ),
};

/** [prompt, the tools offered (the first is the one it asks for)]: 56 prompts, 1 to 10 tools each. */
const PROMPTS = [
  ["What is the weather in Paris right now?", ["get_weather"]],
  ["Will it rain in London over the next 3 days? Use celsius.", ["get_weather", "search_web"]],
  ["Search the web for the latest news about electric cars.", ["search_web"]],
  ["Find me 5 articles about the history of Rome.", ["search_web", "get_weather", "calculate"]],
  ["Send an email to alice@example.com with the subject 'Lunch' saying I will be late.", ["send_email"]],
  [
    "Email bob@example.com, cc carol@example.com, subject Report, body: the report is attached.",
    ["send_email", "create_event", "add_todo", "search_web"],
  ],
  ["Create a meeting called Standup on 2025-03-14 with Ann and Joe.", ["create_event"]],
  [
    "Schedule a dinner named Anniversary on 2025-06-01 at Le Bistro, 12 Rue Cler.",
    ["create_event", "send_email", "get_weather", "book_flight", "get_time"],
  ],
  ["Convert 100 US dollars to euros.", ["convert_currency"]],
  ["How many yen is 250 pounds?", ["convert_currency", "calculate", "get_stock_price"]],
  ["Book a flight from Boston to Denver on 2025-05-02 for 2 people.", ["book_flight"]],
  [
    "I need a business class ticket from Tokyo to Sydney on 2025-09-10.",
    ["book_flight", "convert_currency", "get_weather", "create_event", "send_email", "get_time"],
  ],
  ["Set the thermostat to 21 degrees.", ["set_thermostat"]],
  ["It's cold in here, heat the house to 23.", ["set_thermostat", "play_music", "get_weather"]],
  ["Add 'buy milk' to my to-do list.", ["add_todo"]],
  [
    "Add a high priority task to file my taxes, tagged finance and urgent.",
    ["add_todo", "create_event", "send_email", "calculate", "translate", "get_time", "search_web"],
  ],
  ["What is Apple's stock price?", ["get_stock_price"]],
  ["Look up the price of NVDA.", ["get_stock_price", "search_web", "convert_currency", "calculate"]],
  ["Translate 'good morning' into French.", ["translate"]],
  ["How do you say 'where is the station' in Japanese?", ["translate", "search_web"]],
  ["Create a user named Maria Lopez, 34, living in Madrid, Spain, as an editor.", ["create_user"]],
  ["Make an admin account for Tom, who lives in Oslo.", ["create_user", "send_email", "add_todo"]],
  ["What is 17 times 23?", ["calculate"]],
  ["Compute (45 + 12) / 3.", ["calculate", "convert_currency", "get_stock_price", "get_time", "translate"]],
  ["Play Bohemian Rhapsody by Queen.", ["play_music"]],
  [
    "Put on some jazz at volume 30.",
    ["play_music", "set_thermostat", "get_weather", "search_web", "add_todo", "get_time", "send_email", "translate"],
  ],
  ["What time is it in Tokyo?", ["get_time"]],
  ["Tell me the current time in New York.", ["get_time", "get_weather"]],
  [
    "What's the weather in Berlin and in Rome?",
    [
      "get_weather",
      "get_time",
      "search_web",
      "calculate",
      "translate",
      "convert_currency",
      "get_stock_price",
      "play_music",
      "add_todo",
    ],
  ],
  [
    "Get the stock prices of MSFT and GOOG.",
    [
      "get_stock_price",
      "search_web",
      "convert_currency",
      "calculate",
      "get_time",
      "translate",
      "get_weather",
      "play_music",
      "add_todo",
      "send_email",
    ],
  ],
  ["Translate 'thank you' into German and into Spanish.", ["translate", "search_web", "calculate"]],
  ["Set the heating to 19 and play some relaxing music.", ["set_thermostat", "play_music", "get_weather", "add_todo"]],
  [
    "Give me the 7 day forecast for Chicago in fahrenheit.",
    ["get_weather", "get_time", "search_web", "set_thermostat", "book_flight", "create_event"],
  ],
  [
    "Search for cheap hotels in Lisbon, 10 results.",
    [
      "search_web",
      "book_flight",
      "convert_currency",
      "get_weather",
      "translate",
      "get_time",
      "create_event",
      "send_email",
    ],
  ],
  ["Write to dev@example.org about the outage, subject 'Outage', body 'Servers are down'.", ["send_email", "add_todo"]],
  [
    "Put a Team lunch on 2025-04-20 in my calendar.",
    ["create_event", "add_todo", "send_email", "get_time", "get_weather", "search_web", "book_flight"],
  ],
  ["Convert 3.5 euros to dollars.", ["convert_currency", "calculate"]],
  [
    "Fly me from Paris to Rome on 2025-07-15, economy.",
    [
      "book_flight",
      "get_weather",
      "translate",
      "convert_currency",
      "create_event",
      "get_time",
      "search_web",
      "send_email",
      "add_todo",
    ],
  ],
  ["Cool the room down to 18 degrees.", ["set_thermostat"]],
  ["Remind me to call mom, low priority.", ["add_todo", "create_event", "send_email", "get_time", "play_music"]],
  [
    "How much is one share of Tesla?",
    [
      "get_stock_price",
      "calculate",
      "search_web",
      "convert_currency",
      "get_weather",
      "get_time",
      "translate",
      "play_music",
      "book_flight",
      "create_user",
    ],
  ],
  [
    "Translate 'I love books' to Spanish.",
    ["translate", "search_web", "calculate", "get_time", "send_email", "add_todo"],
  ],
  [
    "Register viewer account for Li Wei, age 27, from Shanghai, China.",
    ["create_user", "send_email", "add_todo", "get_time", "search_web", "create_event", "translate", "calculate"],
  ],
  ["What is 2 to the power of 10?", ["calculate", "search_web"]],
  [
    "Play Yesterday by the Beatles, quietly.",
    ["play_music", "search_web", "get_time", "add_todo", "translate", "get_weather", "set_thermostat"],
  ],
  ["What's the time in Sydney?", ["get_time", "get_weather", "search_web", "calculate"]],
  [
    "Is it sunny in Madrid today?",
    [
      "get_weather",
      "search_web",
      "book_flight",
      "get_time",
      "translate",
      "play_music",
      "calculate",
      "convert_currency",
      "create_event",
      "add_todo",
    ],
  ],
  [
    "Look up who won the 2018 World Cup.",
    [
      "search_web",
      "get_time",
      "calculate",
      "translate",
      "get_weather",
      "get_stock_price",
      "play_music",
      "add_todo",
      "send_email",
    ],
  ],
  ["Tell me a short joke.", ["get_weather", "search_web"]],
  ["Say hello in one word.", ["calculate", "get_time", "translate", "play_music"]],
  ["What is the capital of Italy? Answer directly.", ["get_weather"]],
  [
    "Thank you, that is all.",
    ["add_todo", "send_email", "create_event", "get_time", "search_web", "get_weather", "set_thermostat"],
  ],
  [
    "Email the team at team@example.com that the demo moved to Friday, and add a to-do to prepare slides.",
    ["send_email", "add_todo", "create_event"],
  ],
  [
    "Book a flight from Madrid to Lima on 2025-11-03 and convert 500 euros to dollars.",
    ["book_flight", "convert_currency", "get_weather", "get_time", "search_web"],
  ],
  [
    "Create user Sam, aged 41, with roles admin and editor, address Toronto, Canada.",
    [
      "create_user",
      "add_todo",
      "send_email",
      "search_web",
      "get_time",
      "translate",
      "calculate",
      "create_event",
      "play_music",
      "set_thermostat",
    ],
  ],
  [
    "Check the weather in Oslo for 2 days and set the thermostat to 22 on heat.",
    ["get_weather", "set_thermostat", "get_time", "play_music", "add_todo", "search_web"],
  ],
];

const CHOICES = ["auto", "required", "named", "none"];

/**
 * Every case: `id` (its index), `prompt`, `tools` (OpenAI tools), `toolChoice` (for "named": the
 * prompt's own tool), `parallel` (parallelToolCalls), `choice` (the kind: auto, required, named, none).
 */
export function realCases() {
  return PROMPTS.map(([prompt, names], id) => {
    const kind = CHOICES[id % 4];
    const parallel = Math.floor(id / 4) % 2 === 0;
    const toolChoice = kind === "named" ? { type: "function", function: { name: names[0] } } : kind;
    return { id, prompt, tools: names.map((n) => TOOLS[n]), toolChoice, choice: kind, parallel };
  });
}

/**
 * A fixed sample of `n` cases (at most 56), the same on every run: case 8·(k mod 7) + (k mod 8)
 * for k = 0, 1, …, so the first 8 hold every combination of choice and parallel, and the tool
 * sets' sizes spread over the list.
 */
export function sampleCases(n) {
  const all = realCases();
  return Array.from({ length: Math.min(n, all.length) }, (_, k) => all[8 * (k % 7) + (k % 8)]);
}
