/**
 * The one SQLite connection of a store, opened with better-sqlite3.
 *
 * It serves two ways, on one connection and one statement cache: `sql`, an
 * `@effect/sql` `SqlClient` (migrations, `sql` templates, `withTransaction`,
 * which begins with `BEGIN IMMEDIATE`), as `@effect/sql-sqlite-node`'s client
 * does; and `use`/`batched`, which the store's ports run their statements
 * with, and `durability`, the store's `Durability` (group commit). Each
 * statement is prepared once and every call runs synchronously, in one step
 * no other fiber can interleave with, without the work a `SqlClient` does
 * around each statement (a span, compiling the template, taking the
 * connection's semaphore in a scope), which cost several times SQLite's own
 * work on the store's small queries.
 *
 * @since 1.0.0
 */
import type { Durability } from "@animal-store/core"
import { StoreError } from "@animal-store/core"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { Context, Effect, Exit, Option, Schedule, Scope } from "effect"
import * as Path from "node:path"
import type * as BetterSqlite3 from "./internal/betterSqlite3.js"
import { isBusy, isSqliteError, open } from "./internal/betterSqlite3.js"
import { fromCause } from "./internal/storeError.js"
import * as WalCheckpointer from "./internal/walCheckpointer.js"
import * as WalFlusher from "./internal/walFlusher.js"

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
 * What `Connection.run` tells of a statement.
 *
 * @since 1.0.0
 * @category models
 */
