#!/usr/bin/env node
// `toolmask` (package.json "bin"): the command line. The work is in dispatch.ts.
import { main } from "./dispatch.js";

process.exitCode = await main(process.argv.slice(2));
