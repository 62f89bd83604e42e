/**
 * The one SQLite connection of a store, opened with better-sqlite3.
 *
 * It serves two ways, on one connection and one statement cache: `sql`, an
 * `@effect/sql` `SqlClient` (migrations, `sql` templates, `withTransaction`,
 * which begins with `BEGIN IMMEDIATE`), as `@effect/sql-sqlite-node`'s client
 * does; and `use`/`batched`, which the store's ports run their statements
 * with: each statement is
 * prepared once and every call runs synchronously, in one step no other
 * fiber can interleave with, without the work a `SqlClient` does around each
 * statement (a span, compiling the template, taking the connection's
 * semaphore in a scope), which cost several times SQLite's own work on the
 * store's small queries.
 *
 * @since 1.0.0
 */
import { StoreError } from "@animal-store/core"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { Context, Effect, Exit, Option, Runtime, Schedule, Scope } from "effect"
import type * as BetterSqlite3 from "./internal/betterSqlite3.js"
import { isBusy, isSqliteError, open } from "./internal/betterSqlite3.js"
import { fromCause } from "./internal/storeError.js"

/**
 * @since 1.0.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@animal-store/sqlite-store/SqliteDatabase")

/**
 * @since 1.0.0
 * @category type ids
 */
export type TypeId = typeof TypeId

/**
 * How SQLite makes a commit durable:
 *
 * - `"NORMAL"` (default): with WAL, a commit is in the operating system's
 *   file cache when it is acknowledged. It survives the process being killed
 *   (even with `kill -9`); on power loss or an operating system crash the last
 *   commits before the last checkpoint may be lost, the database stays
 *   consistent.
 * - `"FULL"`: every commit is also flushed to the disk (`fsync`) before it is
 *   acknowledged, so it survives power loss too, at the cost of one flush per
 *   write.
 *
 * @since 1.0.0
 * @category models
 */
export type Synchronous = "NORMAL" | "FULL"

/**
 * @since 1.0.0
 * @category models
 */
export interface Options {
  /** Path of the database file (its folder is created), or `":memory:"`. */
  readonly filename: string
  /** Default `"NORMAL"`. */
  readonly synchronous?: Synchronous | undefined
  /** How long a write waits for another connection's lock before failing, in ms. Default 5000. */
  readonly busyTimeout?: number | undefined
}


/**
 * A value bound to a `?` of a statement.
 *
 * @since 1.0.0
 * @category models
 */
export type Parameter = string | number | bigint | Uint8Array | null

/**
 * The connection as `use` lends it: synchronous. Statements are prepared on
 * first use and kept, by text, for the life of the connection: pass constant
 * SQL texts with `?` parameters.
 *
 * @since 1.0.0
 * @category models
 */
export interface Connection {
  /** The rows of a query, each an array of its column values in the order of its columns (cheaper than objects). */
  readonly values: <Row extends ReadonlyArray<unknown>>(sql: string, ...params: ReadonlyArray<Parameter>) => ReadonlyArray<Row>
  /**
   * The first row of a query as `values` gives it, if any. For a statement
   * that writes and returns its row (`RETURNING`) it is also cheaper than
   * `values`: the statement is not stepped again after the row.
   */
  readonly firstValues: <Row extends ReadonlyArray<unknown>>(
    sql: string,
    ...params: ReadonlyArray<Parameter>
  ) => Row | undefined
  /** Runs a statement, ignoring what it returns. */
  readonly run: (sql: string, ...params: ReadonlyArray<Parameter>) => void
  /**
   * Runs `f` in a `BEGIN IMMEDIATE` transaction (a savepoint inside an open
   * transaction): committed when `f` returns, rolled back when it throws. The
   * write lock is taken before `f` reads, so no other connection, in this
   * process or another, writes between what `f` reads and what it writes.
   */
  readonly immediate: <A>(f: () => A) => A
}

/**
 * @since 1.0.0
 * @category models
 */
export interface SqliteDatabase {
  readonly [TypeId]: TypeId
  readonly filename: string
  /**
   * The connection as an `@effect/sql` `SqlClient`. Its `withTransaction`
   * begins with `BEGIN IMMEDIATE`, as `Connection.immediate` does: the write
   * lock is taken before the first read.
   */
  readonly sql: SqlClient.SqlClient
  /**
   * Runs `f` with the connection, synchronously. An error SQLite reports is a
   * `StoreError` about `doing`; anything else `f` throws is a defect. When a
   * `SqlClient` transaction of another fiber is open on the connection, waits
   * for it to end first (also inside a transaction of another `SqlClient`);
   * inside this client's (`withTransaction` around the call), runs in it.
   */
  readonly use: <A>(doing: string, f: (connection: Connection) => A) => Effect.Effect<A, StoreError.StoreError>
  /**
   * Group commit: runs `f` with the connection in the write transaction of
   * this turn of the event loop. The calls of one turn run in one `BEGIN
   * IMMEDIATE` transaction, in the order they came (a call reads what the
   * calls before it wrote), and each gets its result once that transaction
   * has committed, so nothing is answered before it is durable. One commit
   * (one set of locks, one write of each changed page) then serves every
   * request the server read in that turn. If a call throws, the transaction
   * is rolled back and every call of the turn fails: with a `StoreError`
   * about `doing` of the first call when SQLite reported the error, else
   * with the defect. Inside this client's `SqlClient` transaction
   * (`withTransaction` around the call), `f` runs in it at once.
   */
  readonly batched: <A>(doing: string, f: (connection: Connection) => A) => Effect.Effect<A, StoreError.StoreError>
  /**
   * Whether a transaction is open on the connection now. Once a `batched`
   * call has succeeded, `false` means what it read and wrote is committed
   * (`true`: it ran inside a `SqlClient` transaction still open).
   */
  readonly inTransaction: () => boolean
}

