/**
 * The standalone server on a SQLite file, started from code: the same layer
 * `animal-store serve` runs. `NodeRuntime.runMain` turns SIGINT/SIGTERM into
 * a graceful shutdown (stop accepting, finish requests in flight, close the
 * database, exit 0).
 */
import { StandaloneServer } from "@animal-store/server"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Layer } from "effect"

export const server = (filename: string, port: number): ReturnType<typeof StandaloneServer.layer> =>
  StandaloneServer.layer({ host: "127.0.0.1", port, store: { _tag: "Sqlite", filename }, accessLog: false })

if (import.meta.url === `file://${process.argv[1]}`) {
  NodeRuntime.runMain(Layer.launch(server("./data/animal-store.db", 8080)))
}
