/**
 * The client of a remote Animal Store as an Effect service, built with
 * `HttpApiClient` from `PetsApi`. Each call paces itself on the key's window,
 * waits `Retry-After` and a backoff on 429, and sends again after a network
 * failure or a 5xx only what is safe to repeat (record 0024).
 *
 * @since 1.0.0
 */
import { Pet } from "@animal-store/core"
import { PetsApi } from "@animal-store/http-adapter/PetsApi"
import type { HttpClientResponse } from "@effect/platform"
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import type { ConfigError } from "effect"
import {
  Cause,
  Chunk,
  Clock,
  Config,
  Context,
  Effect,
  Exit,
  FiberRef,
  Layer,
  Option,
  ParseResult,
  Random,
  Redacted,
  Ref,
  Schema,
  Stream
} from "effect"
import { ResponseError, TransportError } from "./ClientError.js"
import type { ClientError } from "./ClientError.js"
import * as Deprecation from "./Deprecation.js"
import * as Link from "./internal/link.js"
import * as RateLimit from "./RateLimit.js"
import * as RetryPolicy from "./RetryPolicy.js"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** The base address, `/v1` included: production's or staging's (`https://api.example.com/v1`). */
  readonly baseUrl: string | URL
  /** The API key (`ask_live_...` or `ask_test_...`). */
  readonly apiKey: string | Redacted.Redacted<string>
  /** When to retry (`RetryPolicy.defaults` for what is left out). */
  readonly retry?: Partial<RetryPolicy.RetryPolicy> | undefined
  /** Hold requests while the window is spent instead of spending them on 429s. Default `true`. */
  readonly pacing?: boolean | undefined
  /** Called once per process when a deprecated operation's notice is first seen. */
  readonly onDeprecation?: ((notice: Deprecation.Notice) => void) | undefined
}

/**
 * The query of `listPets`.
 *
 * @since 1.0.0
 * @category models
 */
export interface ListPetsQuery {
  readonly limit?: number | undefined
  readonly status?: Pet.PetStatus | undefined
  /** The cursor of a previous page (`Page.next` carries it). */
  readonly cursor?: string | undefined
}

/**
 * One page of `listPets`.
 *
 * @since 1.0.0
 * @category models
 */
export interface Page {
  readonly pets: ReadonlyArray<Pet.Pet>
  /** The query of the next page (`Link: <...>; rel="next"`), `undefined` on the last page. */
  readonly next: ListPetsQuery | undefined
}

/**
 * An animal to create, as the interface's `NewPet` (status defaults to `available`).
 *
 * @since 1.0.0
 * @category models
 */
export type NewPet = typeof Pet.NewPet.Encoded

/**
 * @since 1.0.0
 * @category models
 */
export interface CreatePetOptions {
  /** The `Idempotency-Key`; a random one when left out. Reuse it to retry a call yourself. */
  readonly idempotencyKey?: string | undefined
}

/**
 * @since 1.0.0
 * @category models
 */
export interface AnimalStoreClientService {
  /** One page of animals, in ascending id order. */
  readonly listPets: (query?: ListPetsQuery) => Effect.Effect<Page, ClientError>
  /** Every animal from `query` on, page after page (following `Link: rel="next"`). */
  readonly pets: (query?: ListPetsQuery) => Stream.Stream<Pet.Pet, ClientError>
  /** Creates an animal; at most one, however often the call is retried. */
  readonly createPet: (pet: NewPet, options?: CreatePetOptions) => Effect.Effect<Pet.Pet, ClientError>
  /** An animal by id. Deprecated by the interface: reported once per process, `gone` after the sunset. */
  readonly getPet: (id: number) => Effect.Effect<Pet.Pet, ClientError>
  /** What the client believes of its key's budget (from the last responses). */
  readonly budget: Effect.Effect<RateLimit.Budget>
}

/**
 * @since 1.0.0
 * @category tags
 */
export class AnimalStoreClient extends Context.Tag("@animal-store/client/AnimalStoreClient")<
  AnimalStoreClient,
  AnimalStoreClientService
>() {}

/** The last response the current fiber's HTTP client received (set by the client's `tap`). */
const lastResponse = FiberRef.unsafeMake<HttpClientResponse.HttpClientResponse | undefined>(undefined)

const ErrorBody = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  status: Schema.Number,
  details: Schema.optional(Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String })))
})
const isErrorBody = Schema.is(ErrorBody)

const headerOf = (response: HttpClientResponse.HttpClientResponse): RateLimit.HeaderReader => (name) =>
  response.headers[name]

const detailsOf = (error: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    path: issue.path.length === 0 ? "" : `/${issue.path.join("/")}`,
    message: issue.message
  }))

/** A request the client refused to send: the same failure the server would answer. */
const invalidInput = (error: ParseResult.ParseError) =>
  new ResponseError({
    code: "invalid_request",
    message: "The request is not valid (checked before sending, with the interface's schemas)",
    status: 400,
    details: detailsOf(error),
    rateLimit: undefined,
    retryAt: undefined,
    attempts: 0
  })

