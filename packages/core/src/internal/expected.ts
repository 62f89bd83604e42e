/**
 * Builds an error value that is an expected outcome (a refusal, a 404)
 * without capturing a stack trace: such errors are made on every such
 * request, capturing a trace costs more than the rest of the request, and it
 * would only show the runtime. The limit is restored at once, so nothing else
 * is affected.
 * @internal
 */
export const withoutStackTrace = <A, P>(make: (props: P) => A, props: P): A => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return make(props)
  } finally {
    Error.stackTraceLimit = limit
  }
}
