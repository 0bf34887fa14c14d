/**
 * Builds a value on first use and keeps it for the life of the warm function: the wiring of a use case (clients,
 * adapters, caches) is paid once per cold start, and only by the functions that use it.
 *
 * Mark each module-level call `/* @__PURE__ *\/ lazy(…)`: a bundler must otherwise keep every such call of a module a
 * function imports, and with it every adapter and SDK client the call refers to (test/infra/bundles.test.ts).
 */

/** When set, values are kept per scope (the local runtime's contract recorder: one per function, as in Lambda). */
let scopeOf: (() => string | undefined) | undefined;

/** How each value built so far (and each module-level cache registered with `onReset`) is forgotten. */
const resets = new Set<() => void>();

/**
 * Keeps lazily built values per scope from now on. On AWS every function is its own process, so each builds its own;
 * the local runtime runs them all in one, and the contract recorder uses this so each function builds (and reads its
 * settings for) its own wiring, as it will when deployed. Production never calls it.
 */
export const scopeLazies = (scope: (() => string | undefined) | undefined): void => {
  scopeOf = scope;
};

/**
 * Registers how a module-level cache that is not a `lazy` or `processWide` value (the parsed configuration, the master
 * key, the key cache) is forgotten by `resetProcessState`.
 */
export const onReset = (reset: () => void): void => {
  resets.add(reset);
};

/**
 * Forgets every value built from the process's environment: the next use builds it again from the environment as it
 * is then. The local runtime calls it when it starts, since a process that starts one runtime after another (a test
 * worker running one file after the other) gets new emulators, ports and settings each time. Production never calls it:
 * a Lambda environment never changes under a warm function.
 */
export const resetProcessState = (): void => {
  for (const reset of resets) reset();
};

export const lazy = <T>(build: () => T): (() => T) => {
  const unscoped = processWide(build);
  const scoped = new Map<string, T>();
  resets.add(() => scoped.clear());
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
  resets.add(() => {
    built = undefined;
  });
  return () => {
    built ??= { value: build() };
    return built.value;
  };
};
