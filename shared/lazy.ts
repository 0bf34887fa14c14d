/**
 * Builds a value on first use and keeps it for the life of the warm function: the wiring of a use case (clients,
 * adapters, caches) is paid once per cold start, and only by the functions that use it.
 */
export const lazy = <T>(build: () => T): (() => T) => {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: build() };
    return built.value;
  };
};
