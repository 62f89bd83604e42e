#!/usr/bin/env node
/**
 * The `animal-store` executable: `Cli.run` on `process.argv` under
 * `NodeRuntime.runMain` (SIGINT/SIGTERM interrupt it: the server shuts down
 * gracefully and the process exits 0).
 *
 * @since 1.0.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cli from "./Cli.js"

NodeRuntime.runMain(Cli.run(process.argv.slice(2), process.env), { disableErrorReporting: true, disablePrettyLogger: true })
