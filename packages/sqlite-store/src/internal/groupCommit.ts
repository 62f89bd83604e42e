/**
 * How the store's ports use the `SqliteClient`'s one connection. The writes
 * of one turn of the event loop run in one `BEGIN IMMEDIATE` transaction,
 * which commits once; each caller is then answered with its own result, or
 * all of them with the `StoreError` of a failed commit (group commit).
 * A transaction runs without yielding to other fibers, so a read, which runs
 * at once outside it, sees committed data only; a host's `SqlClient`
 * transaction held open on the connection by another fiber is waited for by
 * writes (`sql.reserve`), not by reads. Statements run on the connection
 * itself (`SqlConnection`), prepared once by the client's cache.
 *
 * @internal
 */
import { StoreError } from "@animal-store/core"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import type { SqlError } from "@effect/sql/SqlError"
import type { Scope } from "effect"
import { Cause, Context, Effect, Exit, Option } from "effect"
import * as FileGuard from "./fileGuard.js"
import { fromCause, mapStoreError } from "./storeError.js"

/** The client's connection, as the ports run their statements on it. */
export type Connection = SqlConnection.Connection

/** A value bound to a `?` of a statement. */
export type Parameter = string | number | bigint | Uint8Array | null

/** The rows of a query, each an array of its column values in the order of its columns. */
export const values = <Row extends ReadonlyArray<unknown>>(
  connection: Connection,
  sql: string,
  ...params: ReadonlyArray<Parameter>
): Effect.Effect<ReadonlyArray<Row>, SqlError> =>
  connection.executeValues(sql, params) as Effect.Effect<ReadonlyArray<Row>, SqlError>

/** The rows of a query as objects by column name (cheaper than `values` through the client). */
export const rows = <Row extends object>(
  connection: Connection,
  sql: string,
  ...params: ReadonlyArray<Parameter>
): Effect.Effect<ReadonlyArray<Row>, SqlError> =>
  connection.executeRaw(sql, params) as Effect.Effect<ReadonlyArray<Row>, SqlError>

/** Runs a statement that returns no rows: the rowid of the last row it inserted. */
export const run = (
  connection: Connection,
  sql: string,
  ...params: ReadonlyArray<Parameter>
): Effect.Effect<{ readonly changes: number; readonly lastInsertRowid: number | bigint }, SqlError> =>
  connection.executeRaw(sql, params) as unknown as Effect.Effect<
    { readonly changes: number; readonly lastInsertRowid: number | bigint },
    SqlError
  >

/** What a write learns of the end of the transaction it ran in, before its caller is answered. */
export type OnEnd = (committed: boolean) => void

/**
 * @internal
 */
export interface GroupCommit {
  /**
   * Runs `f`, which reads, with the connection: inside the caller's
   * `SqlClient` transaction on this client, in it; else outside any of the
   * store's transactions (what it reads is committed).
   */
  readonly read: <A>(
    doing: string,
    f: (connection: Connection) => Effect.Effect<A, SqlError | StoreError.StoreError>
  ) => Effect.Effect<A, StoreError.StoreError>
  /** Whether the caller runs in its own `SqlClient` transaction on this client. */
  readonly inTransaction: Effect.Effect<boolean>
  /**
   * Runs `f` in the next transaction of the writes, after those queued
   * before it; ends once that transaction has committed. If `f` fails, its
   * writes are undone and the others' are not (unless `atomic`, `f` writes
   * with one statement). Inside the caller's
   * `SqlClient` transaction on this client, runs in it instead (its commit is
   * the caller's; `onEnd` is then told `false`).
   */
  readonly write: <A>(
    doing: string,
    f: (connection: Connection) => Effect.Effect<A, SqlError | StoreError.StoreError>,
    options?: {
      /** `f` writes with more than one statement: it runs in a savepoint. */
      readonly atomic?: boolean
      readonly onEnd?: OnEnd
    }
  ) => Effect.Effect<A, StoreError.StoreError>
}

/**
 * @internal
 */
export const GroupCommit = Context.GenericTag<GroupCommit>("@animal-store/sqlite-store/internal/GroupCommit")

interface Write {
  readonly doing: string
  readonly run: (connection: Connection) => Effect.Effect<unknown, SqlError | StoreError.StoreError>
  readonly atomic: boolean
  readonly onEnd: OnEnd | undefined
  readonly resume: (exit: Exit.Exit<unknown, StoreError.StoreError>) => void
}

