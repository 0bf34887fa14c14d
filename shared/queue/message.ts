/** Reading a queue message: the one JSON-then-schema check every consumer's `parse` makes. */
import * as v from 'valibot';
import { PermanentError } from '#shared/errors.ts';

/**
 * A reader of one queue's messages: JSON that `schema` accepts; anything else is permanent (no retry can fix it).
 * `what` names the message in errors ("flow message" → "Flow message is not JSON", "Not a flow message: …").
 */
export const queueMessage =
  <S extends v.GenericSchema>(schema: S, what: string) =>
  (body: string): v.InferOutput<S> => {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch (cause) {
      throw new PermanentError(`${what[0]?.toUpperCase()}${what.slice(1)} is not JSON`, { cause });
    }
    const result = v.safeParse(schema, json);
    if (!result.success) {
      throw new PermanentError(`Not ${/^[aeiou]/i.test(what) ? 'an' : 'a'} ${what}: ${v.summarize(result.issues)}`);
    }
    return result.output;
  };
