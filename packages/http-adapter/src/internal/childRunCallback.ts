/**
 * For speed only (record 0015): every request's fiber starts on one shared copy of the references
 * instead of copying and forking each as it starts.
 *
 * @internal
 */
import { Effect, Equal, FiberId, FiberRef, FiberRefs, Runtime } from "effect"

/** Whether forking `refs` once more changes no value: then every fiber forked from them may share one copy. */
const forkKeeps = (refs: FiberRefs.FiberRefs): boolean => {
  const forked = FiberRefs.forkAs(refs, FiberId.unsafeMake())
  for (const fiberRef of FiberRefs.fiberRefs(refs)) {
    if (!Equal.equals(FiberRefs.getOrDefault(refs, fiberRef), FiberRefs.getOrDefault(forked, fiberRef))) return false
  }
  return true
}

/**
 * `Runtime.runCallback` on the calling fiber's runtime, its references forked once here; when forking
 * them again changes nothing (the usual case), every fiber starts on that one copy.
 *
 * @internal
 */
export const make = <R>(): Effect.Effect<
  <A, Err>(effect: Effect.Effect<A, Err, R>, options?: Runtime.RunCallbackOptions<A, Err>) => void,
  never,
  R
> =>
  Effect.map(Effect.runtime<R>(), (runtime) => {
    const forkAs = FiberId.unsafeMake()
    const refs = FiberRefs.forkAs(runtime.fiberRefs, forkAs)
    const { context, runtimeFlags } = runtime
    if (!forkKeeps(refs)) return Runtime.runCallback(Runtime.make({ context, runtimeFlags, fiberRefs: refs }))
    const shared = FiberRefs.updateAs(refs, { fiberId: forkAs, fiberRef: FiberRef.currentContext, value: context })
    const updateRefs = () => shared
    // With no references of its own, the runtime forks none: `updateRefs` hands over the shared copy.
    const run = Runtime.runCallback(Runtime.make({ context, runtimeFlags, fiberRefs: FiberRefs.empty() }))
    return (effect, options) => run(effect, options === undefined ? { updateRefs } : { ...options, updateRefs })
  })
