/**
 * The HTTP scenarios, as requests for wrk (`wrk.ts`): the same requests go to
 * every server measured.
 */
import type { WrkRequest } from "./wrk.js"

export const httpScenarios = [
  "listPets limit=20",
  "listPets status limit=100",
  "createPet",
  "getPet",
  "401 (no key)"
] as const

export type HttpScenario = typeof httpScenarios[number]

export const expectedStatus: Record<HttpScenario, number> = {
  "listPets limit=20": 200,
  "listPets status limit=100": 200,
  "createPet": 201,
  "getPet": 200,
  "401 (no key)": 401
}

/**
 * `ours`: the standalone server of this checkout; `memory`: the same on its
 * memory store; `baseline`: the standalone server built from another commit
 * (`pnpm bench --baseline`).
 */
export type Server = "ours" | "floor" | "fastify" | "memory" | "baseline"

/**
 * The scenarios the memory-store server runs: those that need no animals
 * stored first. It starts empty, and storing the 1,000,000 animals of the
 * others over HTTP would take minutes.
 */
export const memoryScenarios: ReadonlyArray<HttpScenario> = ["createPet", "401 (no key)"]

/** What the load process runs, in order. */
export interface LoadPlan {
  readonly connections: number
  readonly warmupSeconds: number
  readonly seconds: number
  readonly key: string
  /** Cursors spread over the table, of the unfiltered listing, used in turn. */
  readonly cursors: ReadonlyArray<string>
  /** The same, the n-th of the listing of `statuses[n % 3]`. */
  readonly statusCursors: ReadonlyArray<string>
  /** Existing ids, used in turn by `getPet`. */
  readonly ids: ReadonlyArray<number>
  /** `warmUp`: a warm-up run of `warmupSeconds` comes first (the first round of each server and scenario). */
  readonly runs: ReadonlyArray<
    { readonly server: Server; readonly url: string; readonly scenario: HttpScenario; readonly warmUp: boolean }
  >
}

/**
 * The runs of `rounds` rounds: in each, every scenario on each of its `serversOf`
 * back to back, the order rotated each round and reversed every other round,
 * so each server runs before and after each other; the first round warms up.
 */
export const roundsOf = (
  rounds: number,
  serversOf: (scenario: HttpScenario) => ReadonlyArray<Server>,
  urls: Partial<Record<Server, string>>
): LoadPlan["runs"] =>
  Array.from({ length: rounds }, (_, round) =>
    httpScenarios.flatMap((scenario, i) => {
      const servers = serversOf(scenario)
      const first = (i + round) % servers.length
      const rotated = [...servers.slice(first), ...servers.slice(0, first)]
      const order = round % 2 === 0 ? rotated : rotated.reverse()
      return order.map((server) => ({ server, url: urls[server]!, scenario, warmUp: round === 0 }))
    })).flat()

/** A line of the load process: a measured run starts, or its result. */
export type LoadLine =
  | { readonly event: "start"; readonly server: Server; readonly scenario: HttpScenario }
  | ({ readonly event: "result" } & LoadResult)

export interface LoadResult {
  readonly server: Server
  readonly scenario: HttpScenario
  readonly requestsPerSecond: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly requests: number
  readonly statusCounts: Record<string, number>
  readonly errors: number
  /** Connection errors and responses of another status than the scenario's. */
  readonly unexpected: number
}

/** The statuses the status listing goes through, in turn. */
export const statuses = ["available", "pending", "sold"] as const

/** The wrk requests of a scenario: paths vary per request, in turn through the plan's cursors and ids. */
export const requestOf = (scenario: HttpScenario, plan: LoadPlan): WrkRequest => {
  const authorization = { authorization: `Bearer ${plan.key}` }
  switch (scenario) {
    case "listPets limit=20":
      return {
        method: "GET",
        paths: plan.cursors.map((cursor) => `/v1/pets?limit=20&cursor=${cursor}`),
        headers: authorization
      }
    case "listPets status limit=100":
      return {
        method: "GET",
        paths: plan.statusCursors.map((cursor, i) =>
          `/v1/pets?status=${statuses[i % statuses.length]}&limit=100&cursor=${cursor}`
        ),
        headers: authorization
      }
    case "createPet":
      return {
        method: "POST",
        paths: ["/v1/pets"],
        headers: { ...authorization, "content-type": "application/json" },
        body: JSON.stringify({ name: "Bench pet", categoryId: 7, status: "pending" })
      }
    case "getPet":
      return { method: "GET", paths: plan.ids.map((id) => `/v1/pets/${id}`), headers: authorization }
    case "401 (no key)":
      return { method: "GET", paths: ["/v1/pets?limit=20"], headers: {} }
  }
}
