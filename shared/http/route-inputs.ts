/**
 * The path and query parameters of the routes, as valibot schemas read by the HTTP wrapper (`httpRoute({ path, query
 * })`) and by the API description (`shared/http/openapi/`), so a parameter is declared once. They take the values as
 * strings, as API Gateway hands them over; the use cases apply the rules the spec words (ranges, formats) with its
 * messages.
 */
import * as v from 'valibot';

const text = (description: string) => v.pipe(v.string(), v.description(description));
const optionalText = (description: string) => v.optional(text(description));

export const FlowPath = v.object({
  flowId: text('The flow id (`id` of the flow record, `fl_` and 20 letters and digits)'),
});
export const WebhookPath = v.object({ webHookId: text('The subscription id (`id` in the list)') });
export const DeliveryPath = v.object({ deliveryId: text('The delivery id (from the deliveries list)') });
export const SenderPath = v.object({
  domain: v.pipe(
    v.string(),
    v.description('The sending domain as registered (any case; international names in either form)'),
    v.examples(['mail.shop.example']),
  ),
});
export const SendBatchPath = v.object({ id: text('The batch id (`id` of the send answer, `sb_…`)') });
export const ImportJobPath = v.object({ jobId: text('The import job id (`jobId`)') });

/** A page of a list: `limit` and the opaque `cursor` of the previous page. */
export const PageQuery = v.object({
  limit: optionalText('Items per page'),
  cursor: optionalText('`nextCursor` of the previous page'),
});

/** The explain view of one address across the store's flows. */
export const FlowActivityQuery = v.object({
  email: optionalText('The address whose evaluations to list'),
  limit: optionalText('Items per page'),
  cursor: optionalText('`nextCursor` of the previous page'),
});

/** Batch import: `append=1` adds to the store's contacts instead of replacing what each line names. */
export const AppendQuery = v.object({ append: optionalText('`1` (or `true`) to append') });

/** The single-use sign-in link's token. */
export const SignInTokenQuery = v.object({ token: optionalText('The single-use token of the sign-in link') });

/** The names and descriptions of an object schema's entries, as the API description's parameters. */
export const parametersOf = (
  schema: v.ObjectSchema<v.ObjectEntries, undefined>,
): Record<string, { description: string; required: boolean; schema: v.GenericSchema }> =>
  Object.fromEntries(
    Object.entries(schema.entries).map(([name, entry]) => {
      const optional = entry.type === 'optional';
      const inner = optional ? (entry as v.OptionalSchema<v.GenericSchema, unknown>).wrapped : entry;
      return [name, { description: v.getDescription(inner) ?? name, required: !optional, schema: inner }];
    }),
  );