type Outcome<A> =
  | { readonly _tag: "Success"; readonly value: A; readonly response: HttpClientResponse.HttpClientResponse }
  | { readonly _tag: "Refused"; readonly error: ResponseError; readonly retryAfterMillis: number | undefined }
  | { readonly _tag: "Unreachable"; readonly cause: unknown }

const resultOf = <A>(
  exit: Exit.Exit<A, unknown>,
  response: HttpClientResponse.HttpClientResponse | undefined,
  attempts: number,
  now: number
): Effect.Effect<Outcome<A>, ResponseError> => {
  if (exit._tag === "Success" && response !== undefined) {
    return Effect.succeed({ _tag: "Success", value: exit.value, response })
  }
  const error = Exit.isFailure(exit)
    ? Option.getOrElse(Cause.failureOption(exit.cause), () => Cause.squash(exit.cause))
    : undefined
  if (response === undefined) {
    if (error instanceof ParseResult.ParseError) return Effect.fail(invalidInput(error))
    return Effect.succeed({ _tag: "Unreachable", cause: error ?? exit })
  }
  const header = headerOf(response)
  const retryAfterMillis = RateLimit.retryAfterMillis(header, now)
  const refused = (body: typeof ErrorBody.Type) =>
    Effect.succeed<Outcome<A>>({
      _tag: "Refused",
      retryAfterMillis,
      error: new ResponseError({
        code: body.code as ResponseError["code"],
        message: body.message,
        status: response.status,
        details: body.details ?? [],
        rateLimit: RateLimit.fromHeaders(header),
        retryAt: retryAfterMillis === undefined ? undefined : new Date(now + retryAfterMillis),
        attempts
      })
    })
  if (isErrorBody(error)) return refused(error)
  // A status the definition does not declare (405, or a proxy's 502): read its body as an `Error`.
  return response.json.pipe(
    Effect.flatMap(Schema.decodeUnknown(ErrorBody)),
    Effect.matchEffect({
      onFailure: () => Effect.succeed<Outcome<A>>({ _tag: "Unreachable", cause: error }),
      onSuccess: refused
    })
  )
}

/** An attempt that failed: its error, whether it may be sent again, and the wait the server asked for. */
interface FailedAttempt extends RetryPolicy.Refusal {
  readonly error: ClientError
  readonly retryable: boolean
}

const finalFailure = (error: ClientError): FailedAttempt => ({ error, retryable: false, retryAfterMillis: 0 })

