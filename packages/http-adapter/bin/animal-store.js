#!/usr/bin/env node
// Runs the TypeScript sources of the CLI with tsx (no build step).
import { register } from "tsx/esm/api"

register()
await import("../src/bin.ts")
