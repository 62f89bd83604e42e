/**
 * Which route a request is for, from the `PetsApi` definition and the two
 * documents: an operation, a document, an unknown path (404; `/store/orders`
 * is not served) or a known path with another method (405 with the allowed
 * methods). Path parameters match any one non-empty segment.
 *
 * @since 1.0.0
 */
import type { PetOperations } from "@animal-store/core"
import * as HttpApi from "@effect/platform/HttpApi"
import { docsPath, openApiPath, PetsApi } from "./PetsApi.js"

/**
 * @since 1.0.0
 * @category models
 */
export type Route =
  | {
    readonly _tag: "Operation"
    readonly operation: PetOperations.OperationName
    /** The path parameters, as sent (not percent-decoded). */
    readonly params: Readonly<Record<string, string>>
  }
  | { readonly _tag: "Document" }
  | { readonly _tag: "NotFound" }
  | { readonly _tag: "MethodNotAllowed"; readonly allow: ReadonlyArray<string> }

/**
 * One route: a method, a path template (`/v1/pets/:petId`) and what it serves.
 *
 * @since 1.0.0
 * @category models
 */
export interface Entry {
  readonly method: string
  readonly path: string
  readonly route: { readonly _tag: "Operation"; readonly operation: PetOperations.OperationName } | {
    readonly _tag: "Document"
  }
}

const operationNames: ReadonlyArray<string> = ["listPets", "createPet", "getPet"] satisfies ReadonlyArray<
  PetOperations.OperationName
>

const isOperationName = (name: string): name is PetOperations.OperationName => operationNames.includes(name)

/**
 * The routes of `PetsApi`'s endpoints and of the OpenAPI document and its page.
 *
 * @since 1.0.0
 * @category constants
 */
export const entries: ReadonlyArray<Entry> = (() => {
  const out: Array<Entry> = [
    { method: "GET", path: openApiPath, route: { _tag: "Document" } },
    { method: "GET", path: docsPath, route: { _tag: "Document" } }
  ]
  HttpApi.reflect(PetsApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      if (!isOperationName(endpoint.name)) throw new Error(`Endpoint ${endpoint.name} is not an operation of core`)
      out.push({ method: endpoint.method, path: endpoint.path, route: { _tag: "Operation", operation: endpoint.name } })
    }
  })
  return out
})()

const segments = (path: string): ReadonlyArray<string> => path.split("/")

const matches = (template: ReadonlyArray<string>, path: ReadonlyArray<string>): boolean =>
  template.length === path.length &&
  template.every((part, i) => (part.startsWith(":") ? path[i]!.length > 0 : part === path[i]))

const compiled = entries.map((entry) => ({ ...entry, template: segments(entry.path) }))

/**
 * The route of `method` on `path` (the path without its query string).
 *
 * @since 1.0.0
 * @category constructors
 */
export const match = (method: string, path: string): Route => {
  const parts = segments(path)
  const candidates = compiled.filter((entry) => matches(entry.template, parts))
  if (candidates.length === 0) return { _tag: "NotFound" }
  const found = candidates.find((entry) => entry.method === method)
  if (found !== undefined) {
    if (found.route._tag === "Document") return found.route
    const params: Record<string, string> = {}
    found.template.forEach((part, i) => {
      if (part.startsWith(":")) params[part.slice(1)] = parts[i]!
    })
    return { _tag: "Operation", operation: found.route.operation, params }
  }
  return { _tag: "MethodNotAllowed", allow: [...new Set(candidates.map((entry) => entry.method))].sort() }
}

/**
 * The path of a request URL, without its query string.
 *
 * @since 1.0.0
 * @category constructors
 */
export const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

/**
 * The query parameters of a request URL.
 *
 * @since 1.0.0
 * @category constructors
 */
export const queryOf = (url: string): URLSearchParams => {
  const query = url.indexOf("?")
  return new URLSearchParams(query === -1 ? "" : url.slice(query + 1))
}