/**
 * The client, on the `HttpClient` of the context.
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<AnimalStoreClientService, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const retrySchedule = RetryPolicy.schedule(RetryPolicy.make(options.retry))
    const pacing = options.pacing ?? true
    const key = Redacted.isRedacted(options.apiKey) ? options.apiKey : Redacted.make(options.apiKey)
    const budget = yield* Ref.make(RateLimit.unknown)
    const api = yield* HttpApiClient.make(PetsApi, {
      baseUrl: options.baseUrl,
      transformClient: (client) =>
        client.pipe(
          HttpClient.mapRequest(HttpClientRequest.bearerToken(Redacted.value(key))),
          HttpClient.tap((response) => FiberRef.set(lastResponse, response))
        )
    })

    /** Waits as pacing asks; fails while the key is banned. */
    const admit = (attempts: number): Effect.Effect<void, ResponseError> =>
      Effect.gen(function*() {
        for (;;) {
          const now = yield* Clock.currentTimeMillis
          const admission = RateLimit.admit(yield* Ref.get(budget), now, pacing)
          if (admission._tag === "Send") return yield* Ref.update(budget, (b) => RateLimit.spend(b, now))
          if (admission._tag === "Banned") {
            return yield* new ResponseError({
              code: "api_key_banned",
              message: "The API key is banned until the time in retryAt; nothing was sent",
              status: 429,
              details: [],
              rateLimit: undefined,
              retryAt: new Date(admission.until),
              attempts
            })
          }
          yield* Effect.sleep(admission.millis)
        }
      })

    /** Sends `send` on the retry policy's schedule; `repeatable`: a network failure or a 5xx may be sent again. */
    const call = <A>(
      send: Effect.Effect<A, unknown>,
      repeatable: boolean,
      onResponse: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<void> = () => Effect.void
    ): Effect.Effect<{ readonly value: A; readonly response: HttpClientResponse.HttpClientResponse }, ClientError> =>
      Effect.flatMap(Ref.make(0), (attempts) =>
        Effect.gen(function*() {
          const attempt = yield* Ref.updateAndGet(attempts, (n) => n + 1)
          yield* Effect.mapError(admit(attempt - 1), finalFailure)
          yield* FiberRef.set(lastResponse, undefined)
          const exit = yield* Effect.exit(send)
          const response = yield* FiberRef.getAndSet(lastResponse, undefined)
          const now = yield* Clock.currentTimeMillis
          const outcome = yield* Effect.mapError(resultOf(exit, response, attempt, now), finalFailure)
          if (response !== undefined) {
            const seen = {
              rateLimit: RateLimit.fromHeaders(headerOf(response)),
              code: outcome._tag === "Refused" ? outcome.error.code : undefined,
              retryAfterMillis: outcome._tag === "Refused" ? outcome.retryAfterMillis : undefined
            }
            yield* Ref.update(budget, (b) => RateLimit.observe(b, seen, now))
            yield* onResponse(response)
          }
          if (outcome._tag === "Success") return { value: outcome.value, response: outcome.response }
          return yield* Effect.fail<FailedAttempt>(
            outcome._tag === "Refused"
              ? {
                error: outcome.error,
                retryable: outcome.error.code === "rate_limited" || (repeatable && outcome.error.status >= 500),
                retryAfterMillis: outcome.retryAfterMillis ?? 0
              }
              : {
                error: new TransportError({
                  message: `The Animal Store could not be reached (${attempt} attempt${attempt === 1 ? "" : "s"})`,
                  attempts: attempt,
                  cause: outcome.cause
                }),
                retryable: repeatable,
                retryAfterMillis: 0
              }
          )
        }).pipe(
          Effect.retry({ schedule: retrySchedule, while: (failed) => failed.retryable }),
          Effect.mapError((failed) => failed.error)
        ))

    const reportDeprecation = (operation: string, response: HttpClientResponse.HttpClientResponse) => {
      const notice = Deprecation.fromHeaders(operation, headerOf(response))
      return notice === undefined ? Effect.void : Deprecation.reportOnce(notice, options.onDeprecation)
    }

    const nextQuery = (response: HttpClientResponse.HttpClientResponse): ListPetsQuery | undefined => {
      const target = Link.target(response.headers["link"], "next")
      if (target === undefined) return undefined
      const params = new URL(target, "http://base").searchParams
      const limit = params.get("limit")
      return {
        ...(limit === null ? {} : { limit: Number(limit) }),
        ...(params.get("status") === null ? {} : { status: params.get("status") as Pet.PetStatus }),
        ...(params.get("cursor") === null ? {} : { cursor: params.get("cursor")! })
      }
    }

    const listPets = (query: ListPetsQuery = {}): Effect.Effect<Page, ClientError> =>
      call(
        api.listPets({
          urlParams: {
            ...(query.limit === undefined ? {} : { limit: query.limit }),
            ...(query.status === undefined ? {} : { status: query.status }),
            ...(query.cursor === undefined ? {} : { cursor: query.cursor as never })
          },
          withResponse: true
        }),
        true
      ).pipe(Effect.map(({ response, value: [pets] }) => ({ pets, next: nextQuery(response) })))

    const getPet = (id: number): Effect.Effect<Pet.Pet, ClientError> =>
      call(
        api.getPet({ path: { petId: id as Pet.PetId }, withResponse: true }),
        true,
        (response) => reportDeprecation("getPet", response)
      ).pipe(Effect.map(({ value: [pet] }) => pet))

    const createPet = (pet: NewPet, createOptions?: CreatePetOptions): Effect.Effect<Pet.Pet, ClientError> =>
      Effect.gen(function*() {
        const payload = yield* Schema.decodeUnknown(Pet.NewPet, { errors: "all" })(pet).pipe(Effect.mapError(invalidInput))
        const idempotencyKey = createOptions?.idempotencyKey ?? (yield* randomKey)
        const { value: [created] } = yield* call(
          api.createPet({ payload, headers: { "idempotency-key": idempotencyKey }, withResponse: true }),
          true
        )
        return created
      })

    return AnimalStoreClient.of({
      listPets,
      pets: (query) =>
        Stream.paginateChunkEffect(query ?? {}, (q) =>
          Effect.map(listPets(q), (page) => [Chunk.fromIterable(page.pets), Option.fromNullable(page.next)] as const)),
      createPet,
      getPet,
      budget: Ref.get(budget)
    })
  })

/** A random `Idempotency-Key` (a UUID v4 from Effect's `Random`, so tests can seed it). */
const randomKey: Effect.Effect<string> = Effect.map(
  Effect.all(Array.from({ length: 16 }, () => Random.nextIntBetween(0, 256))),
  (bytes) => {
    bytes[6] = (bytes[6]! & 0x0f) | 0x40
    bytes[8] = (bytes[8]! & 0x3f) | 0x80
    const hex = bytes.map((b) => b.toString(16).padStart(2, "0")).join("")
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  }
)

/**
 * @since 1.0.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<AnimalStoreClient, never, HttpClient.HttpClient> =>
  Layer.effect(AnimalStoreClient, make(options))

/**
 * The client configured by `ANIMAL_STORE_URL` (`/v1` included) and `ANIMAL_STORE_API_KEY`.
 *
 * @since 1.0.0
 * @category layers
 */
export const layerConfig = (
  options?: Omit<Options, "baseUrl" | "apiKey">
): Layer.Layer<AnimalStoreClient, ConfigError.ConfigError, HttpClient.HttpClient> =>
  Layer.effect(
    AnimalStoreClient,
    Effect.flatMap(
      Config.all({ baseUrl: Config.url("ANIMAL_STORE_URL"), apiKey: Config.redacted("ANIMAL_STORE_API_KEY") }),
      (config) => make({ ...options, ...config })
    )
  )
