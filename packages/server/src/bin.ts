#!/usr/bin/env node
/**
 * The `animal-store` executable: `Cli.run` on `process.argv` under
 * `NodeRuntime.runMain` (SIGINT/SIGTERM interrupt it: the server shuts down
 * gracefully and the process exits 0).
 *
 * A terminal's Ctrl-C reaches this process and its parent (pnpm, a process
 * manager), which forwards it again; the listeners below keep that second
 * signal from cutting the graceful shutdown short (requests in flight end
 * within the request timeout, 30 s).
 *
 * @since 1.0.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cli from "./Cli.js"

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => {})
NodeRuntime.runMain(Cli.run(process.argv.slice(2), process.env), { disableErrorReporting: true, disablePrettyLogger: true })
