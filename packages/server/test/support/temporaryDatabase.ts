import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

/** A fresh, empty SQLite file in a temporary folder removed with the scope. */
export const temporaryDatabase = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(Path.join(Os.tmpdir(), "animal-store-server-"))),
  (folder) => Effect.sync(() => Fs.rmSync(folder, { recursive: true, force: true }))
).pipe(Effect.map((folder) => Path.join(folder, "animal-store.db")))