/** The most writes in one transaction. */
const maxBatch = 1_024

/**
 * Runs a transaction to its end without yielding to other fibers: no other
 * fiber uses the connection meanwhile, and another connection of this
 * process waiting for the write lock (synchronously, in SQLite's busy
 * handler) cannot block the event loop the transaction needs.
 */
const withoutYielding = Effect.withMaxOpsBeforeYield(Number.MAX_SAFE_INTEGER)

const execute = (connection: Connection, statement: string) => connection.executeRaw(statement, [])

/**
 * Runs `effect` in a `BEGIN IMMEDIATE` transaction of `sql` (the write lock
 * is taken before the first read, so no other connection writes in
 * between): committed when it succeeds, rolled back when it fails. `sql`
 * statements and transactions inside it run in it.
 *
 * @internal
 */
export const immediate = <A, E, R>(
  sql: SqlClient.SqlClient,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | SqlError, R> =>
  Effect.scoped(Effect.flatMap(sql.reserve, (connection) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        yield* execute(connection, "BEGIN IMMEDIATE")
        const exit = yield* Effect.exit(restore(Effect.provideService(effect, SqlClient.TransactionConnection, [connection, 0])))
        if (Exit.isFailure(exit)) {
          yield* Effect.ignore(execute(connection, "ROLLBACK"))
          return yield* exit
        }
        yield* Effect.tapError(execute(connection, "COMMIT"), () => Effect.ignore(execute(connection, "ROLLBACK")))
        return exit.value
      }).pipe(withoutYielding)
    )))

/** Whether `BEGIN` failed because a transaction is open on the connection: a host's, in another fiber. */
const isNested = (cause: Cause.Cause<SqlError>): boolean =>
  Option.exists(Cause.failureOption(cause), (error) => /within a transaction/.test(StoreError.messagesAlongCauses(error)))

/**
 * The group commit of `sql`. The writes of one turn of the event loop run
 * in one transaction, at the end of the turn; when a host's transaction is
 * open on the connection, once it has ended (`sql.reserve`). Writes still
 * queued when the scope closes fail.
 *
 * @internal
 */
