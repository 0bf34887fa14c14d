/** Deployable stages. `dev` is disposable (its data goes with the stack); `test` and `prod` keep theirs. */
export const STAGES = ['dev', 'test', 'prod'] as const;
export type Stage = (typeof STAGES)[number];

/** Validates a stage name from context, so a typo fails the synth instead of creating a stray deployment. */
export const parseStage = (value: unknown): Stage => {
  const stage = STAGES.find((s) => s === value);
  if (!stage) throw new Error(`Unknown stage ${JSON.stringify(value)}: pass -c stage=${STAGES.join('|')}`);
  return stage;
};

/**
 * The tag naming the stage that created a resource at run time (SES identities): the stage's IAM policy lets it delete
 * only what carries its own stage.
 */
export const STAGE_TAG_KEY = 'storeflow:stage';
