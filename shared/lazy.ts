/**
 * Builds a value on first use and keeps it for the life of the warm function: the wiring of a use case (clients,
 * adapters, caches) is paid once per cold start, and only by the functions that use it.
 *
 * Mark each module-level call `/* @__PURE__ *\/ lazy(…)`: a bundler must otherwise keep every such call of a module a
 * function imports, and with it every adapter and SDK client the call refers to (test/infra/bundles.test.ts).
 */

/** When set, values are kept per scope (the local runtime's contract recorder: one per function, as in Lambda). */
let scopeOf: (() => string | undefined) | undefined;

/**
 * Keeps lazily built values per scope from now on. On AWS every function is its own process, so each builds its own;
 * the local runtime runs them all in one, and the contract recorder uses this so each function builds (and reads its
 * settings for) its own wiring, as it will when deployed. Production never calls it.
 */
export const scopeLazies = (scope: (() => string | undefined) | undefined): void => {
  scopeOf = scope;
};

export const lazy = <T>(build: () => T): (() => T) => {
  const unscoped = processWide(build);
  const scoped = new Map<string, T>();
  return () => {
    const scope = scopeOf?.();
    if (scope === undefined) return unscoped();
    if (!scoped.has(scope)) scoped.set(scope, build());
    return scoped.get(scope) as T;
  };
};

/**
 * Like `lazy`, but one value per process even under `scopeLazies`: for what holds no function's settings and is the
 * same for every function (the SDK clients), so that a test spying on a client sees every function's calls.
 */
export const processWide = <T>(build: () => T): (() => T) => {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
};
