/**
 * A host that keeps a remote Animal Store in step with its own catalogue,
 * through the typed client: each entry is created under an
 * `Idempotency-Key` made from its SKU, so running the import again (after a
 * crash, a timeout, a deploy) never creates an animal twice; the client
 * waits on 429s and retries what is safe, and the import counts what is
 * listed by following every page.
 */
import type { ClientError } from "@animal-store/client"
import { AnimalStoreClient } from "@animal-store/client"
import { FetchHttpClient } from "@effect/platform"
import { Effect, Layer, Stream } from "effect"

export interface CatalogueEntry {
  readonly sku: string
  readonly name: string
  readonly categoryId: number
}

/** Creates every entry (at most once per SKU, ever) and counts the animals the store lists. */
export const importCatalogue = (
  entries: ReadonlyArray<CatalogueEntry>
): Effect.Effect<
  { readonly ids: ReadonlyArray<number>; readonly listed: number },
  ClientError.ClientError,
  AnimalStoreClient.AnimalStoreClient
> =>
  Effect.gen(function*() {
    const store = yield* AnimalStoreClient.AnimalStoreClient
    const created = yield* Effect.forEach(
      entries,
      (entry) =>
        store.createPet({ name: entry.name, categoryId: entry.categoryId }, { idempotencyKey: `catalogue-${entry.sku}` }),
      { concurrency: 4 }
    )
    const listed = yield* Stream.runCount(store.pets({ limit: 2 }))
    return { ids: created.map((pet) => pet.id), listed }
  })

/** The import as a program: the client on `fetch`, configured with the store's address and a key. */
export const runImport = (baseUrl: string, apiKey: string, entries: ReadonlyArray<CatalogueEntry>) =>
  Effect.runPromise(
    importCatalogue(entries).pipe(
      Effect.provide(AnimalStoreClient.layer({ baseUrl, apiKey }).pipe(Layer.provide(FetchHttpClient.layer)))
    )
  )
