/**
 * How every Lambda is bundled (esbuild through `NodejsFunction`), as pure data so that the CDK construct
 * (infra/constructs/service-function.ts) and the bundle benchmark (bench/scenarios/bundles.ts) use the same settings:
 * what the benchmark measures is what is deployed.
 */

/** The runtime the bundles target (the functions run on `nodejs24.x`). */
export const BUNDLE_TARGET = 'node24';

/**
 * Bundled CommonJS dependencies still call `require()`; an ES module has none, so the bundle recreates it first.
 * (`topLevelCreateRequire` rather than `createRequire` so it cannot clash with a bundled module's own import.)
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as topLevelCreateRequire } from 'node:module';const require = topLevelCreateRequire(import.meta.url);";

/** The esbuild settings of every function bundle (NodejsFunction adds `--bundle --platform=node` and the outfile). */
export const LAMBDA_BUNDLING = {
  target: BUNDLE_TARGET,
  /** ESM (`index.mjs`): esbuild tree-shakes ES modules; top-level await is available. */
  format: 'esm',
  /** Prefer the ESM builds of dependencies (the AWS SDK ships both) so esbuild can tree-shake them. */
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  minify: true,
  /**
   * A linked source map beside the bundle, applied by Node ({@link LAMBDA_NODE_OPTIONS}): stack traces in the logs
   * name the service's files and lines instead of `index.mjs:1:123456`. Measured (bench `bundles`): Node reads the
   * map when it loads the bundle, 2–20 ms of CPU on the largest (600 kB) bundle depending on the run, against ~100 ms
   * for its whole init, which stays within the 150 ms target; readable errors in production are worth it. The report
   * shows the cost on every run.
   */
  sourceMap: true,
  /** Mappings are enough for stack traces; embedding the sources would only grow the package. */
  sourcesContent: false,
  /**
   * Bundle `@aws-sdk/*` rather than use the runtime's copy: the lockfile then pins the SDK version that runs (the one
   * the tests and the local runtime use), and tree-shaking keeps only the clients and commands a function imports.
   */
  bundleAwsSDK: true,
} as const;

/** `NODE_OPTIONS` of every function: apply the bundle's source map to stack traces (see `sourceMap` above). */
export const LAMBDA_NODE_OPTIONS = '--enable-source-maps';