export const make = (sql: SqlClient.SqlClient): Effect.Effect<GroupCommit, never, Scope.Scope> =>
  Effect.gen(function*() {
    const own = yield* Effect.orDie(Effect.scoped(sql.reserve))
    const guard = FileGuard.forClient(sql)
    const queued: Array<Write> = []
    let closed = false
    /** Batches waiting for a host's transaction to end: the next ones wait behind them, in order. */
    let waiting = 0

    const settle = (writes: ReadonlyArray<Write>, exits: ReadonlyArray<Exit.Exit<unknown, StoreError.StoreError>>, committed: boolean) => {
      for (const write of writes) write.onEnd?.(committed)
      writes.forEach((write, i) => write.resume(exits[i]!))
    }
    const failAll = (writes: ReadonlyArray<Write>, error: StoreError.StoreError) => {
      guard.failed(error)
      settle(writes, writes.map(() => Exit.fail(error)), false)
    }

    /**
     * Runs `writes` in one transaction on `connection`: an atomic write in a
     * savepoint, undone alone when it fails (any other writes with one
     * statement, which SQLite undoes alone). `false` when `BEGIN` found a
     * host's transaction open.
     */
    const transact = (connection: Connection, writes: ReadonlyArray<Write>): Effect.Effect<boolean> =>
      Effect.gen(function*() {
        const begun = yield* Effect.exit(execute(connection, "BEGIN IMMEDIATE"))
        if (Exit.isFailure(begun)) {
          if (isNested(begun.cause)) return false
          failAll(writes, toStoreError(writes[0]!.doing, begun.cause))
          return true
        }
        const exits: Array<Exit.Exit<unknown, StoreError.StoreError>> = []
        for (const write of writes) {
          const run = write.atomic
            ? Effect.zipRight(execute(connection, "SAVEPOINT write"), write.run(connection))
            : write.run(connection)
          const exit = yield* Effect.exit(mapStoreError(write.doing)(run))
          const ended = yield* Effect.exit(
            !write.atomic
              ? Effect.void
              : Exit.isSuccess(exit)
              ? execute(connection, "RELEASE write")
              : Effect.zipRight(execute(connection, "ROLLBACK TO write"), execute(connection, "RELEASE write"))
          )
          if (Exit.isFailure(ended) || (Exit.isFailure(exit) && abortsTransaction(exit.cause))) {
            // SQLite rolled the whole transaction back (a full disk, an I/O error): nothing of it is kept.
            yield* Effect.ignore(execute(connection, "ROLLBACK"))
            failAll(writes, toStoreError(write.doing, Exit.isFailure(exit) ? exit.cause : (ended as Exit.Failure<unknown, unknown>).cause))
            return true
          }
          exits.push(exit)
        }
        const refused = guard.beforeCommit() // the files must still be those opened: else nothing is acknowledged
        const committed = yield* Effect.exit<unknown, SqlError | StoreError.StoreError, never>(
          refused === undefined ? execute(connection, "COMMIT") : Effect.fail(refused)
        )
        if (Exit.isFailure(committed)) {
          yield* Effect.ignore(execute(connection, "ROLLBACK"))
          failAll(writes, toStoreError("Committing the writes", committed.cause))
          return true
        }
        guard.committed()
        settle(writes, exits, true)
        return true
      }).pipe(
        Effect.catchAllCause((cause) => Effect.sync(() => failAll(writes, toStoreError("Writing", cause))).pipe(Effect.as(true))),
        Effect.uninterruptible,
        withoutYielding
      )

    /** Runs the writes queued in this turn, then those queued meanwhile. */
    const flush = (): void => {
      const writes = queued.splice(0, maxBatch)
      if (queued.length > 0) setImmediate(flush)
      if (closed) return failAll(writes, closedError())
      if (waiting === 0 && Effect.runSync(transact(own, writes))) return
      // A host's transaction is open on the connection: once it has ended.
      waiting++
      Effect.runFork(Effect.scoped(Effect.flatMap(sql.reserve, (connection) => transact(connection, writes))).pipe(
        Effect.catchAllCause((cause) => Effect.sync(() => failAll(writes, toStoreError("Writing", cause)))),
        Effect.ensuring(Effect.sync(() => waiting--))
      ))
    }

    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        closed = true
        failAll(queued.splice(0), closedError())
      })
    )

    /** The caller's transaction on this client, if any. */
    const inOwnTransaction = (fiber: { readonly currentContext: Context.Context<never> }): boolean => {
      const transaction = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
      return Option.isSome(transaction) && transaction.value[0] === own
    }

    return GroupCommit.of({
      read: (doing, f) => mapStoreError(doing)(Effect.suspend(() => f(own))),
      inTransaction: Effect.withFiberRuntime((fiber) => Effect.succeed(inOwnTransaction(fiber))),
      write: <A>(
        doing: string,
        f: (connection: Connection) => Effect.Effect<A, SqlError | StoreError.StoreError>,
        options?: { readonly atomic?: boolean; readonly onEnd?: OnEnd }
      ) =>
        Effect.withFiberRuntime<A, StoreError.StoreError>((fiber) => {
          const onEnd = options?.onEnd
          if (inOwnTransaction(fiber)) {
            return f(own).pipe(mapStoreError(doing), Effect.ensuring(Effect.sync(() => onEnd?.(false))))
          }
          return Effect.async<A, StoreError.StoreError>((resume) => {
            if (queued.length === 0) setImmediate(flush)
            queued.push({ doing, run: f, atomic: options?.atomic === true, onEnd, resume: resume as Write["resume"] })
          })
        })
    })
  })

const closedError = () => fromCause("Writing", new Error("The store is closed"), "Unavailable")

/** Whether SQLite rolls the whole transaction back on this failure (it then goes on outside any). */
const abortsTransaction = (cause: Cause.Cause<StoreError.StoreError>): boolean => {
  const code = StoreError.codeAlongCauses(Cause.squash(cause), (code) => code.startsWith("SQLITE_"))
  return code !== undefined && /^SQLITE_(FULL|IOERR|BUSY|NOMEM|CORRUPT|NOTADB)/.test(code)
}

const toStoreError = (doing: string, cause: Cause.Cause<unknown>): StoreError.StoreError => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && (failure.value as { readonly _tag?: unknown })._tag === "StoreError") {
    return failure.value as StoreError.StoreError
  }
  return fromCause(doing, Option.getOrElse(failure, () => Cause.squash(cause)))
}