/**
 * @since 1.0.0
 * @category tags
 */
export const SqliteDatabase = Context.GenericTag<SqliteDatabase>("@animal-store/sqlite-store/SqliteDatabase")

/**
 * The connection's one statement cache: statements are prepared on first use
 * and kept by text, as row objects (`SqlClient`) or as arrays of column
 * values (the ports' `Connection`).
 */
const makeStatements = (db: BetterSqlite3.Database) => {
  const objects = new Map<string, BetterSqlite3.Statement>()
  const arrays = new Map<string, BetterSqlite3.Statement>()
  const get = (cache: Map<string, BetterSqlite3.Statement>, sql: string, raw: boolean) => {
    let statement = cache.get(sql)
    if (statement === undefined) {
      statement = raw ? db.prepare(sql).raw(true) : db.prepare(sql)
      cache.set(sql, statement)
    }
    return statement
  }
  return {
    objects: (sql: string): BetterSqlite3.Statement => get(objects, sql, false),
    arrays: (sql: string): BetterSqlite3.Statement => get(arrays, sql, true)
  }
}

type Statements = ReturnType<typeof makeStatements>

const makeConnection = (db: BetterSqlite3.Database, statements: Statements): Connection => {
  const prepared = statements.objects
  const preparedRaw = statements.arrays
  const inTransaction = db.transaction((f: () => unknown) => f()).immediate
  return {
    values: <Row extends ReadonlyArray<unknown>>(sql: string, ...params: ReadonlyArray<Parameter>) =>
      preparedRaw(sql).all(...params) as Array<Row>,
    firstValues: <Row extends ReadonlyArray<unknown>>(sql: string, ...params: ReadonlyArray<Parameter>) =>
      preparedRaw(sql).get(...params) as Row | undefined,
    run: (sql, ...params) => {
      prepared(sql).run(...params)
    },
    immediate: <A>(f: () => A) => inTransaction(f) as A
  }
}

