/**
 * The `animal-store` command line as a process's program: `Cli.run` on the
 * process's arguments and environment under `NodeRuntime.runMain`
 * (SIGINT/SIGTERM interrupt it: the server shuts down gracefully and the
 * process exits 0; a failure has printed its one line and exits 1).
 *
 * @internal
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Effect, Layer } from "effect"
import * as Cli from "../Cli.js"

/** @internal */
export const main = (argv: ReadonlyArray<string>): void =>
  Cli.run(argv, process.env).pipe(
    Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)),
    NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
  )