export interface RunResult {
  readonly changes: number
  readonly lastInsertRowid: number | bigint
}

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
  /**
   * Runs a statement that returns no rows: how many rows it changed, and the
   * rowid of the last row inserted on the connection.
   */
  readonly run: (sql: string, ...params: ReadonlyArray<Parameter>) => RunResult
  /**
   * Runs `f` in a `BEGIN IMMEDIATE` transaction (a savepoint inside an open
   * transaction): committed when `f` returns, rolled back when it throws. The
   * write lock is taken before `f` reads, so no other connection, in this
   * process or another, writes between what `f` reads and what it writes.
   */
  readonly immediate: <A>(f: () => A) => A
  /**
   * Calls `f` once what was written so far is committed: at the end of the
   * turn's transaction (never if it fails), at once outside any transaction,
   * never inside a `SqlClient` transaction (its end is the host's).
   */
  readonly afterCommit: (f: () => void) => void
  /**
   * Defers writes to the end of the turn's transaction: `write` runs in it
   * just before it commits (if it throws, the turn is rolled back and every
   * call of it fails, with a `StoreError` about `doing` when SQLite reported
   * the error), `discard` instead once the turn was rolled back. `false`,
   * calling neither, when no turn is open (a call in a `SqlClient`
   * transaction): then write at once.
   */
  readonly atTurnEnd: (doing: string, write: () => void, discard: () => void) => boolean
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
   * While the turn's write transaction is open (see `batched`), runs in it:
   * what `f` read may not be committed yet, so the call ends once that
   * transaction has committed (at once under `durability.deferCommit`, which
   * hands the request's outcome over after the commit).
   */
  readonly use: <A>(doing: string, f: (connection: Connection) => A) => Effect.Effect<A, StoreError.StoreError>
  /**
   * Group commit: runs `f` at once, synchronously, in the write transaction
   * of this turn of the event loop, which the first call of the turn begins
   * (`BEGIN IMMEDIATE`) and which commits when the turn ends, so one commit
   * (one set of locks, one write of each changed page) serves every request
   * the server read in that turn. A call reads what the calls before it
   * wrote. It ends once that transaction has committed, so nothing is
   * answered before it is durable; under `durability.deferCommit` it ends at
   * once, and the request's outcome is handed over after the commit instead,
   * so no request waits in the middle of its work. If a call throws, the
   * transaction is rolled back and every call of the turn fails: with a
   * `StoreError` about `doing` of that call when SQLite reported the error,
   * else with the defect. Inside this client's
   * `SqlClient` transaction (`withTransaction` around the call), `f` runs in
   * it; a `SqlClient` transaction or query first commits the turn's.
   */
  readonly batched: <A>(doing: string, f: (connection: Connection) => A) => Effect.Effect<A, StoreError.StoreError>
  /**
   * The store's `Durability`: under `deferCommit` the calls of a request end
   * before their turn's commit, and its outcome is handed over after it.
   */
  readonly durability: Durability.DurabilityService
  /** Whether a `SqlClient` transaction is open on the connection now (not the turn's group commit). */
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

const makeConnection = (
  db: BetterSqlite3.Database,
  statements: Statements,
  turns: Pick<Turns, "afterCommit" | "atTurnEnd">
): Connection => {
  const prepared = statements.objects
  const preparedRaw = statements.arrays
  const inTransaction = db.transaction((f: () => unknown) => f()).immediate
  return {
    values: <Row extends ReadonlyArray<unknown>>(sql: string, ...params: ReadonlyArray<Parameter>) =>
      preparedRaw(sql).all(...params) as Array<Row>,
    firstValues: <Row extends ReadonlyArray<unknown>>(sql: string, ...params: ReadonlyArray<Parameter>) =>
      preparedRaw(sql).get(...params) as Row | undefined,
    run: (sql, ...params) => prepared(sql).run(...params),
    immediate: <A>(f: () => A) => inTransaction(f) as A,
    afterCommit: turns.afterCommit,
    atTurnEnd: turns.atTurnEnd
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

/** What `f` threw, about `doing`: a `StoreError` when SQLite reported it, else a defect. */
const failureOf = (doing: string, error: unknown): Exit.Exit<never, StoreError.StoreError> =>
  isSqliteError(error) ? Exit.fail(fromCause(doing, error)) : Exit.die(error)

const attempt = <A>(
  doing: string,
  f: (connection: Connection) => A,
  connection: Connection
): Exit.Exit<A, StoreError.StoreError> => {
  try {
    return Exit.succeed(f(connection))
  } catch (error) {
    return failureOf(doing, error)
  }
}

/** How a turn's transaction failed, as every call of it fails. */
type Failure = Exit.Exit<never, StoreError.StoreError>

/** The write transaction of one turn of the event loop. */
interface Turn {
  /** Why it was rolled back, once it was. */
  failure: Failure | undefined
  ended: boolean
  /** Called once it has ended, committed or not. */
  readonly ending: Array<() => void>
  /** Called once it has committed. */
  readonly committed: Array<() => void>
  /** The writes deferred to its end (`Connection.atTurnEnd`). */
  readonly closing: Array<{ readonly doing: string; readonly write: () => void; readonly discard: () => void }>
}

type FiberRuntime = Parameters<Parameters<typeof Effect.withFiberRuntime>[0]>[0]

/** `result` once `turn` has committed; the turn's failure if it did not. */
const afterTurn = <A>(turn: Turn, result: Effect.Effect<A, StoreError.StoreError>): Effect.Effect<A, StoreError.StoreError> =>
  turn.failure !== undefined
    ? turn.failure
    : turn.ended
    ? result
    : Effect.async<A, StoreError.StoreError>((resume) => {
      turn.ending.push(() => resume(turn.failure ?? result))
    })

/** Calls `onDurable` with `exit` once every turn of `turns` (they end in order) has committed, else with the first failure. */
const whenCommitted = <A, E>(
  turns: ReadonlyArray<Turn>,
  exit: Exit.Exit<A, E>,
  onDurable: (exit: Exit.Exit<A, E | StoreError.StoreError>) => void
): void => {
  for (const turn of turns) {
    if (turn.failure !== undefined) return onDurable(turn.failure)
  }
  const last = turns[turns.length - 1]
  if (last === undefined || last.ended) return onDurable(exit)
  last.ending.push(() => whenCommitted(turns, exit, onDurable))
}

/**
 * The group commit of a connection: the transaction of the current turn,
 * begun by its first write and committed when the turn ends (`setImmediate`),
 * or earlier by `end`.
 */
const makeTurns = (db: BetterSqlite3.Database, onCommit: () => void) => {
  let open: Turn | undefined
  /**
   * The turns a request's calls ran in, by the fiber that runs it under
   * `deferCommit` (a map rather than a `FiberRef`: setting one copies the
   * fiber's references, on every request).
   */
  const deferrals = new WeakMap<FiberRuntime, Array<Turn>>()
  const fail = (turn: Turn, failure: Failure): Failure => {
    turn.failure ??= failure
    // SQLite may have rolled it back itself (a full disk, an I/O error).
    if (db.inTransaction) db.exec("ROLLBACK")
    return turn.failure
  }
  /** Runs the writes deferred to the end of `turn`, then commits it. */
  const commit = (turn: Turn): void => {
    for (const { doing, write } of turn.closing) {
      try {
        write()
      } catch (error) {
        fail(turn, failureOf(doing, error))
        return
      }
    }
    try {
      db.exec("COMMIT")
    } catch (error) {
      fail(turn, Exit.fail(fromCause("Committing the writes of a turn", error)))
      return
    }
    onCommit()
  }
  const end = (): void => {
    const turn = open
    if (turn === undefined) return
    if (turn.failure === undefined) commit(turn)
    open = undefined
    if (turn.failure !== undefined) for (const { discard } of turn.closing) discard()
    turn.ended = true
    if (turn.failure === undefined) for (const f of turn.committed) f()
    for (const f of turn.ending) f()
  }
  return {
    end,
    isOpen: (): boolean => open !== undefined,
    /** The turn whose transaction is open, if any and not rolled back. */
    current: (): Turn | undefined => open?.failure === undefined ? open : undefined,
    /** The turn of this turn of the event loop, begun when it is not yet; the failure of `BEGIN` when it cannot begin. */
    join: (doing: string): Turn | Failure => {
      if (open !== undefined) return open
      try {
        db.exec("BEGIN IMMEDIATE")
      } catch (error) {
        return failureOf(doing, error)
      }
      const turn: Turn = { failure: undefined, ended: false, ending: [], committed: [], closing: [] }
      open = turn
      setImmediate(() => {
        if (open === turn) end()
      })
      return turn
    },
    /** Runs `f` in `turn`; if it throws, the turn is rolled back and every call of it fails. */
    run: <A>(turn: Turn, doing: string, f: (connection: Connection) => A, connection: Connection) => {
      if (turn.failure !== undefined) return turn.failure
      const exit = attempt(doing, f, connection)
      return Exit.isSuccess(exit) ? exit : fail(turn, Exit.failCause(exit.cause))
    },
    /** `result` of a call in `turn`: at once under `deferCommit` (which waits for the turn), else once the turn has committed. */
    answer: <A>(fiber: FiberRuntime, turn: Turn, result: Effect.Effect<A, StoreError.StoreError>) => {
      const deferral = deferrals.get(fiber)
      if (deferral === undefined) return afterTurn(turn, result)
      if (deferral[deferral.length - 1] !== turn) deferral.push(turn)
      return result
    },
    afterCommit: (f: () => void): void => {
      if (open !== undefined) {
        if (open.failure === undefined) open.committed.push(f)
      } else if (!db.inTransaction) {
        f()
      }
    },
    atTurnEnd: (doing: string, write: () => void, discard: () => void): boolean => {
      if (open === undefined || open.failure !== undefined) return false
      open.closing.push({ doing, write, discard })
      return true
    },
    deferCommit: <A, E, R>(
      effect: Effect.Effect<A, E, R>,
      onDurable: (exit: Exit.Exit<A, E | StoreError.StoreError>) => void
    ): Effect.Effect<void, never, R> =>
      Effect.withFiberRuntime((fiber) => {
        const outer = deferrals.get(fiber)
        const deferral: Array<Turn> = []
        deferrals.set(fiber, deferral)
        const settle = (exit: Exit.Exit<A, E>) => {
          if (outer === undefined) deferrals.delete(fiber)
          else deferrals.set(fiber, outer)
          whenCommitted(deferral, exit, onDurable)
          return Exit.void
        }
        return Effect.matchCauseEffect(effect, {
          onFailure: (cause) => settle(Exit.failCause(cause)),
          onSuccess: (value) => settle(Exit.succeed(value))
        })
      })
  }
}

type Turns = ReturnType<typeof makeTurns>

/**
 * WAL frames between automatic checkpoints (SQLite's default is 1,000): the
 * fallback of the store's checkpointer, which checkpoints the WAL off the
 * event loop (a worker thread) at most once a second while commits come.
 * Should it not run or fall behind, the connection checkpoints itself in the
 * `COMMIT` that crosses this many frames; four times fewer than SQLite's
 * default write fewer pages per request (a keyed create dirties a page of the
 * key index that few others share) and block the event loop on `fsync` four
 * times less often, for a WAL file of up to about 16 MB.
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
    // With `NORMAL`, commits are not flushed: the WAL is, in the background, so that checkpoints find little to flush.
    const flusher = filename === ":memory:" || synchronous === "FULL"
      ? undefined
      : yield* Effect.acquireRelease(
        Effect.sync(() => WalFlusher.start(`${Path.resolve(filename)}-wal`)),
        (flusher) => Effect.sync(flusher.stop)
      )
    // The WAL is checkpointed off the event loop, so that no commit waits for a checkpoint.
    const checkpointer = filename === ":memory:"
      ? undefined
      : yield* Effect.acquireRelease(
        Effect.sync(() => WalCheckpointer.start(Path.resolve(filename), synchronous)),
        (checkpointer) => Effect.promise(checkpointer.stop)
      )
    const turns = makeTurns(db, () => {
      flusher?.written()
      checkpointer?.written()
    })
    yield* Effect.addFinalizer(() => Effect.sync(turns.end))
    // A `SqlClient` query or transaction first commits the turn's transaction.
    const withoutTurn = Effect.sync(() => {
      turns.end()
      return sqlConnection
    })
    const transactionAcquirer = Effect.uninterruptibleMask((restore) =>
      Effect.zipRight(
        Effect.zipRight(
          restore(semaphore.take(1)),
          Effect.tap(Effect.scope, (scope) => Scope.addFinalizer(scope, semaphore.release(1)))
        ),
        withoutTurn
      )
    )
    const sql = yield* SqlClient.make({
      acquirer: semaphore.withPermits(1)(withoutTurn),
      transactionAcquirer,
      compiler: Statement.makeCompilerSqlite(),
      spanAttributes: [["db.system.name", "sqlite"]],
      beginTransaction: "BEGIN IMMEDIATE"
    }).pipe(Effect.provide(Reactivity.layer))

    const connection = makeConnection(db, statements, turns)
    /** Whether a `SqlClient` transaction (not the turn's) is open on the connection. */
    const inSqlTransaction = () => db.inTransaction && !turns.isOpen()
    /**
     * `inTurn` unless a `SqlClient` transaction is open: in this fiber's, runs
     * `f` in it; in another fiber's, waits for it to end first.
     */
    const outsideSqlTransaction = <A>(
      doing: string,
      f: (connection: Connection) => A,
      inTurn: (fiber: FiberRuntime) => Effect.Effect<A, StoreError.StoreError>
    ): Effect.Effect<A, StoreError.StoreError> => {
      const self: Effect.Effect<A, StoreError.StoreError> = Effect.withFiberRuntime((fiber) => {
        if (!inSqlTransaction()) return inTurn(fiber)
        const own = Context.getOption(fiber.currentContext, SqlClient.TransactionConnection)
        return Option.isSome(own) && own.value[0] === sqlConnection
          ? attempt(doing, f, connection)
          : Effect.scoped(Effect.zipRight(transactionAcquirer, self))
      })
      return self
    }
    const use = <A>(doing: string, f: (connection: Connection) => A): Effect.Effect<A, StoreError.StoreError> =>
      outsideSqlTransaction(doing, f, (fiber) => {
        const turn = turns.current()
        return turn === undefined ? attempt(doing, f, connection) : turns.answer(fiber, turn, turns.run(turn, doing, f, connection))
      })
    const batched = <A>(doing: string, f: (connection: Connection) => A): Effect.Effect<A, StoreError.StoreError> =>
      outsideSqlTransaction(doing, f, (fiber) => {
        const turn = turns.join(doing)
        return Exit.isExit(turn) ? turn : turns.answer(fiber, turn, turns.run(turn, doing, f, connection))
      })
    return {
      [TypeId]: TypeId,
      filename,
      sql,
      use,
      batched,
      durability: { deferCommit: turns.deferCommit },
      inTransaction: inSqlTransaction
    }
  })
