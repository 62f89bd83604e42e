#!/usr/bin/env node
/**
 * The `animal-store` executable: `Cli.run` on the process's arguments and
 * environment under `NodeRuntime.runMain` (SIGINT/SIGTERM interrupt it: the
 * server shuts down gracefully and the process exits 0; a failure has printed
 * its one line and exits 1).
 *
 * @since 1.0.0
 */
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeTerminal from "@effect/platform-node/NodeTerminal"
import { Effect, Layer } from "effect"
import * as Cli from "./Cli.js"

Cli.run(process.argv.slice(2), process.env).pipe(
  Effect.provide(Layer.mergeAll(NodeFileSystem.layer, NodePath.layer, NodeTerminal.layer)),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
