/**
 * Which route a request is for: an operation of `PetsApi.endpoints` under
 * `/v1`, a document, a probe (`/healthz`, `/readyz`: `Health`), `OPTIONS`
 * of a known path, an unknown path (404) or a known path with another
 * method (405). `HEAD` is answered on every `GET` route as that route.
 *
 * @since 1.0.0
 */
import type { PetOperations } from "@animal-store/core"
import { Record } from "effect"
import { basePath, docsPath, endpoints, openApiPath } from "./PetsApi.js"

/**
 * The liveness probe's path (outside the base path).
 *
 * @since 1.0.0
 * @category constants
 */
export const healthzPath = "/healthz"

/**
 * The readiness probe's path (outside the base path).
 *
 * @since 1.0.0
 * @category constants
 */
export const readyzPath = "/readyz"

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
  /** `GET` or `HEAD` of a probe: needs no key, is not counted. */
  | { readonly _tag: "Probe"; readonly probe: "healthz" | "readyz" }
  | { readonly _tag: "Options"; readonly allow: ReadonlyArray<string> }
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

/**
 * The routes of the operations (`PetsApi.endpoints`, under the base path)
 * and of the OpenAPI document and its page.
 *
 * @since 1.0.0
 * @category constants
 */
export const entries: ReadonlyArray<Entry> = [
  { method: "GET", path: openApiPath, route: { _tag: "Document" } },
  { method: "GET", path: docsPath, route: { _tag: "Document" } },
  ...Record.toEntries(endpoints).map(([operation, endpoint]): Entry => ({
    method: endpoint.method,
    path: basePath + endpoint.path,
    route: { _tag: "Operation", operation }
  }))
]

/** A segment of a template that matches any one non-empty segment (`:petId`). */
const isParameter = (part: string): boolean => part.startsWith(":")

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * Each entry with the pattern of its path: its segments as written, each
 * parameter one segment of at least one character.
 */
const compiled = entries.map((entry) => {
  const template = entry.path.split("/")
  const params = template.filter(isParameter).map((part) => part.slice(1))
  const pattern = new RegExp(
    `^${template.map((part) => isParameter(part) ? "([^/]+)" : escapeRegExp(part)).join("/")}$`
  )
  return { ...entry, pattern, params }
})

type Compiled = (typeof compiled)[number]

/** The methods of the entries of one path: theirs, `HEAD` with `GET`, and `OPTIONS`. */
const allowOf = (methods: ReadonlyArray<string>): ReadonlyArray<string> => {
  const allow = new Set(methods)
  if (allow.has("GET")) allow.add("HEAD")
  allow.add("OPTIONS")
  return [...allow].sort()
}

/**
 * Every method of any route, for `OPTIONS *`.
 *
 * @since 1.0.0
 * @category constants
 */
export const allMethods: ReadonlyArray<string> = allowOf(entries.map((entry) => entry.method))

const routeOf = (entry: Compiled, found: RegExpExecArray): Route => {
  if (entry.route._tag === "Document") return entry.route
  const params: Record<string, string> = {}
  for (let i = 0; i < entry.params.length; i++) params[entry.params[i]!] = found[i + 1]!
  return { _tag: "Operation", operation: entry.route.operation, params }
}

const probeAllow: ReadonlyArray<string> = allowOf(["GET"])
const healthz: Route = { _tag: "Probe", probe: "healthz" }
const readyz: Route = { _tag: "Probe", probe: "readyz" }
const probeOptions: Route = { _tag: "Options", allow: probeAllow }
const probeMethodNotAllowed: Route = { _tag: "MethodNotAllowed", allow: probeAllow }

/** The route of `method` on a probe's path. */
const probeRoute = (method: string, probe: Route): Route =>
  method === "GET" || method === "HEAD"
    ? probe
    : method === "OPTIONS"
    ? probeOptions
    : probeMethodNotAllowed

/**
 * The route of `method` on `path` (the path without its query string).
 *
 * @since 1.0.0
 * @category constructors
 */
export const match = (method: string, path: string): Route => {
  if (path === healthzPath) return probeRoute(method, healthz)
  if (path === readyzPath) return probeRoute(method, readyz)
  if (path === "*") return method === "OPTIONS" ? { _tag: "Options", allow: allMethods } : { _tag: "NotFound" }
  const wanted = method === "HEAD" ? "GET" : method
  const others: Array<string> = []
  for (const entry of compiled) {
    const found = entry.pattern.exec(path)
    if (found === null) continue
    if (entry.method === wanted) return routeOf(entry, found)
    others.push(entry.method)
  }
  if (others.length === 0) return { _tag: "NotFound" }
  const allow = allowOf(others)
  return method === "OPTIONS" ? { _tag: "Options", allow } : { _tag: "MethodNotAllowed", allow }
}

const absoluteForm = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/

/**
 * The path of a request target, without its query string; the path of an
 * absolute-form target (`http://host/v1/pets?limit=5` is `/v1/pets`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const pathOf = (url: string): string => {
  let target = url
  if (target.charCodeAt(0) !== 47 /* "/" */) {
    const authority = absoluteForm.exec(target)
    if (authority !== null) target = target.slice(authority[0].length)
  }
  const query = target.indexOf("?")
  const path = query === -1 ? target : target.slice(0, query)
  return path === "" ? "/" : path
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
