#!/usr/bin/env node
/**
 * The `animal-store` executable. `serve` started by a user runs the
 * supervisor (`Supervisor.main`), which forks the workers from this same
 * program; every other command, and `serve` in a worker, runs `Cli.run`.
 * Each is imported on its own: the supervisor loads no store and no HTTP API.
 * Started by a package runner (npx), the supervisor stops with it (`internal/parentWatch.ts`).
 *
 * @since 1.0.0
 */
import * as ParentWatch from "./internal/parentWatch.js"
import * as Supervision from "./internal/supervision.js"

const argv = process.argv.slice(2)
const help = argv.includes("--help") || argv.includes("-h")

if (argv[0] === "serve" && !help && Supervision.workerOf() === undefined) {
  void import("./Supervisor.js").then((Supervisor) => {
    Supervisor.main()
    ParentWatch.stopWithPackageRunner()
  })
} else {
  Supervision.openMailbox()
  void import("./internal/cliMain.js").then((CliMain) => CliMain.main(argv))
}
