/**
 * Flow triggers: what the worker decides to start, per the spec's table "Which endpoints start flows" (general
 * interface rule 5) and the headless rules. The flow engine turns a trigger into runs of the store's matching flows.
 */

export const FLOW_KINDS = [
  'customer_created',
  'order_paid',
  'order_fulfilled',
  'order_status_changed',
  'order_refunded',
  'abandoned_cart',
  'checkout_recovery',
  'browse_recovery',
  'subscription_welcome',
  'back_in_stock',
  'custom_notification',
  'segment_entered',
  'segment_exited',
] as const;
export type FlowKind = (typeof FLOW_KINDS)[number];

/**
 * Kinds started by a contact entering or leaving a segment: a flow of these kinds names its segment
 * (`segmentId`), and only that segment's changes start it.
 */
export const SEGMENT_FLOW_KINDS = ['segment_entered', 'segment_exited'] as const;
export type SegmentFlowKind = (typeof SEGMENT_FLOW_KINDS)[number];
export const isSegmentKind = (kind: FlowKind): kind is SegmentFlowKind =>
  (SEGMENT_FLOW_KINDS as readonly FlowKind[]).includes(kind);

/** Kinds that have a preset: every kind but the segment ones, which need a segment to be named. */
export const PRESET_KINDS = FLOW_KINDS.filter(
  (kind): kind is Exclude<FlowKind, SegmentFlowKind> => !isSegmentKind(kind),
);

/** Who a flow would message. */
export interface TriggerContact {
  readonly email?: string;
  readonly phone?: string;
  /** The customer's id in the store's system. */
  readonly customerId?: string;
}

export interface FlowTrigger {
  /** Deterministic per cause (event or timer), so a redelivered message never fires twice. */
  readonly id: string;
  readonly storeId: string;
  readonly kind: FlowKind;
  /** What the flow is about, e.g. `{type: 'cart', id: token}`. */
  readonly subject: { readonly type: string; readonly id: string };
  readonly contact: TriggerContact;
  /** The event (`endpoint` + `sourceId`) or timer that caused it. */
  readonly cause: { readonly endpoint?: string; readonly sourceId?: string; readonly timer?: string };
  /** Data the flow may use in conditions and templates (order, cart lines, `custom`, `flow_id`, …). */
  readonly context: Readonly<Record<string, unknown>>;
  /** Epoch milliseconds. */
  readonly at: number;
  /**
   * Set when the trigger's address came from the store's publishable key (a cart, a back-in-stock request or a page
   * view posted with it), which anyone can read in the storefront's pages: its flows mail only a contact the store
   * knows (`knownAddress`).
   */
  readonly publicOrigin?: true;
}

/**
 * Whether a trigger may mail `email`: always, unless its address came from the publishable key; then only the address
 * of a contact the store's own systems wrote (not one created by a public sign-up), so a public client cannot have the
 * store mail an address nobody confirmed (a cart, a back-in-stock request, with any address in it).
 */
export const knownAddress = (
  trigger: Pick<FlowTrigger, 'publicOrigin'>,
  contact: { readonly email?: string | undefined; readonly publicSignUp?: true | undefined } | undefined,
  email: string,
): boolean =>
  trigger.publicOrigin !== true ||
  (contact !== undefined && contact.publicSignUp !== true && contact.email?.toLowerCase() === email.toLowerCase());

/** `ignore_flow = Y` in any event skips flow triggering (general interface rule 6). */
export const flowsIgnored = (data: Record<string, unknown>): boolean => data.ignore_flow === 'Y';
