/**
 * The in-memory index of a SQLite store's idempotency records: from a
 * record's `(scope, key)` to the ids of the records that may be it, kept in
 * typed arrays, so no object per record is left for the garbage collector
 * to trace and promote (about 40 to 80 bytes a record, outside the JS heap).
 *
 * An entry holds a 32-bit hash of the scope and key (seeded per index, so a
 * client cannot choose keys that collide) and the record's animal id. A
 * lookup answers candidates, which the caller checks against the rows they
 * point to: two keys may share a hash, and an entry may point to a record
 * since purged, replaced or rolled back. Entries are forgotten in the order
 * they were added, once expired.
 *
 * @internal
 */

/** The index: entries added in expiry order, forgotten from the earliest. */
export interface KeyIndex {
  /** Adds the record `petId` of `(scope, key)`, which counts until `expiresAt`. */
  readonly add: (scope: string, key: string, petId: number, expiresAt: number) => void
  /**
   * The first defined answer of `read` for the ids added under `(scope, key)`
   * and not yet forgotten (and of a few other keys sharing their hash).
   */
  readonly find: <A>(scope: string, key: string, read: (petId: number) => A | undefined) => A | undefined
  /** Forgets at most `limit` entries that expired at `now`, the earliest added first; answers how many. */
  readonly forgetExpired: (now: number, limit: number) => number
  /** How many entries it holds. */
  readonly size: () => number
}

const empty = 0
const removed = -1
const minCapacity = 1024

/** The 32-bit hash of an entry's scope and key. */
export type Hash = (scope: string, key: string) => number

/**
 * FNV-1a of `scope`, a separator and `key`, from `seed` (random unless
 * given), with Murmur3's final mix.
 */
export const seededHash = (seed: number = (Math.random() * 0x100000000) >>> 0): Hash => (scope, key) => {
  let hash = seed
  for (let i = 0; i < scope.length; i++) hash = Math.imul(hash ^ scope.charCodeAt(i), 0x01000193)
  hash = Math.imul(hash ^ 0xffff, 0x01000193)
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193)
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b)
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35)
  return (hash ^ (hash >>> 16)) >>> 0
}

/** An empty index; tests give a `hash` that makes keys collide. */
export const make = (hashOf: Hash = seededHash()): KeyIndex => {
  // The table: open addressing, linear probing; an id of 0 is an empty slot,
  // -1 a removed one (ids are at least 1). At most half full.
  let hashes = new Uint32Array(minCapacity)
  let ids = new Float64Array(minCapacity)
  let live = 0
  let used = 0
  // The entries in the order they were added: a ring from `head`.
  let queueHashes = new Uint32Array(minCapacity)
  let queueIds = new Float64Array(minCapacity)
  let queueExpiries = new Float64Array(minCapacity)
  let head = 0
  let queued = 0
  // A keyed create looks its key up, then adds it: the hash is taken once.
  let lastScope: string | undefined
  let lastKey: string | undefined
  let lastHash = 0
  const hashFor = (scope: string, key: string): number => {
    if (scope !== lastScope || key !== lastKey) {
      lastHash = hashOf(scope, key) >>> 0
      lastScope = scope
      lastKey = key
    }
    return lastHash
  }

  const place = (hash: number, id: number): void => {
    const mask = ids.length - 1
    let slot = hash & mask
    while (ids[slot] !== empty) slot = (slot + 1) & mask
    hashes[slot] = hash
    ids[slot] = id
  }

  /** A table sized for `live` entries (a quarter full), without the removed ones. */
  const rebuild = (): void => {
    const oldHashes = hashes
    const oldIds = ids
    let capacity = minCapacity
    while (capacity < live * 4) capacity *= 2
    hashes = new Uint32Array(capacity)
    ids = new Float64Array(capacity)
    for (let slot = 0; slot < oldIds.length; slot++) {
      if (oldIds[slot]! > 0) place(oldHashes[slot]!, oldIds[slot]!)
    }
    used = live
  }

  const enqueue = (hash: number, id: number, expiresAt: number): void => {
    if (queued === queueIds.length) {
      const capacity = queueIds.length * 2
      const nextHashes = new Uint32Array(capacity)
      const nextIds = new Float64Array(capacity)
      const nextExpiries = new Float64Array(capacity)
      for (let i = 0; i < queued; i++) {
        const at = (head + i) & (queueIds.length - 1)
        nextHashes[i] = queueHashes[at]!
        nextIds[i] = queueIds[at]!
        nextExpiries[i] = queueExpiries[at]!
      }
      queueHashes = nextHashes
      queueIds = nextIds
      queueExpiries = nextExpiries
      head = 0
    }
    const at = (head + queued) & (queueIds.length - 1)
    queueHashes[at] = hash
    queueIds[at] = id
    queueExpiries[at] = expiresAt
    queued++
  }

  const remove = (hash: number, id: number): void => {
    const mask = ids.length - 1
    for (let slot = hash & mask; ids[slot] !== empty; slot = (slot + 1) & mask) {
      if (ids[slot] === id && hashes[slot] === hash) {
        ids[slot] = removed
        live--
        return
      }
    }
  }

  return {
    add: (scope, key, petId, expiresAt) => {
      if ((used + 1) * 2 > ids.length) rebuild()
      const hash = hashFor(scope, key)
      place(hash, petId)
      live++
      used++
      enqueue(hash, petId, expiresAt)
    },
    find: (scope, key, read) => {
      const hash = hashFor(scope, key)
      const mask = ids.length - 1
      for (let slot = hash & mask; ids[slot] !== empty; slot = (slot + 1) & mask) {
        if (ids[slot]! > 0 && hashes[slot] === hash) {
          const found = read(ids[slot]!)
          if (found !== undefined) return found
        }
      }
      return undefined
    },
    forgetExpired: (now, limit) => {
      let forgotten = 0
      while (forgotten < limit && queued > 0 && queueExpiries[head]! <= now) {
        remove(queueHashes[head]!, queueIds[head]!)
        head = (head + 1) & (queueIds.length - 1)
        queued--
        forgotten++
      }
      return forgotten
    },
    size: () => live
  }
}