/** `@effect/sql`'s connection interface on `db`, as `@effect/sql-sqlite-node` implements it. */
const makeSqlConnection = (db: BetterSqlite3.Database, statements: Statements): SqlConnection.Connection => {
  const prepared = statements.objects
  const execute = (
    statement: () => BetterSqlite3.Statement,
    params: ReadonlyArray<unknown>,
    raw: boolean
  ): Effect.Effect<ReadonlyArray<any>, SqlError> =>
    Effect.withFiberRuntime((fiber) => {
      try {
        const s = statement().safeIntegers(Context.get(fiber.currentContext, SqlClient.SafeIntegers))
        if (s.reader) return Effect.succeed(s.all(...params))
        const result = s.run(...params)
        return Effect.succeed(raw ? result as unknown as ReadonlyArray<any> : [])
      } catch (cause) {
        return Effect.fail(new SqlError({ cause, message: "Failed to execute statement" }))
      }
    })
  const withTransform = (
    effect: Effect.Effect<ReadonlyArray<any>, SqlError>,
    transformRows: (<A extends object>(row: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined
  ) => transformRows === undefined ? effect : Effect.map(effect, transformRows)
  return {
    execute: (sql, params, transformRows) => withTransform(execute(() => prepared(sql), params, false), transformRows),
    executeRaw: (sql, params) => execute(() => prepared(sql), params, true),
    executeValues: (sql, params) =>
      Effect.try({
        try: () => {
          const statement = prepared(sql)
          if (!statement.reader) {
            statement.run(...params)
            return []
          }
          try {
            return statement.raw(true).all(...params) as Array<ReadonlyArray<unknown>>
          } finally {
            statement.raw(false)
          }
        },
        catch: (cause) => new SqlError({ cause, message: "Failed to execute statement" })
      }),
    executeUnprepared: (sql, params, transformRows) =>
      // A `withTransaction` whose `BEGIN IMMEDIATE` failed (busy) has nothing
      // to roll back: its error is `BEGIN`'s, not "no transaction is active".
      sql === "ROLLBACK" && !db.inTransaction
        ? Effect.succeed([])
        : withTransform(execute(() => db.prepare(sql), params ?? [], false), transformRows),
    executeStream: () => Effect.dieMessage("executeStream not implemented")
  }
}

const attempt = <A>(doing: string, f: (connection: Connection) => A, connection: Connection) => {
  try {
    return Effect.succeed(f(connection))
  } catch (error) {
    return isSqliteError(error) ? Effect.fail(fromCause(doing, error)) : Effect.die(error)
  }
}

/**
 * WAL frames between automatic checkpoints (SQLite's default is 1,000). A
 * checkpoint copies each page once however often it was rewritten since the
 * last, and syncs: four times fewer checkpoints write fewer pages per
 * request (a keyed create dirties a page of the key index that few others
 * share) and block the event loop on `fsync` four times less often, for a WAL
 * file of up to about 16 MB (`node --import tsx bench/idempotency.ts`).
 *
 * @since 1.0.0
 * @category constants
 */
export const walAutocheckpointPages = 4_000

/** Opening is retried every 20 ms while refused as busy, as long as any statement waits: the busy timeout. */
const openRetryMillis = 20

/**
 * Opens `filename` (`":memory:"`: a private in-memory database) with every
 * pragma of the store: WAL, `synchronous`, the checkpoint interval, the busy
 * timeout. The connection
 * is closed when the scope closes. A file that cannot be
 * opened fails with `StoreError` (`Unavailable`, `Corrupt`, `ReadOnly`).
 *
 * @since 1.0.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<SqliteDatabase, StoreError.StoreError, Scope.Scope> =>
  Effect.gen(function*() {
    const { busyTimeout = 5_000, filename, synchronous = "NORMAL" } = options
    const db = yield* Effect.acquireRelease(
      Effect.try({
        try: () => {
          const db = open(filename, Math.max(0, Math.trunc(busyTimeout)))
          try {
            db.pragma("journal_mode = WAL")
            db.pragma(`synchronous = ${synchronous === "FULL" ? "FULL" : "NORMAL"}`)
            db.pragma(`wal_autocheckpoint = ${walAutocheckpointPages}`)
          } catch (error) {
            db.close()
            throw error
          }
          return db
        },
        catch: (cause) => cause
      }).pipe(
        // Processes opening one new file at once: SQLite may refuse the switch
        // to WAL at once (SQLITE_BUSY without waiting, to avoid a deadlock).
        Effect.retry({ while: isBusy, schedule: Schedule.spaced(openRetryMillis), times: Math.ceil(busyTimeout / openRetryMillis) }),
        Effect.mapError((cause) => fromCause(`Opening the SQLite database "${filename}"`, cause, "Unavailable"))
      ),
      (db) => Effect.sync(() => db.close())
    )
    const semaphore = yield* Effect.makeSemaphore(1)
    const statements = makeStatements(db)
    const sqlConnection = makeSqlConnection(db, statements)
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.as(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1)))
        ),
        sqlConnection
      )
    )
    const sql = yield* SqlClient.make({
      acquirer: semaphore.withPermits(1)(Effect.succeed(sqlConnection)),
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]],
      beginTransaction: "BEGIN IMMEDIATE"
    }).pipe(Effect.provide(Reactivity.layer))

    const connection = makeConnection(db, statements)
    const inOwnTransaction = Effect.map(
      Effect.serviceOption(SqlClient.TransactionConnection),
      Option.exists(([conn]) => conn === sqlConnection)
    )
    const use = <A>(doing: string, f: (connection: Connection) => A): Effect.Effect<A, StoreError.StoreError> =>
      Effect.suspend(() =>
        db.inTransaction
          ? Effect.flatMap(inOwnTransaction, (inside) =>
            inside
              ? attempt(doing, f, connection)
              : Effect.scoped(Effect.zipRight(transactionAcquirer, Effect.suspend(() => attempt(doing, f, connection)))))
          : attempt(doing, f, connection)
      )

    interface Pending {
      readonly doing: string
      readonly f: (connection: Connection) => unknown
      readonly resume: (exit: Effect.Effect<unknown, StoreError.StoreError>) => void
    }
    const runCallback = Runtime.runCallback(yield* Effect.runtime<never>())
    let batch: Array<Pending> = []
    const flush = () => {
      const pending = batch
      batch = []
      runCallback(
        use(pending[0]!.doing, (connection) => connection.immediate(() => pending.map(({ f }) => f(connection)))),
        {
          onExit: (exit) => {
            for (let i = 0; i < pending.length; i++) {
              pending[i]!.resume(Exit.isSuccess(exit) ? Effect.succeed(exit.value[i]) : exit)
            }
          }
        }
      )
    }
    const batched = <A>(doing: string, f: (connection: Connection) => A): Effect.Effect<A, StoreError.StoreError> =>
      Effect.flatMap(inOwnTransaction, (inside) =>
        inside
          ? attempt(doing, f, connection)
          : Effect.async<A, StoreError.StoreError>((resume) => {
            if (batch.length === 0) setImmediate(flush)
            batch.push({ doing, f, resume: resume as Pending["resume"] })
          }))
    return { [TypeId]: TypeId, filename, sql, use, batched, inTransaction: () => db.inTransaction }
  })
