/** `flow/notify` (general rule 4): hands `flow_id`, the person and `custom` to the custom-notification trigger. */
import type { FlowNotifyData } from '#shared/domain/events/payloads/engagement.ts';
import { flowsIgnored } from '#shared/domain/flows/trigger.ts';
import type { IngestMessage } from '#shared/domain/ingest/model.ts';
import { type ApplyDeps, type ApplyOutcome, fireFromEvent, withoutUndefined } from './context.ts';

export const applyFlowNotify = async (deps: ApplyDeps, message: IngestMessage): Promise<ApplyOutcome> => {
  const data = message.data as FlowNotifyData;
  if (flowsIgnored(message.data)) return { applied: 'none', triggers: [] };
  const { flow_id, custom, ignore_flow, ...person } = data;
  const kind = await fireFromEvent(deps, message, {
    kind: 'custom_notification',
    subject: { type: 'flow', id: String(flow_id) },
    contact: { email: data.email, phone: data.phone },
    context: { flow_id: String(flow_id), custom: custom ?? {}, ...withoutUndefined(person) },
  });
  return { applied: 'none', triggers: [kind] };
};
